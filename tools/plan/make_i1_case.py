"""Compile a kernel that moves a boolean mask between layouts for sm_90 and write it as a text
case of the plan, ``tests/plan/cases/text/i1_vectors/`` (issue 40).

    python -m tools.plan.make_i1_case      # Triton 3.6; no GPU needed

Triton lowers the ``ttg.convert_layout`` of an ``i1`` tensor through shared memory one byte per
element and reads four of those bytes back at once as ``load <32 x i1>``: a vector of ``i1``
packs into ceil(N / 8) bytes, so that load touches 4 bytes, not 32. Sized 32 bytes, the last
thread's load seemed to run past the 4 KiB scratch (a false ``lowering.outside``).

Written: ``mask_transpose.ttgir`` (what it shows, where from, ``// EXPECT: clean``, the TTGIR),
``mask_transpose.llir`` beside it and ``mask_transpose.alloc.ttgir``, the module after the
release's own allocation (``expect.allocated_text``), so that the case is judged without Triton.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

from tests.paths import PLAN_CASES

HERE = PLAN_CASES / "text" / "i1_vectors"  # where the case is written
NAME = "mask_transpose"
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-i1-"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from tools.plan import text_case  # noqa: E402
from tools.plan.make_dumps import relative_paths  # noqa: E402

# The shape and warps whose lowering reads the mask back as <32 x i1> (64 x 64 on 2 warps
# gives <16 x i1>; 64 x 64 on 1 warp reads single bytes).
M, N, WARPS = 32, 128, 4

# A vector of i1 read or written in shared memory: what the case must contain to show anything.
I1_VECTOR = re.compile(r"\b(?:load|store) (<\d+ x i1>).*\bptr addrspace\(3\)")


@triton.jit
def mask_transpose(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):  # noqa: ANN001, ANN201
    """Write back the transpose of the mask ``x != 0`` as bytes: the transpose of an i1 tensor
    is a layout conversion through shared memory."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    mask = tl.load(x_ptr + rm[:, None] * N + rn[None, :]) != 0
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], tl.trans(mask).to(tl.int8))


def case_text(ttgir: str, llir: str, version: str) -> str:
    """The case file: what it shows, where it comes from, its EXPECT line, the TTGIR."""
    vectors = sorted({m.group(1) for m in I1_VECTOR.finditer(llir)})
    head = [
        f"// A boolean mask transposed (convert_layout of an i1 tensor) and read back from "
        f"shared memory as {', '.join(vectors)}: ceil(N / 8) bytes each, inside the scratch.",
        f"// Written by tools/plan/make_i1_case.py: @{NAME} ({M} x {N} int8, {WARPS} warps) "
        f"compiled by Triton {version} for sm_90 on the CPU (not run on a GPU).",
        "// EXPECT: clean",
    ]
    return "\n".join(head) + "\n" + ttgir


def main() -> int:
    src = ASTSource(mask_transpose, signature={"x_ptr": "*i8", "out_ptr": "*i8", "M": "constexpr",
                    "N": "constexpr"}, constexprs={"M": M, "N": N})  # fmt: skip
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": WARPS})  # fmt: skip
    ttgir, llir = relative_paths(compiled.asm["ttgir"]), relative_paths(compiled.asm["llir"])
    if not I1_VECTOR.search(llir):
        print(f"Triton {triton.__version__} reads no vector of i1 from shared memory here: "
              "the case would show nothing", file=sys.stderr)  # fmt: skip
        return 1
    text_case.write(HERE, NAME, case_text(ttgir, llir, triton.__version__), ttgir, llir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
