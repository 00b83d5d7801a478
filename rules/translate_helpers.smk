# What the translate rules read (rules/translate.smk): a method's price row and the files it reads.
from lyss.translate.simple import precomputed_path


def method_prices(wildcards):
    """Only the price row of this method's model, so editing another model's price reruns nothing."""
    model = METHODS[wildcards.method].options.get("model")
    return config["prices"].get(model)


def method_files(wildcards):
    """Files a method reads besides the corpus (a precomputed output), so editing them reruns it."""
    method = METHODS[wildcards.method]
    if method.kind != "precomputed":
        return []
    return [
        precomputed_path(
            config["methods"][wildcards.method],
            wildcards.dataset,
            "params.yaml",
            wildcards.method,
        )
    ]
