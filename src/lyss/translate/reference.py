"""The reference oracle: a method whose output is each entry's reference translation.

Scored like any method, it shows what a perfect system gets on a dataset; aggregation checks every
metric against it (lyss.aggregate.oracle). It does no work, so it records no latency, tokens or cost.
"""

from lyss.translate.base import MethodContext, TranslationRecord


class ReferenceOracle:
    """Returns the reference unchanged."""

    def __init__(self, context: MethodContext):
        self.context = context

    def translate(self, entries):
        for entry in entries:
            yield TranslationRecord(entry["id"], entry["reference"], entry["reference"])
