"""§1.6 validation status from the human-judgment evidence of datasets in the same language pair."""

import json

from lyss.aggregate.validation_status import load_evidence, tier_status, validation_status


def write_evidence(folder, pair, metrics):
    folder.mkdir(parents=True)
    (folder / "evidence.json").write_text(json.dumps({"language_pair": pair, "metrics": metrics}))
    return folder


def test_status_per_metric_and_composite(tmp_path):
    ted = write_evidence(tmp_path / "ted", "eng-deu", {
        "chrf_plus_plus": {"status": "validated"}, "semantic_score": {"status": "evidence"},
        "composite": {"status": "evidence"}})
    news = write_evidence(tmp_path / "news", "eng-deu", {"semantic_score": {"status": "validated"}})
    other = write_evidence(tmp_path / "yor", "eng-yor", {"composite": {"status": "validated"}})
    empty = tmp_path / "not-run-yet"
    empty.mkdir()
    evidence = load_evidence([ted, news, other, empty], "eng-deu")
    assert len(evidence) == 2  # the eng-yor study and the folder without evidence do not count
    status = validation_status(["chrf_plus_plus", "semantic_score", "bleu", "code_switching_rate"], evidence,
                               invalid={"code_switching_rate"})
    assert status == {"bleu": "unvalidated", "chrf_plus_plus": "validated", "code_switching_rate": "invalid here",
                      "semantic_score": "validated", "composite": "evidence"}
    assert tier_status(status) == "provisional"
    assert tier_status(validation_status([], load_evidence([other], "eng-yor"), set())) == "validated"


def test_no_evidence_means_unvalidated():
    assert validation_status(["bleu"], [], set()) == {"bleu": "unvalidated", "composite": "unvalidated"}
