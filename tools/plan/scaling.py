"""TTGIR modules that grow with n, for measuring how plan time scales.

``scaling_allocs(n)``: one kernel of n + 1 blocks holding n ``ttg.local_alloc`` ops, one per
block, each read in its own block only, and one buffer live over the whole kernel. The
allocator places the n short-lived buffers on the same bytes (their live ranges are
disjoint): a proof that tests every pair of buffers does n * n / 2 tests here, a sweep about
n. With ``planned`` (the default) the module carries the plan itself (``allocation.offset``
and ``ttg.shared`` as Triton 3.6 places them), so no Triton is needed to judge it; without,
Triton's allocator places it. Either way the expected verdict is clean.

    python -m tools.plan.scaling 1000 2000 4000 8000

times check_plan on each size (the plan from the module's attributes).
"""

from __future__ import annotations

import sys
import time

ELEMS = 64  # f32 elements per buffer: 256 bytes
BYTES = ELEMS * 4
MEMDESC = f"!ttg.memdesc<{ELEMS}xf32, #shared, #smem, mutable>"
TENSOR = f"tensor<{ELEMS}xf32, #blocked>"


def _alloc(name: str, offset: int | None) -> str:
    attrs = "" if offset is None else f" {{allocation.offset = {offset} : i32}}"
    return f"    {name} = ttg.local_alloc{attrs} : () -> {MEMDESC}\n"


def _load(value: str, name: str) -> str:
    return f"    {value} = ttg.local_load {name} : {MEMDESC} -> {TENSOR}\n"


def scaling_allocs(n: int, planned: bool = True) -> str:
    """A module with n allocations in n blocks (see the module docstring)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    shared = f", ttg.shared = {2 * BYTES} : i32" if planned else ""
    out = [
        "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
        "warpsPerCTA = [4], order = [0]}>\n",
        "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n",
        "#smem = #ttg.shared_memory\n",
        'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, '
        f'"ttg.threads-per-warp" = 32 : i32{shared}}} {{\n',
        "  tt.func public @scaling() {\n",
        _alloc("%keep", 0 if planned else None),
        "    cf.br ^bb1\n",
    ]
    for i in range(1, n + 1):
        out.append(f"  ^bb{i}:\n")
        out.append(_alloc(f"%a{i}", BYTES if planned else None))
        out.append(_load(f"%v{i}", f"%a{i}"))
        out.append(f"    cf.br ^bb{i + 1}\n")
    out.append(f"  ^bb{n + 1}:\n")
    out.append(_load("%vkeep", "%keep"))
    out.append("    tt.return\n  }\n}\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    from alias_spec.plan.plan import check_plan

    for arg in argv or ["1000", "2000", "4000", "8000"]:
        n = int(arg)
        text = scaling_allocs(n)
        start = time.perf_counter()
        report, _, buffers = check_plan(text, f"scaling_{n}.ttgir")
        took = time.perf_counter() - start
        print(f"n={n}: {took:.2f} s, {len(buffers)} buffers, {report.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
