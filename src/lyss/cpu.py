"""The cores this process may use: what the embedder sizes its side-by-side batches by and what `lyss score`
checks before it runs work beside the embedding."""

import os


def cores() -> int:
    """The cores this process may run on (a SLURM job's allocation, a container's quota by affinity), which
    onnxruntime's own default (the machine's physical cores) does not see."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
