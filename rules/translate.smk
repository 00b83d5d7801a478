def method_prices(wildcards):
    """Only the price row of this method's model, so editing another model's price reruns nothing."""
    model = config["methods"][wildcards.method].get("model")
    prices = config.get("prices", {})
    return {model: prices[model]} if model in prices else {}


rule translate:
    """One job per dataset × method; resumes from `<output>.partial` after an interruption."""
    input:
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        languages=language_cards,
    output:
        translations="results/translations/{dataset}/{method}.jsonl",
        meta="results/translations/{dataset}/{method}.meta.json",
    log:
        "results/logs/translate/{dataset}/{method}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=120,
    params:
        method=lambda wc: config["methods"][wc.method],
        prices=method_prices,
        languages_dir=LANGUAGES_DIR,
        code=code("translate.py"),
    script:
        "../scripts/translate.py"


rule translate_all:
    """DVC stage target: every translation."""
    input:
        [t for dataset in DATASETS for t in translations(dataset)],
