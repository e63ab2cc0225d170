"""Compile the corpus's warp-specialized persistent matmul on 4 warps for sm_90 and write it as
a text case of the plan, ``tests/plan/cases/text/warp_specialize/`` (issue 40).

    python -m tools.plan.make_ws_case      # Triton 3.6; no GPU needed

On 4 warps Triton writes the partitions' dispatch and the ring's mbarrier set-up itself, under
the kernel's own location: a line with no column, which LLVM prints without ``column:``. Read
as no location at all, those accesses were taken for the warp-specialize state's alone, and
the barrier inits beside it seemed to run outside it (a false ``lowering.outside``).

Written: ``persistent_matmul_ws_w4.ttgir`` (what it shows, where from, its EXPECT line, the
TTGIR), the ``.llir`` beside it and the ``.alloc.ttgir`` (the module after the release's own
allocation, ``expect.allocated_text``), so that the case is judged without Triton.
"""

from __future__ import annotations

import os
import sys
import tempfile

from tests.paths import PLAN_CASES

HERE = PLAN_CASES / "text" / "warp_specialize"  # where the case is written
NAME = "persistent_matmul_ws_w4"
KERNEL, WARPS = "persistent_matmul_ws", 4
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-ws-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from tests.plan.cases import corpus  # noqa: E402
from tools.plan import text_case  # noqa: E402
from tools.plan.make_dumps import relative_paths  # noqa: E402


def case_text(ttgir: str, version: str) -> str:
    """The case file: what it shows, where it comes from, its EXPECT line, the TTGIR."""
    head = [
        "// A warp-specialized persistent TMA matmul on 4 warps: the code Triton writes under "
        "the kernel's own location (no column) may touch the warp-specialize state and the "
        "ring's mbarriers both.",
        f"// Written by tools/plan/make_ws_case.py: {KERNEL} of tests/plan/cases/corpus.py "
        f"({WARPS} warps) compiled by Triton {version} for sm_90 on the CPU (not run on a GPU).",
        "// EXPECT: no-false-alarm",
        "// RUN-OPTIONS: tier=full",  # seconds to judge
    ]
    return "\n".join(head) + "\n" + ttgir


def main() -> int:
    k = next(k for k in corpus.kernels() if k.name == KERNEL)
    src = ASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs),
                    attrs=k.attrs())  # fmt: skip
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                              options=dict(k.options, num_warps=WARPS))  # fmt: skip
    ttgir, llir = relative_paths(compiled.asm["ttgir"]), relative_paths(compiled.asm["llir"])
    text_case.write(HERE, NAME, case_text(ttgir, triton.__version__), ttgir, llir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
