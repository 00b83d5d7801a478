rule report:
    """The flat metrics file for `dvc metrics diff` and the Markdown leaderboard."""
    input:
        cards=run_cards(),
        significance=significance_files(),
    output:
        metrics="results/metrics.json",
        leaderboard="results/leaderboard.md",
    log:
        "results/logs/report.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../scripts/report.py"
