"""`lyss cluster check` against stand-ins for `sinfo`, `sacctmgr` and `sbatch` on PATH (the real cluster
case is tests/cluster/test_slurm_profile_check.py): every way a profile can be refused is one line naming the
profile key, with sbatch's own message where sbatch would refuse the job; a SLURM command that never
answers is reported, not waited for."""

import re
import stat
from pathlib import Path

import pytest
import yaml

from lyss.cli import main
from lyss.commands import cluster, cluster_groups

ROOT = Path(__file__).resolve().parents[1]
# Two partitions: `gpu` (2 days, 64 GB nodes with 4 GPUs) and the default `cpu` (1 hour, 16 GB, no GPU).
SINFO = "gpu|2-00:00:00|64000|gpu:a100:4\ncpu*|1:00:00|16000|(null)\n"
SBATCH = """#!/bin/sh
# sbatch --test-only: refuses unknown partitions and accounts the way SLURM words it
part=cpu; acct=proj_a
while [ $# -gt 0 ]; do
  case "$1" in -p) part=$2; shift;; -A) acct=$2; shift;; esac; shift
done
case "$part" in gpu|cpu) ;; *) echo "sbatch: error: invalid partition specified: $part" >&2
  echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2; exit 1;; esac
case "$acct" in proj_a|proj_b) ;; *)
  echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >&2
  exit 1;; esac
echo "sbatch: Job 99 to start at 2026-01-01T00:00:00 using 1 processors on nodes n1 in partition $part" >&2
"""


def executable(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(bin_dir, "sinfo", f"#!/bin/sh\nprintf '{SINFO}'\n")
    executable(bin_dir, "sacctmgr", "#!/bin/sh\nprintf 'proj_a\\nproj_b\\n'\n")
    executable(bin_dir, "sbatch", SBATCH)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return bin_dir


def profile(tmp_path, **settings) -> Path:
    folder = tmp_path / "profile"
    folder.mkdir(exist_ok=True)
    config = {"executor": "slurm", "jobs": 10, **settings}
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    return folder


def check(folder):
    return cluster.check_profile(folder, project=ROOT)


def test_the_shipped_placeholders_are_named_with_sbatchs_message(tmp_path, fake_slurm):
    shipped = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
    folder = profile(tmp_path, **{k: v for k, v in shipped.items() if k != "executor"})
    problems, _ = check(folder)
    where = folder / "config.yaml"
    assert problems == [
        f"{where}: field 'default-resources.slurm_account': account 'my_account' is not yours; sacctmgr lists: "
        "proj_a, proj_b",
        f"{where}: field 'default-resources.slurm_partition': partition 'main' does not exist on this cluster; "
        "sinfo lists: cpu, gpu; sbatch --test-only says: sbatch: error: invalid partition specified: main / "
        "sbatch: error: Batch job submission failed: Invalid partition name specified",
    ]


def test_a_misspelled_partition_gets_a_suggestion(tmp_path, fake_slurm):
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "gpus", "slurm_account": "proj_a"}})
    [problem], _ = check(folder)
    assert "partition 'gpus' does not exist on this cluster (did you mean 'gpu'?); sinfo lists: cpu, gpu" in problem


def project_with_comet_model(tmp_path) -> Path:
    """The project with COMET's model on disk (an empty checkpoint file: the check, like the workflow, reads
    files only), so that its score jobs reserve a GPU (lyss.gpu_jobs)."""
    checkpoint = tmp_path / "comet" / "checkpoints" / "model.ckpt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.touch()
    work = tmp_path / "project"
    work.mkdir()
    for name in ("rules", "data"):
        (work / name).symlink_to(ROOT / name)
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["metric_options"] = {"comet_score": {"model": str(checkpoint)}}
    (work / "params.yaml").write_text(yaml.safe_dump(params))
    return work


def test_comet_on_a_partition_without_gpu(tmp_path, fake_slurm):
    """params.yaml scores comet_score with a model on disk, so its jobs ask for one GPU (rules/score.smk)."""
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "cpu", "slurm_account": "proj_a"}})
    [problem], _ = cluster.check_profile(folder, project=project_with_comet_model(tmp_path))
    assert problem.endswith("field 'default-resources.slurm_partition': partition 'cpu' has no GPU, but COMET "
                            "scoring asks for one; add `set-resources: [score:gpu=0]` or a GPU partition for rule "
                            "score")


def test_run_time_beyond_the_partition_limit(tmp_path, fake_slurm):
    """rules/translate.smk declares runtime=120 (minutes); the cpu partition allows 60."""
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "cpu", "slurm_account": "proj_a"},
                                  "set-resources": ["score:gpu=0"]})
    [problem], _ = cluster.check_profile(folder, project=project_with_comet_model(tmp_path))
    assert problem.endswith("partition 'cpu' allows 60 minutes, a rule asks for runtime=120")


def test_without_a_comet_model_no_job_asks_for_a_gpu(tmp_path, fake_slurm, monkeypatch):
    """The shipped params.yaml scores comet_score, but its model is on no disk (an empty Hugging Face cache):
    COMET's files come from the CPU jobs and nothing reserves a GPU, so the GPU-less partition's one problem is
    its time limit."""
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_cache"))
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "cpu", "slurm_account": "proj_a"}})
    assert cluster.declared_resources(ROOT)["gpu"] == 0
    [problem], _ = check(folder)
    assert problem.endswith("partition 'cpu' allows 60 minutes, a rule asks for runtime=120")


def test_a_fitting_profile_passes(tmp_path, fake_slurm, capsys):
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "gpu", "slurm_account": "proj_b"}})
    assert check(folder) == ([], [])
    assert main(["cluster", "check", str(folder)]) == 0
    assert capsys.readouterr().out == f"{folder}: partitions, account and resources fit this cluster\n"


def test_an_account_sbatch_refuses(tmp_path, fake_slurm):
    """sacctmgr may list an account that the partition does not accept: sbatch has the last word."""
    executable(fake_slurm, "sacctmgr", "#!/bin/sh\nprintf 'proj_c\\n'\n")
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "gpu", "slurm_account": "proj_c"}})
    [problem], _ = check(folder)
    assert problem.endswith("sbatch --test-only refuses a job with partition gpu, account proj_c: sbatch: error: "
                            "Batch job submission failed: Invalid account or account/partition combination specified")


def test_a_sacctmgr_that_never_answers_is_reported_not_awaited(tmp_path, fake_slurm, monkeypatch, capsys):
    executable(fake_slurm, "sacctmgr", "#!/bin/sh\nexec sleep 3600\n")
    monkeypatch.setattr(cluster, "COMMAND_TIMEOUT_S", 0.5)
    folder = profile(tmp_path, **{"default-resources": {"slurm_partition": "gpu", "slurm_account": "proj_a"}})
    problems, [note] = check(folder)
    assert problems == []
    assert note == (f"{folder / 'config.yaml'}: account 'proj_a' not checked: sacctmgr: did not answer within 0.5 s; "
                    "the SLURM plugin runs sacctmgr before every submission and would wait the same way: set "
                    "slurm-no-account: true and export SBATCH_ACCOUNT instead")


@pytest.mark.parametrize("executor", ["slurm", "lyss-slurm"])
def test_each_slurm_executor_reads_its_own_no_account_key(tmp_path, fake_slurm, executor):
    """Snakemake spells an executor's options with its name: `lyss-slurm-no-account` for the project's executor
    (profiles/slurm), `slurm-no-account` for the SLURM plugin's; the other one's key is not its setting."""
    other = "slurm" if executor == "lyss-slurm" else "lyss-slurm"
    resources = {"default-resources": {"slurm_partition": "gpu", "slurm_account": "my_account"}}
    folder = profile(tmp_path, executor=executor, **{f"{executor}-no-account": True}, **resources)
    assert check(folder) == ([], [f"{folder / 'config.yaml'}: {executor}-no-account is set, so slurm_account "
                                  "'my_account' is not used"])
    folder = profile(tmp_path, executor=executor, **{f"{other}-no-account": True}, **resources)
    problems, _ = check(folder)
    assert any("field 'default-resources.slurm_account': account 'my_account' is not yours" in p for p in problems)


def test_without_slurm_on_path_the_check_says_where_to_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["cluster", "check", str(profile(tmp_path))]) == 2
    assert capsys.readouterr().err == ("lyss: error: sinfo: not found on PATH: run `lyss cluster check` on a SLURM "
                                       "login node\n")


def shipped_groups() -> dict:
    shipped = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
    return {key: shipped[key] for key in ("groups", "group-components", "cores")}


def test_a_group_that_passes_the_partition_limit_is_named_with_its_runtime(tmp_path, fake_slurm):
    """A job group asks SLURM for its jobs' summed run time, not any rule's. The shipped groups on the 60-minute
    cpu partition, from the runtimes the rules declare (minutes; `cores: 2`, so two 1-thread jobs of a level run
    side by side): corpus = prep 30, then the source and reference vectors 120 = 150; method (four chains, so
    each level in two layers of two) = 2 × (translate 120, postprocess 30, embed_method 120, score_cpu 120) = 780;
    cards = the pipeline's 17 aggregates, 9 layers × 30 = 270. Studies (4 validate jobs, 2 layers × 30 = 60),
    summary (significance 30, skipped 5, plots 10, report 10: at most 55) and the evidence (validate_dataset 30 +
    plots 15 + its index, which declares no runtime) fit the hour."""
    folder = profile(tmp_path, **shipped_groups(),
                     **{"default-resources": {"slurm_partition": "cpu", "slurm_account": "proj_a"}})
    problems, _ = check(folder)
    assert problems[0].endswith("partition 'cpu' allows 60 minutes, a rule asks for runtime=120")
    asked = {re.search(r"job group '(\w+)'", p).group(1): int(re.search(r"runtime=(\d+)", p).group(1))
             for p in problems[1:]}
    assert asked == {"corpus": 30 + 120, "method": 2 * (120 + 30 + 120 + 120), "cards": 9 * 30}
    assert all("field 'groups'" in p and "partition 'cpu' allows 60 minutes" in p for p in problems[1:])


def test_groups_that_fit_a_long_partition_pass(tmp_path, fake_slurm):
    folder = profile(tmp_path, **shipped_groups(),
                     **{"default-resources": {"slurm_partition": "gpu", "slurm_account": "proj_a"}})
    assert check(folder) == ([], [])


def test_snakemakes_group_estimate_by_hand():
    """Snakemake's rule (snakemake.resources.GroupResources): a dependency level's jobs side by side within the
    cores, each layer as long as its longest job, layers and levels summed."""
    def job(rule, threads, runtime, reads=(), writes=()):
        return cluster_groups.PlannedJob(rule, threads, runtime, 1000, set(reads), set(writes))

    five = [job("a", 1, 30, writes=[f"a{i}"]) for i in range(5)]
    assert cluster_groups.requested_runtime(five + [job("b", 1, 15, reads=["a0"])], cores=2) == 3 * 30 + 15
    assert cluster_groups.requested_runtime(five, cores=8) == 30
    wide = [job("w", 2, 120), job("n", 1, 30), job("n", 1, 30)]
    assert cluster_groups.requested_runtime(wide, cores=2) == 120 + 30
    assert [len(level) for level in cluster_groups.levels(five + [job("b", 1, 15, reads=["a0"])])] == [5, 1]


def test_the_dry_run_listing_is_read_job_by_job():
    listing = """[Thu Dec  3 15:50:03 2026] Group job corpus (jobs in lexicogr. order):

    [Thu Dec  3 15:50:03 2026]
    rule prep:
        input: data/a.jsonl
        output: results/a.jsonl, results/a.meta.json
        jobid: 3
        resources: tmpdir=/tmp, mem_mb=1000, mem=1 GB, runtime=30

    [Thu Dec  3 15:50:03 2026]
    rule embed_corpus:
        input: results/a.jsonl
        output: results/a.npy
        threads: 2
        resources: tmpdir=/tmp, mem_mb=2000, mem=2 GB, runtime=120
[Thu Dec  3 15:50:03 2026]
rule report:
    input: results/x
"""
    [(name, jobs)] = cluster_groups.parse_dry_run(listing)
    assert name == "corpus"
    assert [(j.rule, j.threads, j.runtime, j.mem_mb) for j in jobs] == [("prep", 1, 30, 1000),
                                                                         ("embed_corpus", 2, 120, 2000)]
    assert jobs[0].outputs == {"results/a.jsonl", "results/a.meta.json"} and jobs[1].inputs == {"results/a.jsonl"}


def scontrol(bin_dir, min_job_age):
    """`scontrol show config` as SLURM prints it, MinJobAge among its other lines."""
    executable(bin_dir, "scontrol", "#!/bin/sh\nprintf 'MaxJobCount             = 10000\\nMinJobAge               = "
                                    f"{min_job_age}\\nMpiDefault              = none\\n'\n")


def squeue_profile(tmp_path, executor="lyss-slurm", **settings):
    """A profile for a cluster without accounting: job states from squeue."""
    keys = {f"{executor}-status-command": "squeue", f"{executor}-no-account": True,
            "default-resources": {"slurm_partition": "gpu"}}
    return profile(tmp_path, executor=executor, **keys, **settings)


def test_squeue_states_with_a_minjobage_above_every_wait_pass(tmp_path, fake_slurm):
    scontrol(fake_slurm, "300 sec")  # SLURM's default
    folder = squeue_profile(tmp_path, **{"lyss-slurm-init-seconds-before-status-checks": 5,
                                         "lyss-slurm-max-seconds-between-status-checks": 10})
    assert check(folder)[0] == []
    # the plugin alone: polls up to 180 s apart, still below 300
    assert check(squeue_profile(tmp_path, executor="slurm"))[0] == []
    scontrol(fake_slurm, "1h")  # hours, as the SLURM plugin reads them
    assert check(squeue_profile(tmp_path, executor="slurm"))[0] == []


def test_a_minjobage_that_a_status_poll_can_miss(tmp_path, fake_slurm):
    """MinJobAge 120 s: the plugin's polls grow to 180 s apart, so a job can end and be forgotten between two."""
    scontrol(fake_slurm, "120 sec")
    where = tmp_path / "profile" / "config.yaml"
    assert check(squeue_profile(tmp_path, executor="slurm"))[0] == [
        f"{where}: field 'slurm-status-command': the cluster's MinJobAge is 120 s, and status polls can be 180 s "
        "apart: squeue may forget a finished job before a poll sees it, and the run would wait for it forever; use "
        "executor lyss-slurm with lyss-slurm-max-seconds-between-status-checks below 120, or raise MinJobAge in "
        "slurm.conf"]
    capped = {"lyss-slurm-init-seconds-before-status-checks": 10}
    assert check(squeue_profile(tmp_path, **capped, **{"lyss-slurm-max-seconds-between-status-checks": 120}))[0] == [
        f"{where}: field 'lyss-slurm-max-seconds-between-status-checks': the cluster's MinJobAge is 120 s, and "
        "status polls can be 120 s apart: squeue may forget a finished job before a poll sees it, and the run would "
        "wait for it forever; set lyss-slurm-max-seconds-between-status-checks below 120, or raise MinJobAge in "
        "slurm.conf"]
    assert check(squeue_profile(tmp_path, **capped, **{"lyss-slurm-max-seconds-between-status-checks": 60}))[0] == []


def test_a_minjobage_below_three_first_waits_makes_the_plugin_ask_sacct(tmp_path, fake_slurm):
    scontrol(fake_slurm, "100")  # no unit: seconds; the plugin's default first wait is 40 s: 100 < 3 × 40
    [problem], _ = check(squeue_profile(tmp_path, executor="slurm"))
    assert problem.endswith("field 'slurm-init-seconds-before-status-checks': the cluster's MinJobAge is 100 s, "
                            "below 3 × 40 s, so the SLURM plugin asks sacct instead of squeue; set "
                            "slurm-init-seconds-before-status-checks to at most 33")


def test_minjobage_is_asked_only_where_squeue_gives_the_states(tmp_path, fake_slurm):
    executable(fake_slurm, "scontrol", "#!/bin/sh\necho 'scontrol: error: slurm_load_ctl_conf error' >&2; exit 1\n")
    folder = profile(tmp_path, executor="lyss-slurm", **{"lyss-slurm-no-account": True,
                                                        "default-resources": {"slurm_partition": "gpu"}})
    assert check(folder) == ([], [])  # sacct (the plugin's default) keeps finished jobs: nothing to ask
    assert check(squeue_profile(tmp_path)) == ([], [f"{tmp_path / 'profile' / 'config.yaml'}: MinJobAge not checked: "
                                                     "scontrol: scontrol: error: slurm_load_ctl_conf error"])


def test_a_minjobage_of_zero_keeps_jobs_but_the_plugin_reads_it_as_short(tmp_path, fake_slurm):
    scontrol(fake_slurm, "0 sec")
    [problem], _ = check(squeue_profile(tmp_path))
    assert problem.endswith("field 'lyss-slurm-status-command': the cluster's MinJobAge is 0 (finished jobs stay in "
                            "squeue), which the SLURM plugin takes for shorter than its status waits and asks sacct "
                            "instead of squeue wherever sacct is installed")


def test_a_status_wait_that_is_no_number_names_its_key(tmp_path, fake_slurm):
    scontrol(fake_slurm, "300 sec")
    folder = squeue_profile(tmp_path, **{"lyss-slurm-max-seconds-between-status-checks": "ten"})
    with pytest.raises(ValueError) as raised:
        check(folder)
    assert str(raised.value) == (f"{folder / 'config.yaml'}: field 'lyss-slurm-max-seconds-between-status-checks': "
                                 "'ten' is not a whole number of seconds")


def test_the_status_wait_rules_mirror_the_installed_slurm_plugin():
    """The MinJobAge check repeats three numbers of the SLURM plugin's status polls (it exposes only the first as
    a setting): an upgrade that changes any of them fails here instead of leaving the check stale."""
    import dataclasses
    import inspect

    plugin = pytest.importorskip("snakemake_executor_plugin_slurm")  # the dev extra, as tests/test_slurm_executor.py
    defaults = {f.name: f.default for f in dataclasses.fields(plugin.ExecutorSettings)}
    assert defaults["init_seconds_before_status_checks"] == cluster.PLUGIN_FIRST_WAIT_S == 40
    source = inspect.getsource(plugin.Executor.check_active_jobs)
    assert f"max_sleep_time = {cluster.PLUGIN_LONGEST_WAIT_S}" in source
    assert f"dynamic_check_threshold = {cluster.PLUGIN_SQUEUE_FACTOR} * initial_interval" in source
    assert "min_job_age < dynamic_check_threshold" in source
