"""LYSS bench: machine-translation evaluation following the LYSS scoring spec."""

__version__ = "0.1.0"
