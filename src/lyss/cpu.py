"""What the CPU offers the embedder: the cores this process may use (what the embedder sizes its side-by-side
batches by and what `lyss score` checks before it runs work beside the embedding) and its instruction set (which
integer products are exact on it)."""

import functools
import os
from pathlib import Path

# Where unsigned × signed byte products add up in 32 bits (onnxruntime's u8×s8 kernels use them when present).
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})


def cores() -> int:
    """The cores this process may run on (a SLURM job's allocation, a container's quota by affinity), which
    onnxruntime's own default (the machine's physical cores) does not see."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@functools.cache
def instruction_flags() -> frozenset[str]:
    """The CPU's instruction-set flags (`flags` in /proc/cpuinfo, `Features` on ARM); empty where unreadable."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def exact_u8s8_products() -> bool:
    """Whether onnxruntime's unsigned × signed byte products are exact here. With VNNI they add up in 32 bits;
    without it (AVX2, e.g. AMD EPYC before Zen 4) the only such instruction, vpmaddubsw, adds two products in 16
    bits and saturates (2 × 255 × 127 > 32,767), which moved the embedder's vectors (lyss.embed.e5_onnx)."""
    return bool(VNNI_FLAGS & instruction_flags())
