"""Facts about the GPU targets a kernel is compiled for."""

from __future__ import annotations

import re

# The most shared memory one block may use (the opt-in maximum), by compute capability: the
# CUDA programming guide's per-architecture table. A plan larger than this cannot launch.
SHARED_PER_BLOCK = {
    80: 163 * 1024,  # A100
    86: 99 * 1024,
    87: 163 * 1024,
    89: 99 * 1024,
    90: 227 * 1024,  # H100, H200
    100: 227 * 1024,
    103: 227 * 1024,
    120: 99 * 1024,
}

_CUDA_TARGET = re.compile(r"^cuda:(\d+)a?$")


def capability(target: str | None) -> int | None:
    """``"cuda:90"`` (a module's ``ttg.target``) -> 90; None for anything else."""
    m = _CUDA_TARGET.match(target or "")
    return int(m.group(1)) if m else None


def shared_per_block(target: str | None) -> int | None:
    """The target's shared-memory limit per block, where it is known."""
    cap = capability(target)
    return SHARED_PER_BLOCK.get(cap) if cap is not None else None
