"""The full tier's shards of a kernel corpus: each group's kernels, in the order given, cut into
runs of about ``size``; each run is judged in one batch on the pytest-xdist worker of its group
(``xdist_group``), and each kernel is still a test of its own."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def shards(groups: Mapping[str, list[K]], size: int, prefix: str) -> dict[str, list[K]]:
    """``{PREFIX-GROUP-I: kernels}``: each group cut into ceil(n / size) runs of near-equal
    length."""
    out: dict[str, list[K]] = {}
    for group, mine in groups.items():
        n = -(-len(mine) // size)
        for i in range(n):
            out[f"{prefix}-{group}-{i}"] = mine[i * len(mine) // n : (i + 1) * len(mine) // n]
    return out


def shard_of(all_shards: Mapping[str, Iterable[K]]) -> dict[K, str]:
    """Each kernel's shard name."""
    return {k: name for name, ks in all_shards.items() for k in ks}
