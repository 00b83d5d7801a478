from lyss.store import configured_url, mask_url


rule plots:
    """Plot data for `dvc plots show` and PNG figures, from the run cards alone: in a worker process
    (lyss.script_workers), so the figures are drawn while the significance tests run (docs/performance.md).
    """
    input:
        on_threads,
        cards=run_cards(),
    output:
        composite=expand("results/plots/composite/{dataset}.csv", dataset=DATASETS),
        tier_chrf=expand("results/plots/tier_chrf/{dataset}.csv", dataset=DATASETS),
        figures=report(
            directory("results/plots/figures"),
            patterns=["{name}.png"],
            caption="../docs/report/figures.rst",
            category="Plots",
        ),
    log:
        "results/logs/plots.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        tiers=config["tiers"],
        code=code("plots.py", "all"),
    run:
        run_job("plots.py", locals(), in_worker=True)


rule report:
    """Metrics file, leaderboards (Markdown, HTML, linking rule plots' figures), run-card database(s).

    Needs the run cards only: the leaderboard never waits for the human-judgment study.
    """
    input:
        on_threads,
        cards=run_cards(),
        significance=significance_files(),
        skipped=skipped_files(),
        figures=rules.plots.output.figures,
    output:
        metrics="results/metrics.json",
        # Wall-clock numbers, kept out of the committed metrics.json (they differ on every run).
        timings="results/timings.json",
        leaderboard="results/leaderboard.md",
        html=report(
            "results/leaderboard.html",
            caption="../docs/report/leaderboard.rst",
            category="Leaderboard",
        ),
        # Updated in place, not replaced: the database keeps every version of every run.
        database=update("results/lyss.sqlite"),
    log:
        "results/logs/report.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        # Masked: Snakemake stores params in .snakemake/; the script reads the DSN itself.
        database=mask_url(configured_url(config["database"])),
        code=code("report.py", "all"),
    run:
        run_job("report.py", locals())


rule validation_plots:
    """The human-judgment plots: metric–human correlations with CIs and the jury figures."""
    input:
        on_threads,
        validation_outputs(),
    output:
        correlations="results/validation/plots/correlations.csv",
        figures=report(
            directory("results/validation/plots/figures"),
            patterns=["{name}.png"],
            caption="../docs/report/figures.rst",
            category="Human judgments",
        ),
    log:
        "results/logs/validation_plots.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    params:
        code=code("validation_plots.py"),
    run:
        run_job("validation_plots.py", locals())
