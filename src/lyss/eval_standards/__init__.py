"""Language-specific evaluation standards ("judges, not contestants", spec Appendix B).

Each sub-package (`crk/`, …) holds the plugins and rule data of one language. A language card
declares its plugins under `evalMetrics` ({metric, module, class}); `lyss.metrics.resolve_metric`
loads them instead of the generic metric of the same id, for every method that targets the language.
"""
