"""`lyss review export|import` on a tiny dataset: the command line, the checks on returned files (one line per
problem naming file, line and field), re-imports, and the study design's arithmetic."""

import json

import numpy as np
import pytest
import yaml

from lyss.aggregate.runcard import validate_run_card
from lyss.cli import main
from lyss.errors import InputError
from lyss.review.ratings import Rating, RatingProblems
from lyss.review.scores import rater_z_scores
from lyss.review.settings import review_settings
from lyss.review.study import import_reviews

METHODS = ("alpha", "beta")


@pytest.fixture
def project(tmp_path):
    """results/ with a prepared corpus of 12 segments, two systems' outputs and run cards, and a params file."""
    results = tmp_path / "results"
    entries = [{"id": f"e{i}", "source": f"Source {i}.", "reference": f"Ref {i}.", "provenance": f"d{i % 2}"}
               for i in range(12)]
    (results / "corpora").mkdir(parents=True)
    (results / "corpora" / "tiny.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    (results / "corpora" / "tiny.meta.json").write_text(json.dumps({"dataset": {"id": "tiny",
                                                                                "language_pair": "eng-deu"}}))
    for method in (*METHODS, "reference"):
        (results / "translations" / "tiny").mkdir(parents=True, exist_ok=True)
        (results / "runs" / "tiny").mkdir(parents=True, exist_ok=True)
        (results / "translations" / "tiny" / f"{method}.jsonl").write_text("".join(
            json.dumps({"id": e["id"], "prediction": f"Ausgabe {method[0]}{i}"}) + "\n" for i, e in enumerate(entries)))
        kind = "reference" if method == "reference" else "precomputed"
        (results / "runs" / "tiny" / f"{method}.json").write_text(json.dumps(
            {"method": {"name": method, "kind": kind}, "scores": {"composite": 0.6, "quality_tier": "functional"}}))
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"datasets": {"tiny": {"path": str(tmp_path / "data" / "tiny")}},
                                      "review": {"speakers": 3, "overlap": 2, "items_per_speaker": 8, "seed": 3,
                                                 "resamples": 200}}))
    return {"root": tmp_path, "results": results, "params": params, "data": tmp_path / "data" / "tiny"}


def export(project):
    out = project["root"] / "export"
    assert main(["review", "export", "tiny", "--out", str(out), "--params", str(project["params"]),
                 "--results", str(project["results"])]) == 0
    return out, json.loads((out / "key.json").read_text())


def ratings(path, key, rater, packet, rows, **header):
    head = {"format": "lyss-review-ratings", "study": key["study"], "dataset": "tiny", "rater": rater,
            "packet": packet, **header}
    path.write_text("\n".join([json.dumps(head), *(json.dumps(r) for r in rows)]) + "\n")
    return path


def full_packet(key, packet, score=lambda k: 10 * k):
    return [{"item": item, "score": score(k), "errors": []} for k, item in enumerate(key["packets"][packet - 1])]


def test_export_splits_segments_into_overlapping_packets_and_leaves_the_oracle_out(project):
    out, key = export(project)
    # 8 items per speaker over 2 systems = 4 segments each; 3 packets × 4 / overlap 2 = 6 segments, 12 outputs
    assert sorted(key["systems"]) == list(METHODS) and len(key["items"]) == 12
    assert [len(p) for p in key["packets"]] == [8, 8, 8]
    assert all(len(v["packets"]) == 2 for v in key["items"].values())
    page = (out / "review_tiny.html").read_text()
    assert "Ref 0." not in page and all(m not in page for m in METHODS)  # show_reference defaults to false
    again = export(project)[1]
    assert again == key  # the seed decides everything


def test_import_reports_every_problem_on_its_own_line(project, capsys):
    out, key = export(project)
    packet = key["packets"][0]
    other = next(i for i in key["items"] if i not in packet)
    rows = [{"item": packet[0], "score": 101, "errors": []},
            {"item": packet[1], "score": "good", "errors": []},
            {"item": "o99", "score": 50, "errors": []},
            {"item": other, "score": 50, "errors": []},
            {"item": packet[2], "score": 40, "errors": [{"start": 3, "end": 1, "category": "style",
                                                          "severity": "critical"}]},
            {"item": packet[3], "score": 40, "errors": []},
            {"item": packet[3], "score": 45, "errors": []},
            {"item": packet[4], "score": 45, "errors": [{"start": 0, "end": 99, "category": "other",
                                                          "severity": "minor"}]}]
    where = key["items"][packet[4]]
    length = len(f"Ausgabe {where['method'][0]}{where['id'][1:]}")  # the output the fixture wrote for it
    bad = ratings(project["root"] / "bad.jsonl", key, "speaker-a", 1, rows)
    wrong = ratings(project["root"] / "wrong.jsonl", key, "x y", 9, [], study="0" * 12)
    code = main(["review", "import", "tiny", str(bad), str(wrong), "--key", str(out / "key.json"),
                 "--params", str(project["params"])])
    lines = capsys.readouterr().err.splitlines()
    assert code == 2
    assert lines == [
        f"lyss: error: {bad}:2: field 'score': score 101 is off the scale 0..100",
        f"lyss: error: {bad}:3: field 'score': score 'good' is not a number",
        f"lyss: error: {bad}:4: field 'item': unknown item 'o99' (not in this study)",
        f"lyss: error: {bad}:5: field 'item': item '{other}' is not in packet 1",
        f"lyss: error: {bad}:6: field 'errors[0].start': start 3 and end 1 must be offsets with 0 <= start < end",
        f"lyss: error: {bad}:6: field 'errors[0].category': category 'style' is not one of accuracy, fluency, "
        "terminology, other",
        f"lyss: error: {bad}:6: field 'errors[0].severity': severity 'critical' is not one of minor, major",
        f"lyss: error: {bad}:8: field 'item': item '{packet[3]}' rated twice (first on line 7)",
        f"lyss: error: {bad}:9: field 'errors[0].end': end 99 is past the output's {length} characters",
        f"lyss: error: {wrong}:1: field 'study': is '000000000000', expected '{key['study']}' (a ratings file of "
        "this study's page)",
        f"lyss: error: {wrong}:1: field 'rater': rater id 'x y' must be letters, digits, '-' or '_'",
        f"lyss: error: {wrong}:1: field 'packet': packet 9 is not one of 1..3",
    ]
    assert not (project["data"] / "reviews").exists()  # nothing stored from a bad import


def test_a_rater_may_not_rate_an_output_twice_across_packets(project):
    _, key = export(project)
    first, second = key["packets"][0], key["packets"][1]
    shared = next(i for i in first if i in second)
    a = ratings(project["root"] / "a.jsonl", key, "ann", 1, [{"item": shared, "score": 60, "errors": []}])
    b = ratings(project["root"] / "b.jsonl", key, "ann", 2, [{"item": shared, "score": 70, "errors": []}])
    with pytest.raises(RatingProblems) as caught:
        import_reviews(project["data"], [a, b], review_settings({"speakers": 3, "overlap": 2}),
                       project["root"] / "export" / "key.json")
    assert str(caught.value) == f"{b}:2: field 'item': rater 'ann' already rated item '{shared}' in {a}:2"


def test_reimport_accumulates_speakers_and_a_later_file_replaces_the_earlier_one(project, capsys):
    out, key = export(project)
    args = ["--params", str(project["params"])]
    one = ratings(project["root"] / "one.jsonl", key, "ann", 1, full_packet(key, 1)[:3])
    assert main(["review", "import", "tiny", str(one), "--key", str(out / "key.json"), *args]) == 0
    # the folder's reviews/human_scores.csv is the dataset's human_scores by convention: nothing to set
    assert "set in" not in capsys.readouterr().out
    # later: ann sends the whole packet, bob and cy theirs; no --key needed now that it is stored
    files = [ratings(project["root"] / "one-full.jsonl", key, "ann", 1, full_packet(key, 1)),
             ratings(project["root"] / "two.jsonl", key, "bob", 2, full_packet(key, 2, lambda k: 90 - 5 * k)),
             ratings(project["root"] / "three.jsonl", key, "cy", 3, full_packet(key, 3, lambda k: 50 + k))]
    assert main(["review", "import", "tiny", *map(str, files), *args]) == 0
    verdict = json.loads((project["data"] / "reviews" / "verdict.json").read_text())
    assert verdict["ratings"] == 24 and verdict["speakers"] == 3 and verdict["outputs"] == 12
    assert not verdict["meets_spec_minimum"]
    assert sorted(p.name for p in (project["data"] / "reviews" / "ratings").iterdir()) == [
        "ann-packet1.jsonl", "bob-packet2.jsonl", "cy-packet3.jsonl"]
    # a key from another export is refused rather than mixed in
    other = dict(key, study="f" * 12)
    (project["root"] / "other.json").write_text(json.dumps(other))
    with pytest.raises(InputError, match="is not the study stored in"):
        import_reviews(project["data"], files, review_settings({"speakers": 3, "overlap": 2}),
                       project["root"] / "other.json")


def test_overlap_above_the_number_of_speakers_is_refused():
    with pytest.raises(InputError, match="field 'review.overlap': overlap 4 is more than the 3 speakers"):
        review_settings({"speakers": 3, "overlap": 4})


def test_z_scores_by_hand_and_a_rater_with_one_score_for_everything_contributes_zero():
    rows = [Rating("a", 1, f"o{k}", s, (), "f", k) for k, s in enumerate([20.0, 40.0, 60.0])]
    rows += [Rating("b", 1, f"o{k}", 70.0, (), "f", k) for k in range(3)]
    sd = np.sqrt(((20 - 40) ** 2 + 0 + (60 - 40) ** 2) / 3)
    assert rater_z_scores(rows).tolist() == pytest.approx([-20 / sd, 0.0, 20 / sd, 0.0, 0.0, 0.0])


def test_the_run_card_carries_the_speakers_verdict_and_stays_schema_valid():
    from test_runcard import PARAMS
    from test_runcard import make_card as built_card

    review = {"study": "s" * 12, "speakers": 3, "outputs": 600, "pairs_with_min_speakers": 600,
              "meets_spec_minimum": True,
              "methods": {"llm": {"outputs": 200, "speakers": 3, "usable_share": 0.9, "verdict": "usable"}}}
    card, _ = built_card(review=review)
    validate_run_card(card)
    tier = card["scores"]["quality_tier"]
    claims = [t["name"] for t in PARAMS["tiers"]].index(tier) <= 1  # fluent or deployable
    assert card["tier_review"] == {
        "claims_usable": claims, "speakers": 3, "items": 200, "verdict": "usable", "usable_share": 0.9,
        "study": {k: review[k] for k in ("study", "speakers", "outputs", "pairs_with_min_speakers",
                                         "meets_spec_minimum")},
        "status": "confirmed" if claims else "overturned"}
    unreviewed, _ = built_card()
    validate_run_card(unreviewed)
    assert unreviewed["tier_review"]["status"] == ("candidate for review" if claims else "not reviewed")


def test_a_study_meeting_the_bar_contradicts_a_metric_whose_interval_lies_on_the_wrong_side(tmp_path):
    from lyss.aggregate.validation_status import load_evidence, validation_status

    def study(kendall, direction, meets=True):
        return {"status": "evidence", "direction": direction, "segment_kendall": kendall, "meets_spec_minimum": meets}

    folder = tmp_path / "ev"
    folder.mkdir()
    (folder / "evidence.json").write_text(json.dumps({"language_pair": "eng-deu", "metrics": {
        "ter": study([0.2, 0.1, 0.3], "lower"),              # TER rising with quality: against people
        "chrf_plus_plus": study([-0.2, -0.3, -0.1], "higher"),
        "bleu": study([-0.2, -0.3, -0.1], "higher", meets=False),  # below the bar: only evidence
        "semantic_score": study([-0.05, -0.1, 0.02], "higher"),     # interval across 0: inconclusive
    }}))
    statuses = validation_status(["ter", "chrf_plus_plus", "bleu", "semantic_score"],
                                 load_evidence([folder], "eng-deu"), set())
    assert statuses == {"ter": "contradicted", "chrf_plus_plus": "contradicted", "bleu": "evidence",
                        "semantic_score": "evidence", "composite": "unvalidated"}


def test_texts_cannot_break_out_of_the_page_and_too_few_segments_for_the_packets_is_refused(project, capsys):
    corpus = project["results"] / "corpora" / "tiny.jsonl"
    rows = [json.loads(line) for line in corpus.read_text().splitlines()]
    rows[0]["source"] = "</script><script>alert(1)</script> & <!--"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    params = yaml.safe_load(project["params"].read_text())
    params["review"].update({"items_per_speaker": 24, "overlap": 1})  # every segment, so row 0 is on the page
    project["params"].write_text(yaml.safe_dump(params))
    out, _ = export(project)
    page = (out / "review_tiny.html").read_text()
    assert page.count("</script>") == 2 and "alert(1)" in page and "<!--" not in page
    params["review"].update({"speakers": 30, "items_per_speaker": 2})
    project["params"].write_text(yaml.safe_dump(params))
    assert main(["review", "export", "tiny", "--out", str(out), "--params", str(project["params"]),
                 "--results", str(project["results"])]) == 2
    assert capsys.readouterr().err == ("lyss: error: tiny: 12 segments cannot fill 30 packets with overlap 1: raise "
                                       "review.items_per_speaker or lower review.speakers\n")
    assert main(["review", "export", "tine", "--out", str(out), "--params", str(project["params"]),
                 "--results", str(project["results"])]) == 2
    assert capsys.readouterr().err == (f"lyss: error: {project['params']}: field 'datasets': unknown dataset 'tine' "
                                       "(did you mean 'tiny'?); known: tiny\n")
