"""The reference oracle: a method whose output is each entry's reference translation.

Scored like any method, it shows what a perfect system gets on a dataset; aggregation checks every
metric against it (lyss.aggregate.oracle). It does no work, so it records no latency, tokens or cost.
"""

from lyss.translate.simple import CopySource


class ReferenceOracle(CopySource):
    """Returns the reference unchanged."""

    field = "reference"
