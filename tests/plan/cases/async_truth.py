"""Two asynchronous-ordering bugs the GPU shows, for ``alias-spec plan --races`` (issue: races).

``roundtrip`` computes y = 2x + 1 tile by tile: each tile comes in by a TMA load completed on
one mbarrier (its phase flips per tile), is read from shared memory, written to another
shared buffer, fenced (``fence_async_shared``: the generic proxy's writes made visible to the
async proxy) and sent out by a TMA store. Two ways to break it:

- ``wrong_phase``: the wait names the other phase (``PHASE=1``), so it returns before the load
  it should wait for has landed, and the tile read is stale (a second wait, on the right
  phase, after the read keeps the launch from failing);
- ``fence_deleted``: the correct kernel with its ``fence.proxy.async`` deleted from the LLVM IR
  (built from that IR with ``ir_override``): the TMA store may read the buffer before the
  generic writes reach it.

    python -m tests.plan.cases.async_truth --out FILE.json   # on a CUDA GPU

prints and writes, per kernel, the values compared with 2x + 1 and those wrong (exit 77 without a
GPU). ``tests/plan/test_plan_async_truth.py`` compiles all three on the CPU and checks what the plan
says of each; ``async_truth_h200.json`` is what an H200 showed.
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
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from tools.plan.gpu_truth import NO_GPU, cuda_torch, record, tally

_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global

M_ROWS, N_COLS, BM, BN = 1024, 64, 64, 64
SIGNATURE = {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"}
# The proxy fence as Triton 3.6-3.9 print it in LLVM IR (an inline asm call on its own line).
_FENCE = re.compile(r"^.*\bfence\.proxy\.async\b.*\n", re.M)


@gluon.jit
def roundtrip(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr, PHASE: gl.constexpr):
    smem: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float16)
    lay: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    x_desc = tma.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], smem)
    y_desc = tma.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN], smem)
    in_s = gl.allocate_shared_memory(gl.float16, [BM, BN], smem)
    out_s = gl.allocate_shared_memory(gl.float16, [BM, BN], smem)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    for i in range(gl.cdiv(M, BM)):
        mbarrier.expect(bar, BM * BN * 2)
        _tma_load(x_desc, [i * BM, 0], bar, in_s)
        mbarrier.wait(bar, (i & 1) ^ PHASE)
        x = in_s.load(lay)
        if PHASE:
            # The load lands before the next tile's and before the kernel ends (a CTA that
            # leaves with a TMA in flight fails its launch): only the read above is early.
            mbarrier.wait(bar, i & 1)
        tma.store_wait(0)
        out_s.store(x * 2.0 + 1.0)
        hopper.fence_async_shared()
        _tma_store(y_desc, [i * BM, 0], out_s)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


def without_fence(llir: str) -> str:
    """The LLVM IR with its proxy fences deleted. ValueError when it has none."""
    out, n = _FENCE.subn("", llir)
    if n == 0:
        raise ValueError("no fence.proxy.async in the LLVM IR")
    return out


def compile_cpu(phase: int) -> Any:
    """The kernel compiled for sm_90 by the installed Triton (no GPU needed)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    src = GluonASTSource(roundtrip, signature=SIGNATURE,
                         constexprs={"BM": BM, "BN": BN, "PHASE": phase})  # fmt: skip
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def _launch(torch: Any, phase: int, override: str | None, repeat: int) -> dict[str, Any]:
    x = (torch.arange(M_ROWS * N_COLS, device="cuda") % 251).to(torch.float16).reshape(M_ROWS,
                                                                                         N_COLS)  # fmt: skip
    want = x * 2.0 + 1.0
    extra = {"ir_override": override} if override else {}

    def once() -> int:
        y = torch.full_like(x, float("nan"))
        roundtrip[(1,)](x, y, M_ROWS, N_COLS, BM, BN, phase, num_warps=4, **extra)
        torch.cuda.synchronize()
        return int((y.view(torch.int16) != want.view(torch.int16)).sum().item())

    return tally(once, M_ROWS * N_COLS, repeat)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run the asynchronous-ordering ground truth on a GPU.")
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--repeat", type=int, default=20, help="launches of each kernel")
    args = p.parse_args(argv)
    torch = cuda_torch("async_truth")
    if torch is None:
        return NO_GPU

    import triton

    # Descriptors made in the kernel need a global scratch buffer from the host.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))  # fmt: skip
    mutant = Path(tempfile.mkdtemp(prefix="async-truth-")) / "roundtrip.llir"
    mutant.write_text(without_fence(compile_cpu(0).asm["llir"]))
    results = {
        "correct": _launch(torch, 0, None, args.repeat),
        "wrong_phase": _launch(torch, 1, None, args.repeat),
        "fence_deleted": _launch(torch, 0, str(mutant), args.repeat),
    }
    record(torch, results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
