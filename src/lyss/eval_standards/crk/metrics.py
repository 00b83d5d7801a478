"""CrkLinterMetric (spec Appendix B, LYSS-eq): equivalent match for Plains Cree by deterministic
variant-class rules — orthography, lemma synonyms, inclusive/exclusive "we", progressive aspect,
optional particles, word order — kept as data in `rules.yaml` beside this file. The crk language card
declares it under `evalMetrics`, so it replaces the generic `equivalent_match_rate` for Cree targets.
"""

from importlib import resources

from lyss.metrics.equivalence import EquivalentMatch, VariantRules


class CrkLinterMetric(EquivalentMatch):
    """Generic equivalent match plus the Plains Cree variant classes; per entry a verdict
    (EXACT / EQUIVALENT / MISS / NO_OUTPUT) and the class that matched."""

    id = "equivalent_match_rate"

    def __init__(self):
        self.rules = VariantRules.from_yaml(resources.files(__package__).joinpath("rules.yaml"))
