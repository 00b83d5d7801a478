# Translation is bought once (docs/translation.md): rule `translate` writes the method's raw output and
# depends only on what changes the request; rule `postprocess` applies hooks and prices on top of it.
from lyss.translate.jobs import model_call_settings


rule translate:
    """One job per dataset × method: the raw output. Records go to a store outside the output as they
    arrive (results/translations/records/), so a killed or forced run resumes without paying twice.
    """
    input:
        on_threads,
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        files=method_files,
    output:
        raw="results/translations/raw/{dataset}/{method}.jsonl",
        meta="results/translations/raw/{dataset}/{method}.meta.json",
    log:
        "results/logs/translate/{dataset}/{method}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=120,
    params:
        method=lambda wc: model_call_settings(METHODS[wc.method], wc.dataset),
        records_dir="results/translations/records/{dataset}/{method}",
        # wall-clock timing: not an output (DVC versions none of it), read by `aggregate` when present
        timing="results/timings/translations/{dataset}/{method}.json",
        code=code("translate.py"),
    run:
        run_job("translate.py", locals(), in_worker=True)


rule postprocess:
    """Hooks (`methods.<name>.postprocess`) and prices on the raw output: never calls a model."""
    input:
        on_threads,
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        raw="results/translations/raw/{dataset}/{method}.jsonl",
        raw_meta="results/translations/raw/{dataset}/{method}.meta.json",
        languages=language_cards,
    output:
        translations="results/translations/{dataset}/{method}.jsonl",
        meta="results/translations/{dataset}/{method}.meta.json",
    log:
        "results/logs/postprocess/{dataset}/{method}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        hooks=lambda wc: list(METHODS[wc.method].postprocess),
        price=method_prices,
        languages_dir=LANGUAGES_DIR,
        code=code("postprocess.py"),
    run:
        run_job("postprocess.py", locals())


rule skipped:
    """The configured methods a dataset does not run, each with the reason (shown by the report)."""
    input:
        on_threads,
    output:
        "results/skipped/{dataset}.json",
    log:
        "results/logs/skipped/{dataset}.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        reasons=lambda wc: skipped_methods(wc.dataset),
        code=code("skipped.py"),
    run:
        run_job("skipped.py", locals())


rule translate_all:
    """DVC stage target: every translation, and the record of skipped methods."""
    input:
        [t for dataset in DATASETS for t in translations(dataset)],
        raw_translations(),
        skipped_files(),
