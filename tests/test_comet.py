"""comet_score end to end on a tiny COMET model that this test trains offline (never a download), and
the unavailable paths (extra missing, hub id not cached, path missing) that must never fail a run."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from lyss.aggregate.confidence import corpus_statistic
from lyss.metrics import ScoringInput
from lyss.metrics import comet as comet_metric
from lyss.metrics.comet import CometScore
from lyss.metrics.files import read_metric_result, write_metric_result

sys.path.insert(0, str(Path(__file__).parent))
from tiny_comet import train_tiny_comet  # noqa: E402

DEMO = [json.loads(line) for line in Path("data/corpora/demo_eng_spa/corpus.jsonl").read_text().splitlines()]
SPANISH = {"code": "spa", "scripts": ["Latn"]}


def data(predictions, entries=DEMO[:6], card=SPANISH, **options):
    return ScoringInput(entries, predictions, predictions, "eng", "spa", {"code": "eng"}, card, options)


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    pytest.importorskip("comet", reason="unbabel-comet is not installed (optional extra lyss[comet])")
    return train_tiny_comet(tmp_path_factory.mktemp("tiny_comet"))


def test_scores_equal_the_models_own_predictions(tiny_checkpoint, tmp_path):
    from comet import load_from_checkpoint

    entries = DEMO[:6]
    outputs = [e["reference"] for e in entries[:3]] + [e["source"] for e in entries[3:]]
    result = CometScore().score(data(outputs, model=str(tiny_checkpoint)))
    direct = load_from_checkpoint(str(tiny_checkpoint), local_files_only=True).predict(
        [{"src": e["source"], "mt": o, "ref": e["reference"]} for e, o in zip(entries, outputs, strict=True)],
        gpus=0, progress_bar=False)
    assert result.values == pytest.approx(direct.scores, abs=1e-5)
    assert result.corpus_value == pytest.approx(direct.system_score, abs=1e-5)
    assert result.values[:3].mean() > result.values[3:].mean()  # it learned: reference > source copy
    assert result.counts == {"comet_model": str(tiny_checkpoint)}
    assert result.details["low_resource_warning"] is True and result.details["in_composite"] is False
    import torch

    assert result.details["device"] == ("gpu" if torch.cuda.is_available() else "cpu")

    # the per-entry scores in the metric file are the cache: the CI statistic is rebuilt from them
    # without the model (loading it would fail here)
    path = tmp_path / "comet_score.parquet"
    write_metric_result(path, result, [e["id"] for e in entries])
    comet_metric.load_model.cache_clear()
    stored, _ = read_metric_result(path)
    assert corpus_statistic(stored).score() == pytest.approx(result.corpus_value)


def test_a_reserved_gpu_is_used_and_a_machine_without_one_predicts_on_the_cpu(monkeypatch):
    """The job declares one GPU (rules/score.smk reserves it); the prediction must run where the job runs."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert comet_metric.prediction_device() == ("gpu", 1)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert comet_metric.prediction_device() == ("cpu", 0)


def test_model_from_the_card_and_validated_pairs(tiny_checkpoint):
    card = {**SPANISH, "metricModelSupport": {"comet": str(tiny_checkpoint.parent.parent)}}  # the folder works too
    result = CometScore().score(data([e["reference"] for e in DEMO[:6]], card=card))
    assert result.available and result.details["low_resource_warning"] is False
    listed = CometScore().score(data([e["reference"] for e in DEMO[:6]], model=str(tiny_checkpoint),
                                     validated_pairs=["eng-spa"]))
    assert listed.details["low_resource_warning"] is False


def test_hub_id_not_in_cache_is_unavailable_with_how_to_provide():
    result = CometScore().score(data(["x"] * 6, model="lyss-test/no-such-comet-model"))
    assert result.corpus_value is None and np.isnan(result.values).all()
    if "not installed" not in result.reason:
        assert "never downloads" in result.reason and "metric_options.comet_score.model" in result.reason
    assert result.details["model"] == "lyss-test/no-such-comet-model"


def test_missing_checkpoint_path_is_unavailable(tmp_path):
    pytest.importorskip("comet", reason="unbabel-comet is not installed (optional extra lyss[comet])")
    result = CometScore().score(data(["x"] * 6, model=str(tmp_path / "nothing" / "model.ckpt")))
    assert result.corpus_value is None and "does not exist" in result.reason


def test_missing_extra_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "comet", None)  # import comet now raises ImportError
    checkpoint = tmp_path / "model.ckpt"
    checkpoint.write_bytes(b"")  # a model on disk: what is missing is the package
    result = CometScore().score(data(["x"] * 6, model=str(checkpoint)))
    assert result.corpus_value is None and "lyss[comet]" in result.reason
    default = CometScore().score(data(["x"] * 6))
    assert default.details["model"] == "Unbabel/wmt22-comet-da"  # the default, from resolve_comet_model


def test_a_model_missing_from_the_cache_reads_the_same_with_or_without_the_extra(monkeypatch, tmp_path):
    """The reason lands in a versioned metric file: it must not depend on whether lyss[comet] is installed."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with_extra = CometScore().score(data(["x"] * 6)).reason
    monkeypatch.setitem(sys.modules, "comet", None)
    without = CometScore().score(data(["x"] * 6)).reason
    assert with_extra == without and "not in the local Hugging Face cache" in without


def test_a_cached_hub_model_is_found_by_its_files(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    folder = tmp_path / "models--Org--tiny"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text("abc123")
    (folder / "snapshots" / "abc123" / "checkpoints").mkdir(parents=True)
    (folder / "snapshots" / "abc123" / "checkpoints" / "model.ckpt").write_bytes(b"")
    assert comet_metric.locate_checkpoint("Org/tiny") == folder / "snapshots" / "abc123" / "checkpoints" / "model.ckpt"


def test_lyss_score_comet_model_option_scores_with_that_checkpoint(tiny_checkpoint, tmp_path, capsys):
    """`lyss score --comet-model PATH`: the model's own system score, with `-m comet_score` and with the
    defaults (naming the model asks for the metric); a model for a metric `-m` leaves out is an error."""
    from comet import load_from_checkpoint

    from lyss.cli import main

    entries = DEMO[:6]
    files = {}
    for name, lines in (("src", [e["source"] for e in entries]), ("ref", [e["reference"] for e in entries]),
                        ("hyp", [e["source"] for e in entries[:3]] + [e["reference"] for e in entries[3:]])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    direct = load_from_checkpoint(str(tiny_checkpoint), local_files_only=True).predict(
        [{"src": e["source"], "mt": h, "ref": e["reference"]}
         for e, h in zip(entries, files["hyp"].read_text(encoding="utf-8").splitlines(), strict=True)],
        gpus=0, progress_bar=False)
    base = ["score", "-s", str(files["src"]), "-r", str(files["ref"]), "-i", str(files["hyp"]), "-l", "en-es",
            "--comet-model", str(tiny_checkpoint), "--json"]
    for selection in (["-m", "comet_score"], []):
        assert main([*base, *selection]) == 0
        scores = json.loads(capsys.readouterr().out)["scores"]
        assert scores["comet_score"] == pytest.approx(direct.system_score, abs=1e-5)
    assert len(scores) > 1  # the defaults were scored beside it
    assert main([*base, "-m", "bleu"]) == 2
    assert "a model was given for comet_score, which -m leaves out" in capsys.readouterr().err


def test_lyss_compare_comet_model_option_tests_comet_score_with_that_checkpoint(tiny_checkpoint, tmp_path, capsys):
    """`lyss compare --comet-model PATH`: comet_score joins the compared metrics (with the defaults too); each
    system's score and the delta are the model's own system scores; `-m` without it is an error, as in score."""
    from comet import load_from_checkpoint

    from lyss.cli import main

    entries = DEMO[:6]
    systems = {"copy": [e["source"] for e in entries], "ref": [e["reference"] for e in entries]}
    files = {"src": tmp_path / "src.txt", "ref_file": tmp_path / "reference.txt"}
    files["src"].write_text("\n".join(systems["copy"]) + "\n", encoding="utf-8")
    files["ref_file"].write_text("\n".join(systems["ref"]) + "\n", encoding="utf-8")
    for name, lines in systems.items():
        files[name] = tmp_path / name
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = load_from_checkpoint(str(tiny_checkpoint), local_files_only=True)
    direct = {name: model.predict([{"src": e["source"], "mt": h, "ref": e["reference"]}
                                   for e, h in zip(entries, lines, strict=True)], gpus=0,
                                  progress_bar=False).system_score for name, lines in systems.items()}
    base = ["compare", "-s", str(files["src"]), "-r", str(files["ref_file"]), "-i", str(files["copy"]),
            str(files["ref"]), "-l", "en-es", "--comet-model", str(tiny_checkpoint), "--n", "50", "--json"]
    for selection in (["-m", "comet_score"], []):
        assert main([*base, *selection]) == 0
        rows = json.loads(capsys.readouterr().out)
        comet_row, = [r for r in rows if r["metric"] == "comet_score"]
        assert comet_row["baseline_score"] == pytest.approx(direct["copy"], abs=1e-5)
        assert comet_row["score"] == pytest.approx(direct["ref"], abs=1e-5)
        assert comet_row["delta"] == pytest.approx(direct["ref"] - direct["copy"], abs=1e-5)
    assert {r["metric"] for r in rows} > {"comet_score", "chrf_plus_plus"}  # the defaults beside it
    assert main([*base, "-m", "bleu"]) == 2
    assert "a model was given for comet_score, which -m leaves out" in capsys.readouterr().err
