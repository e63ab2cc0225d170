"""A missing proxy fence before a wgmma, on the GPU, for ``alias-spec plan --races`` (issue: races).

``tiles_mma`` computes C = A @ B with every CTA owning one 64 x 64 tile of C: for each step of
K it loads a tile of B through registers (``gl.load``), stores it into shared memory through the
generic proxy, fences (``fence_async_shared``) and starts an asynchronous wgmma, which reads both
operands through the async proxy; the next step's tile of A is loaded while it runs and stored
into A's buffer after ``warpgroup_mma_wait``. The inputs are small integers, so every sum is
exact in fp32 and a correct kernel agrees with torch's product bit for bit.

- ``correct``: as Triton 3.6 builds it;
- ``fence_deleted``: its ``fence.proxy.async`` deleted from the LLVM IR (built from that IR with
  ``ir_override``);
- ``early_store``: the next tile of A stored before the wait, under the wgmma in flight.

    python -m tests.plan.cases.proxy_truth --out FILE.json   # on a CUDA GPU

prints and writes, per kernel, the values compared with torch's product and those wrong (exit 77
without a GPU). ``tests/plan/test_plan_proxy_truth.py`` compiles them on the CPU and checks what the
plan says of each; ``proxy_truth_h100.json`` is what an H100 showed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper

from tests.plan.cases.async_truth import without_fence
from tools.plan.gpu_truth import NO_GPU, cuda_torch, record, tally

T = 64  # a tile's side
M_ROWS, N_COLS, K_DEPTH = 1024, 1024, 4096  # 256 CTAs of 64 steps each
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32"}  # fmt: skip


@gluon.jit
def tiles_mma(a_ptr, b_ptr, c_ptr, M, N, K, T: gl.constexpr, EARLY: gl.constexpr):
    smem: gl.constexpr = gl.NVMMASharedLayout.get_default_for([T, T], gl.float16)
    lay: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    acc_l: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                    instr_shape=[16, 64, 16])  # fmt: skip
    pid_m = gl.program_id(0)
    pid_n = gl.program_id(1)
    rows = gl.arange(0, T, layout=gl.SliceLayout(1, lay))
    cols = gl.arange(0, T, layout=gl.SliceLayout(0, lay))
    a_rows = a_ptr + (pid_m * T + rows)[:, None] * K
    sa = gl.allocate_shared_memory(gl.float16, [T, T], smem)
    sb = gl.allocate_shared_memory(gl.float16, [T, T], smem)
    sa.store(gl.load(a_rows + cols[None, :]))
    acc = gl.zeros([T, T], gl.float32, acc_l)
    for k in range(0, K, T):
        sb.store(gl.load(b_ptr + (k + rows)[:, None] * N + (pid_n * T + cols)[None, :]))
        hopper.fence_async_shared()
        acc = hopper.warpgroup_mma(sa, sb, acc, is_async=True)
        # The next step's tile of A, loaded while the wgmma runs.
        nxt = gl.load(a_rows + (k + T + cols)[None, :], mask=(k + T + cols < K)[None, :], other=0.0)
        if EARLY:
            sa.store(nxt)  # A is still an operand of the wgmma in flight
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        if not EARLY:
            sa.store(nxt)
    out = gl.convert_layout(acc, lay)
    gl.store(c_ptr + (pid_m * T + rows)[:, None] * N + (pid_n * T + cols)[None, :], out)


def compile_cpu(early: int = 0) -> Any:
    """The kernel compiled for sm_90 by the installed Triton (no GPU needed)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    src = GluonASTSource(tiles_mma, signature=SIGNATURE, constexprs={"T": T, "EARLY": early})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def _launch(torch: Any, early: int, override: str | None, repeat: int) -> dict[str, Any]:
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randint(-2, 3, (M_ROWS, K_DEPTH), device="cuda", generator=gen).half()
    b = torch.randint(-2, 3, (K_DEPTH, N_COLS), device="cuda", generator=gen).half()
    want = a.float() @ b.float()  # exact: integers below 2^24
    extra = {"ir_override": override} if override else {}
    grid = (M_ROWS // T, N_COLS // T)

    def once() -> int:
        c = torch.full((M_ROWS, N_COLS), float("nan"), device="cuda")
        tiles_mma[grid](a, b, c, M_ROWS, N_COLS, K_DEPTH, T, early, num_warps=4, **extra)
        torch.cuda.synchronize()
        return int((c != want).sum().item())

    return tally(once, M_ROWS * N_COLS, repeat)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run the proxy-fence ground truth on a GPU.")
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--repeat", type=int, default=50, help="launches of each kernel")
    args = p.parse_args(argv)
    torch = cuda_torch("proxy_truth")
    if torch is None:
        return NO_GPU
    mutant = Path(tempfile.mkdtemp(prefix="proxy-truth-")) / "tiles_mma.llir"
    mutant.write_text(without_fence(compile_cpu().asm["llir"]))
    results = {
        "correct": _launch(torch, 0, None, args.repeat),
        "fence_deleted": _launch(torch, 0, str(mutant), args.repeat),
        "early_store": _launch(torch, 1, None, args.repeat),
    }
    record(torch, results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
