"""Translation through the real workflow in a scratch project (docs/translation.md):

* post-processing is its own rule on top of the raw output: adding, fixing or removing a hook reruns
  `postprocess` and never sends a request; a misspelt hook stops the run before any job, deleting nothing;
* methods per dataset: next to an eng-spa corpus, an eng-fra corpus skips Apertium (no eng-fra mode) with a
  reason in results/skipped/, a precomputed file made for the Spanish corpus is not scored on the French
  one, and the run finishes.
"""

import json
from pathlib import Path

import pytest
from openai_server import Script, serve
from scratch_project import DATASET, make_project, read_params, run_card, sh, write_params

pytestmark = pytest.mark.slow

KEY_ENV = "LYSS_TEST_WORKFLOW_KEY"
CARD = f"results/runs/{DATASET}/llm.json"
TRANSLATION = f"results/translations/{DATASET}/llm.jsonl"
RAW = f"results/translations/raw/{DATASET}/llm.jsonl"
N_ENTRIES = 8


def llm_method(base_url: str) -> dict:
    return {"llm": {"kind": "openai_compatible", "base_url": base_url, "model": "mt-model", "api_key_env": KEY_ENV,
                    "concurrency": 1, "backoff_s": 0.01, "timeout_s": 5, "max_retries": 0,
                    "prompt_template": "{source}"}}


def snakemake(work: Path, *args, check=True):
    return sh(work, "snakemake", "--cores", "1", *args, check=check, env_extra={KEY_ENV: "sk-test"})


def set_hooks(work: Path, hooks) -> None:
    params = read_params(work)
    params["methods"]["llm"]["postprocess"] = hooks
    write_params(work, params)


def rules_run(done) -> set[str]:
    return {line.split()[1].rstrip(":") for line in (done.stdout + done.stderr).splitlines()
            if line.startswith(("rule ", "localrule "))}


@pytest.fixture(scope="module")
def hooked(tmp_path_factory):
    """The server answers every entry with the source in straight double quotes, which fix_quotes turns
    into the Spanish card's « »."""
    entries = [json.loads(line) for line in (Path(__file__).parents[1] / "data/corpora/demo_eng_spa/corpus.jsonl")
               .read_text().splitlines()[:N_ENTRIES]]
    script = Script(translations={e["source"]: f'"{e["source"]}"' for e in entries})
    with serve(script) as server:
        work = make_project(tmp_path_factory.mktemp("hooks"), N_ENTRIES, methods=llm_method(server.base_url),
                            metrics=["exact_match_rate", "compliance_index"])
        steps = {"first": snakemake(work, CARD)}
        counts = {"first": len(server.requests)}
        states = {"first": (work / TRANSLATION).read_text()}
        raw = (work / RAW).read_text()
        set_hooks(work, ["fix_quotes"])
        steps["added"] = snakemake(work, CARD)
        counts["added"] = len(server.requests)
        states["added"] = (work / TRANSLATION).read_text()
        before = {p: p.stat().st_mtime_ns for p in (work / "results").rglob("*") if p.is_file()}
        set_hooks(work, ["fix_quote"])
        steps["typo"] = snakemake(work, CARD, check=False)
        after = {p: p.stat().st_mtime_ns for p in (work / "results").rglob("*") if p.is_file()}
        set_hooks(work, [])
        steps["removed"] = snakemake(work, CARD)
        counts["removed"] = len(server.requests)
        states["removed"] = (work / TRANSLATION).read_text()
    return {"work": work, "steps": steps, "counts": counts, "states": states, "raw": raw, "before": before,
            "after": after, "entries": entries}


def test_adding_and_removing_a_hook_never_calls_the_model(hooked):
    counts, steps = hooked["counts"], hooked["steps"]
    assert counts == {"first": N_ENTRIES, "added": N_ENTRIES, "removed": N_ENTRIES}
    assert "translate" in rules_run(steps["first"])
    for step in ("added", "removed"):
        assert "postprocess" in rules_run(steps[step]) and "translate" not in rules_run(steps[step]), step
    assert (hooked["work"] / RAW).read_text() == hooked["raw"]


def test_hook_output_is_repaired_on_top_of_the_raw_answers(hooked):
    sources = [e["source"] for e in hooked["entries"]]
    added = [json.loads(line) for line in hooked["states"]["added"].splitlines()]
    assert [r["raw_prediction"] for r in added] == [f'"{s}"' for s in sources]
    assert [r["prediction"] for r in added] == [f"«{s}»" for s in sources]
    assert all(r["hooks_applied"] == ["fix_quotes"] for r in added)
    assert hooked["states"]["removed"] == hooked["states"]["first"]  # back to the raw answers, as bought
    assert [json.loads(line)["prediction"] for line in hooked["states"]["first"].splitlines()] == [
        f'"{s}"' for s in sources]


def test_misspelt_hook_fails_before_any_job_and_deletes_nothing(hooked):
    typo = hooked["steps"]["typo"]
    assert typo.returncode != 0
    assert ("field 'methods.llm.postprocess[0]': unknown post-processing hook 'fix_quote' (did you mean "
            "'fix_quotes'?)") in typo.stdout + typo.stderr
    assert hooked["after"] == hooked["before"]  # every result file still there, untouched


# ------------------------------------------------------------------ methods per dataset

FRENCH = [
    {"id": "fr-1", "source": "I have a headache.", "reference": "J'ai mal à la tête."},
    {"id": "fr-2", "source": "The train leaves at noon.", "reference": "Le train part à midi."},
    {"id": "fr-3", "source": "Upload failed", "reference": "Échec du téléversement"},
    {"id": "fr-4", "source": "Thank you very much.", "reference": "Merci beaucoup."},
]


@pytest.fixture(scope="module")
def two_pairs(tmp_path_factory):
    work = tmp_path_factory.mktemp("pairs")
    spanish = [json.loads(line) for line in (Path(__file__).parents[1] / "data/corpora/demo_eng_spa/corpus.jsonl")
               .read_text().splitlines()[:N_ENTRIES]]
    (work / "outputs").mkdir()
    (work / "outputs/spa.txt").write_text("".join(e["reference"] + "\n" for e in spanish))
    methods = {"apertium": {"kind": "apertium"}, "copy_source": {"kind": "copy_source"},
               "pre": {"kind": "precomputed", "paths": {DATASET: "outputs/spa.txt"}}}
    make_project(work, N_ENTRIES, methods=methods, metrics=["exact_match_rate", "chrf_plus_plus"])
    folder = work / "data/corpora/fr_small"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in FRENCH))
    (folder / "dataset.yaml").write_text("id: fr_small\nname: French test set\nlanguage_pair: eng-fra\n"
                                         "licence: CC0-1.0\ncitation: written for this test\n")
    params = read_params(work)
    params["datasets"]["fr_small"] = {"path": "data/corpora/fr_small"}
    write_params(work, params)
    done = snakemake(work, "all")
    return work, done, spanish


def test_eng_fra_skips_apertium_and_the_spanish_precomputed_file_with_reasons(two_pairs):
    work, _, _ = two_pairs
    skipped = json.loads((work / "results/skipped/fr_small.json").read_text())
    assert set(skipped) == {"apertium", "pre"}
    assert skipped["apertium"].startswith("Apertium mode 'eng-fra' is not installed")
    assert skipped["pre"] == f"no file for this dataset in methods.pre.paths (files were given for: {DATASET})"
    assert json.loads((work / f"results/skipped/{DATASET}.json").read_text()) == {}
    assert sorted(p.name for p in (work / "results/runs/fr_small").iterdir()) == ["copy_source.json", "reference.json"]
    assert not (work / "results/translations/fr_small/pre.jsonl").exists()
    assert not (work / "results/translations/fr_small/apertium.jsonl").exists()
    leaderboard = (work / "results/leaderboard.md").read_text()
    french_part = leaderboard[leaderboard.index("## fr_small"):]
    assert f"Skipped ({skipped['apertium']}): **apertium**" in french_part
    assert (f"Skipped (no file for this dataset in the method's paths (files were given for: {DATASET})): **pre**"
            in french_part)


def test_each_corpus_is_scored_with_its_own_methods(two_pairs):
    work, _, spanish = two_pairs
    assert sorted(p.name for p in (work / f"results/runs/{DATASET}").iterdir()) == [
        "apertium.json", "copy_source.json", "pre.json", "reference.json"]
    pre = [json.loads(line) for line in (work / f"results/translations/{DATASET}/pre.jsonl").read_text().splitlines()]
    assert [r["prediction"] for r in pre] == [e["reference"] for e in spanish]  # the file, line by line
    card = run_card(work, "pre")
    assert card["scores"]["errors"] == 0 and card["scores"]["evaluated"] == N_ENTRIES
    french = run_card(work, "copy_source", dataset="fr_small")
    assert french["scores"]["errors"] == 0 and french["scores"]["total"] == len(FRENCH)
    significance = json.loads((work / "results/significance/fr_small.json").read_text())
    assert "pre" not in json.dumps(significance) and "apertium" not in json.dumps(significance)


def test_listing_a_method_that_cannot_serve_the_dataset_is_one_config_error(two_pairs):
    work, _, _ = two_pairs
    params = read_params(work)
    params["datasets"]["fr_small"]["methods"] = ["copy_source", "apertium"]
    write_params(work, params)
    try:
        failed = snakemake(work, "-n", "all", check=False)
    finally:
        del params["datasets"]["fr_small"]["methods"]
        write_params(work, params)
    assert failed.returncode != 0
    assert ("params.yaml: field 'datasets.fr_small.methods': method 'apertium' cannot translate eng-fra"
            in failed.stdout + failed.stderr)
