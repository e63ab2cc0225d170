"""A kernel whose race the GPU shows, for ``alias-spec plan --races``.

``relayout`` writes x through a shared buffer in one layout (thread t, element t + 128k) and
reads it back in another (thread t, elements 8t to 8t + 7: other threads' elements). Triton's
barrier pass puts a CTA barrier between the two; ``without_barrier`` deletes it from the LLVM IR
(the mutation a race check must catch), and Triton builds the kernel from that IR
(``ir_override``). Before its store each warp sleeps longer the lower its id, so that without the
barrier a warp reads elements other warps have not yet written.

    python -m tests.plan.cases.race_truth --out FILE.json   # on a CUDA GPU

prints and writes, for the kernel as Triton built it and for the mutant, the values compared
with x and those wrong (exit 77 without a GPU). ``tests/plan/test_plan_races.py`` compiles both on
the CPU and checks the verdicts; ``race_truth_h200.json`` is what an H200 showed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from tools.plan.gpu_truth import NO_GPU, cuda_torch, record, tally

ELEMS = 1024
N: gl.constexpr = gl.constexpr(ELEMS)
PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32"}
# A CTA barrier call as Triton 3.6-3.9 print it in LLVM IR.
_BARRIER = re.compile(r"^\s*(?:tail )?call void @llvm\.nvvm\.barrier(?:0|\.cta\.sync\.aligned\.all)"
                      r"\(.*\n", re.M)  # fmt: skip


@gluon.jit
def relayout(x_ptr, out_ptr):
    a: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    b: gl.constexpr = gl.BlockedLayout([8], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=a)
    # Warp w sleeps (3 - w) * 4 us before its store (nanosleep's result is its operand).
    wait = (3 - (offs % 128) // 32) * 4000
    slept = gl.inline_asm_elementwise("nanosleep.u32 $1;\n\tmov.u32 $0, $1;", "=r,r", [wait],
                                      dtype=gl.int32, is_pure=False, pack=1)  # fmt: skip
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.where(slept >= 0, gl.load(x_ptr + offs), 0.0))
    gl.store(out_ptr + gl.arange(0, N, layout=b), buf.load(b))


def without_barrier(llir: str) -> str:
    """The LLVM IR with its CTA barriers deleted (the kernel has one: between the store and
    the load). ValueError when it has none."""
    out, n = _BARRIER.subn("", llir)
    if n == 0:
        raise ValueError("no CTA barrier in the LLVM IR")
    return out


def compile_cpu() -> Any:
    """The kernel compiled for sm_90 by the installed Triton (no GPU needed)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    src = GluonASTSource(relayout, signature=SIGNATURE, constexprs={})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def _launch(torch: Any, override: str | None, repeat: int) -> dict[str, Any]:
    x = torch.arange(ELEMS, dtype=torch.float32, device="cuda") * 0.5 + 1.0
    extra = {"ir_override": override} if override else {}

    def once() -> int:
        out = torch.full_like(x, float("nan"))
        relayout[(1,)](x, out, num_warps=4, **extra)
        torch.cuda.synchronize()
        return int((out.view(torch.int32) != x.view(torch.int32)).sum().item())

    return tally(once, ELEMS, repeat)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run the race ground truth on a CUDA GPU.")
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--repeat", type=int, default=20, help="launches of each kernel")
    args = p.parse_args(argv)
    torch = cuda_torch("race_truth")
    if torch is None:
        return NO_GPU

    mutant = Path(tempfile.mkdtemp(prefix="race-truth-")) / "relayout.llir"
    mutant.write_text(without_barrier(compile_cpu().asm["llir"]))
    results = {
        "with_barrier": _launch(torch, None, args.repeat),
        "barrier_deleted": _launch(torch, str(mutant), args.repeat),
    }
    record(torch, results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
