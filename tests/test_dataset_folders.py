"""Datasets from plain files (lyss.prep.folders): source.txt + reference(s), systems/ discovered as precomputed
methods with no params entry, human_scores.csv by convention; and one such dataset through the workflow, its
chrF++ equal to sacrebleu's on the same files."""

import json

import pytest
import sacrebleu
from scratch_project import ROOT, make_project, read_params, sh, write_params

from lyss.aggregate.composite import select_profile
from lyss.errors import InputError
from lyss.languages import card_for
from lyss.prep.folders import discovered_systems, expand_dataset_folders, load_dataset_entries
from lyss.translate.eligibility import select_methods

DEMO = [json.loads(line) for line in (ROOT / "data/corpora/demo_eng_spa/corpus.jsonl").read_text().splitlines()]


def write_lines(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def test_plain_text_entries_number_the_lines_and_carry_every_reference(tmp_path):
    write_lines(tmp_path / "source.txt", ["Hello.", "Thank you."])
    write_lines(tmp_path / "reference.txt", ["Hola.", "Gracias."])
    write_lines(tmp_path / "reference.B.txt", ["¡Hola!", "Muchas gracias."])
    entries = load_dataset_entries(tmp_path)
    assert [(e["id"], e["source"], e["reference"], e["references"]) for e in entries] == [
        ("1", "Hello.", "Hola.", ["Hola.", "¡Hola!"]), ("2", "Thank you.", "Gracias.", ["Gracias.", "Muchas gracias."])]


def test_a_reference_of_another_length_is_one_line_naming_both_files(tmp_path):
    write_lines(tmp_path / "source.txt", ["a", "b", "c"])
    write_lines(tmp_path / "reference.txt", ["x", "y"])
    with pytest.raises(InputError) as err:
        load_dataset_entries(tmp_path)
    assert str(err.value) == f"{tmp_path}/reference.txt: has 2 lines but {tmp_path}/source.txt has 3"


def test_an_empty_source_line_names_file_line_and_field(tmp_path):
    write_lines(tmp_path / "source.txt", ["a", "", "c"])
    write_lines(tmp_path / "reference.txt", ["x", "y", "z"])
    with pytest.raises(InputError) as err:
        load_dataset_entries(tmp_path)
    assert str(err.value).startswith(f"{tmp_path}/source.txt:2: field 'source':")


def test_systems_and_human_scores_join_the_settings(tmp_path):
    folder = tmp_path / "wmt"
    for name in ("sysA.txt", "sysB.jsonl", "notes.md"):
        write_lines(folder / "systems" / name, ["x"])
    write_lines(folder / "human_scores.csv", ["method,id,human"])
    config = {"datasets": {"wmt": {"path": str(folder)}, "listed": {"path": str(folder), "methods": ["copy"]}},
              "methods": {"copy": {"kind": "copy_source"}}}
    expand_dataset_folders(config)
    assert config["methods"]["sysA"] == {"kind": "precomputed", "paths": {"wmt": f"{folder}/systems/sysA.txt",
                                                                          "listed": f"{folder}/systems/sysA.txt"}}
    assert config["methods"]["sysB"]["paths"]["wmt"] == f"{folder}/systems/sysB.jsonl"
    assert "notes" not in config["methods"]
    assert config["datasets"]["wmt"]["human_scores"] == f"{folder}/human_scores.csv"
    assert config["datasets"]["listed"]["methods"] == ["copy", "sysA", "sysB"]  # a list names the others


def test_a_folders_systems_are_offered_to_its_own_datasets_only(tmp_path):
    """A dataset without a `methods` list is offered the params.yaml methods and its own folder's systems; another
    folder's systems are neither run nor listed as skipped there (they were made for another corpus), while a
    precomputed method the user configured for one corpus is still reported as skipped on the others."""
    for dataset, system in (("ted", "nemo"), ("news", "online_b")):
        write_lines(tmp_path / dataset / "systems" / f"{system}.txt", ["x"])
    mine = tmp_path / "mine.txt"
    write_lines(mine, ["x"])
    config = {"datasets": {name: {"path": str(tmp_path / name)} for name in ("ted", "news")},
              "methods": {"copy": {"kind": "copy_source"},
                          "mine": {"kind": "precomputed", "paths": {"ted": str(mine)}}}}
    assert expand_dataset_folders(config) == {"nemo", "online_b"}
    news = select_methods(config["methods"], "news", {}, "eng-deu", folder_systems=frozenset({"nemo", "online_b"}))
    assert news.methods == ["copy", "online_b"]
    assert news.skipped == {"mine": "no file for this dataset in methods.mine.paths (files were given for: ted)"}
    ted = select_methods(config["methods"], "ted", {}, "eng-deu", folder_systems=frozenset({"nemo", "online_b"}))
    assert (ted.methods, ted.skipped) == (["copy", "mine", "nemo"], {})
    with pytest.raises(InputError) as listed:  # named in another dataset's list: where its file would go
        select_methods(config["methods"], "news", {"path": "data/corpora/news", "methods": ["nemo"]}, "eng-deu",
                       folder_systems=frozenset({"nemo", "online_b"}))
    assert listed.value.field == "datasets.news.methods"
    assert str(listed.value).endswith(
        f"method 'nemo' is a system of another dataset's folder: ted ({tmp_path / 'ted/systems/nemo.txt'}); a "
        "folder's systems run on their own dataset only (give this dataset's outputs as "
        "data/corpora/news/systems/nemo.txt)")


def test_a_system_named_like_a_configured_method_is_an_error(tmp_path):
    write_lines(tmp_path / "systems/copy.txt", ["x"])
    config = {"datasets": {"d": {"path": str(tmp_path)}}, "methods": {"copy": {"kind": "copy_source"}}}
    with pytest.raises(InputError, match=r"params.yaml: field 'methods.copy': .*systems/copy.txt is a system"):
        expand_dataset_folders(config)
    write_lines(tmp_path / "systems/copy.jsonl", ["x"])
    with pytest.raises(InputError, match="a second output file for system 'copy'"):
        discovered_systems(tmp_path)


def test_the_shipped_ted_dataset_needs_no_method_entries():
    params = read_params(ROOT)
    assert not any(name.startswith("wmt21_") for name in params["methods"])
    expand_dataset_folders(params)
    assert sorted(m for m in params["datasets"]["mqm_ted_ende"]["methods"]) == sorted(
        p.stem for p in (ROOT / "data/corpora/mqm_ted_ende/systems").glob("*.jsonl"))
    assert len(params["datasets"]["mqm_ted_ende"]["methods"]) == 13


def plain_project(work, metrics=("chrf_plus_plus", "bleu")):
    """A project whose one dataset is WMT-style files: the reference as a system, a copy of the source, and the
    references shuffled (40 one-line demo entries); returns the project and {system: its lines, "reference": …}."""
    work = make_project(work, metrics=list(metrics), methods={})
    entries = [e for e in DEMO if "\n" not in e["source"] + e["reference"]][:40]  # one line each
    sources, references = [e["source"] for e in entries], [e["reference"] for e in entries]
    folder = work / "data/corpora/plain"
    write_lines(folder / "source.txt", sources)
    write_lines(folder / "reference.txt", references)
    outputs = {"human": references, "copy": sources, "shuffled": references[1:] + references[:1]}
    for name, lines in outputs.items():
        write_lines(folder / f"systems/{name}.txt", lines)
    (folder / "dataset.yaml").write_text("id: plain\nname: plain files\nlanguage_pair: eng-spa\nlicence: CC0-1.0\n"
                                         "citation: the demo corpus\n", encoding="utf-8")
    params = read_params(work)
    params["datasets"] = {"plain": {"path": "data/corpora/plain"}}
    write_params(work, params)
    return work, {**outputs, "reference": references}


@pytest.mark.slow
def test_a_plain_text_dataset_with_three_systems_runs_with_no_entry_per_system(tmp_path):
    work, outputs = plain_project(tmp_path / "p")
    references = outputs.pop("reference")
    sh(work, "snakemake", "--cores", "2", *(f"results/runs/plain/{m}.json" for m in outputs), timeout=900)
    for name, lines in outputs.items():
        card = json.loads((work / f"results/runs/plain/{name}.json").read_text())
        expected = sacrebleu.corpus_chrf(lines, [references], word_order=2).score
        assert card["scores"]["chrf_plus_plus"] == pytest.approx(expected, abs=1e-6), name
        assert card["scores"]["bleu"] == pytest.approx(sacrebleu.corpus_bleu(lines, [references]).score, abs=1e-6)


@pytest.mark.slow
def test_editing_a_profile_the_dataset_does_not_use_reruns_none_of_its_jobs(tmp_path):
    """The jobs that weigh a dataset's metrics (its run cards, significance, evidence) take the one weight profile
    its cards use: the other profile's weights are not their input, and the cards' fingerprints hash what they take."""
    work, _ = plain_project(tmp_path / "p", metrics=("chrf_plus_plus", "bleu", "exact_match_rate"))
    rated = {"human": 0, "shuffled": -20, "copy": -25}
    write_lines(work / "data/corpora/plain/human_scores.csv", ["method,id,human"] + [
        f"{system},{i},{score - i % 3}" for system, score in rated.items() for i in range(1, 41)])
    targets = ["evidence_all", "results/significance/plain.json", *(f"results/runs/plain/{m}.json" for m in rated)]
    sh(work, "snakemake", "--cores", "2", *targets, timeout=900)
    fingerprint = json.loads((work / "results/runs/plain/human.json").read_text())["fingerprint"]
    used = select_profile(card_for("spa", work / "data/languages"), read_params(work)["composite"])
    other = {"A": "B", "B": "A"}[used]

    def edit(profile):
        params = read_params(work)
        params["composite"]["profiles"][profile]["chrf_plus_plus"] *= 3
        write_params(work, params)
        return sh(work, "snakemake", "-n", "--cores", "2", *targets).stdout

    assert "Nothing to be done" in edit(other)
    params = read_params(work)
    params["composite"]["profile"] = used  # naming the profile "auto" picked changes nothing either
    write_params(work, params)
    assert "Nothing to be done" in sh(work, "snakemake", "-n", "--cores", "2", *targets).stdout
    sh(work, "snakemake", "--cores", "2", "--forcerun", "aggregate", "--", "results/runs/plain/human.json")
    assert json.loads((work / "results/runs/plain/human.json").read_text())["fingerprint"] == fingerprint
    plan = edit(used)
    assert "validate_dataset" in plan and "aggregate" in plan and "significance" in plan


def wmt_testset(root):
    """A three-segment test set in mt-metrics-eval's layout: two references (refA also listed among the systems,
    as mt-metrics-eval does), two systems, MQM scores with one unrated segment."""
    write_lines(root / "sources/en-de.txt", ["Hello.", "Thank you.", "Good night."])
    write_lines(root / "references/en-de.refA.txt", ["Hallo.", "Danke.", "Gute Nacht."])
    write_lines(root / "references/en-de.refB.txt", ["Guten Tag.", "Vielen Dank.", "Schlaf gut."])
    write_lines(root / "system-outputs/en-de/refA.txt", ["Hallo.", "Danke.", "Gute Nacht."])
    write_lines(root / "system-outputs/en-de/sysX.txt", ["Hallo!", "Danke.", "Gute Nacht!"])
    write_lines(root / "system-outputs/en-de/sysY.txt", ["Hello.", "Thank you.", "Good night."])
    write_lines(root / "human-scores/en-de.mqm.seg.score",
                ["refA\t0", "refA\t0", "refA\t0", "sysX\t-1", "sysX\t0", "sysX\tNone", "sysY\t-25", "sysY\t-25",
                 "sysY\t-25"])
    return root


def test_import_wmt_writes_a_folder_the_pipeline_discovers(tmp_path, capsys):
    from lyss.cli import main

    testset, out = wmt_testset(tmp_path / "wmt22"), tmp_path / "corpora/wmt22_ende"
    assert main(["dataset", "import-wmt", str(testset), "--lp", "en-de", "--out", str(out), "--human", "mqm",
                 "--licence", "CC-BY-SA-4.0"]) == 0
    assert "3 segments, 2 systems, 2 reference(s) (scored against refA), 5 rated outputs, eng-deu" in (
        capsys.readouterr().out)
    card = (out / "dataset.yaml").read_text()
    assert "language_pair: eng-deu" in card and "licence: CC-BY-SA-4.0" in card
    entries = load_dataset_entries(out)
    assert entries[1] == {**entries[1], "id": "2", "source": "Thank you.", "reference": "Danke.",
                          "references": ["Danke.", "Vielen Dank."]}
    config = {"datasets": {"wmt22_ende": {"path": str(out)}}, "methods": {}}
    expand_dataset_folders(config)
    assert sorted(config["methods"]) == ["sysX", "sysY"]  # refA is the reference, not a system
    assert (out / "human_scores.csv").read_text().splitlines() == [
        "method,id,human", "sysX,1,-1.0", "sysX,2,0.0", "sysY,1,-25.0", "sysY,2,-25.0", "sysY,3,-25.0"]


def test_import_wmt_refuses_a_short_system_file_and_an_unknown_reference(tmp_path, capsys):
    from lyss.cli import main

    testset = wmt_testset(tmp_path / "wmt22")
    write_lines(testset / "system-outputs/en-de/sysZ.txt", ["only one line"])
    assert main(["dataset", "import-wmt", str(testset), "--lp", "en-de", "--out", str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"lyss: error: {testset}/system-outputs/en-de/sysZ.txt: has 1 lines but the sources have 3")
    assert not (tmp_path / "a").exists()  # checked before anything is written
    assert main(["dataset", "import-wmt", str(testset), "--lp", "en-de", "--out", str(tmp_path / "b"),
                 "--reference", "refC"]) == 2
    assert "no reference 'refC' (found: refA, refB)" in capsys.readouterr().err


def test_the_community_review_is_the_human_scores_of_a_folder_without_its_own(tmp_path):
    write_lines(tmp_path / "reviews/human_scores.csv", ["method,id,human"])
    config = {"datasets": {"d": {"path": str(tmp_path)}}, "methods": {}}
    expand_dataset_folders(config)
    assert config["datasets"]["d"]["human_scores"] == f"{tmp_path}/reviews/human_scores.csv"
    write_lines(tmp_path / "human_scores.csv", ["method,id,human"])  # scores that came with the data win
    config = {"datasets": {"d": {"path": str(tmp_path)}}, "methods": {}}
    expand_dataset_folders(config)
    assert config["datasets"]["d"]["human_scores"] == f"{tmp_path}/human_scores.csv"


def test_a_dataset_folder_that_does_not_exist_names_the_closest_beside_it(tmp_path):
    from lyss.config import missing_folder

    (tmp_path / "wmt_small").mkdir()
    (tmp_path / "notes.txt").write_text("not a folder")
    assert missing_folder(tmp_path / "wmt_smal") == f"{tmp_path}/wmt_smal does not exist (did you mean 'wmt_small'?)"
    assert missing_folder(tmp_path / "notes.tx") == f"{tmp_path}/notes.tx does not exist"  # files are no datasets
    assert missing_folder(tmp_path / "gone" / "x") == f"{tmp_path}/gone/x does not exist"
