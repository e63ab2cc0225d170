"""FlagTree's alias scenario as a Gluon kernel on stock Triton 3.6.

Fill a buffer, alias it at offset 0, overwrite the buffer through the source: the alias sees
the overwrite (the same bytes, no copy). A second kernel uses the geometry of FlagTree's one
valid lit test (a 64x64 bf16 source, a 32x64 bf16 alias at byte 128).

    python examples/flagtree_alias.py      # pip install -e '.[plan]'; torch and a GPU to launch

With a GPU it launches both kernels and compares the bytes. Without one it compiles them for
sm_90 on the CPU (``alias_spec.frontend.compile.compile_for``), lints them and checks their
shared-memory plans, prints the verdicts and a line saying the GPU part was skipped (exit 0; 1
if anything was found). Without Triton (or, on the CPU, the plan extra's pydantic, z3,
llvmlite) it says so in one line and exits 77.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _requires import CPU_PATH, require

if __name__ == "__main__":  # imported (by the tests) it needs only triton
    require(__file__, ("triton",))

from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alias_spec.frontend import tle  # noqa: E402


@gluon.jit
def _tile_offsets(M: gl.constexpr, N: gl.constexpr, B: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, B))
    return gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)


@gluon.jit
def flagtree_scenario_kernel(x_ptr, y_ptr, before_ptr, after_ptr, M: gl.constexpr, N: gl.constexpr):
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    offs = _tile_offsets(M, N, B)
    src = tle.gpu.alloc([M, N], gl.float16)  # FlagTree's default layout (NVMMA here)
    src.store(gl.load(x_ptr + offs))
    view = tle.gpu.alloc([M, N], gl.float16, alias=src, alias_offset_bytes=0)
    gl.thread_barrier()
    gl.store(before_ptr + offs, view.load(B))
    gl.thread_barrier()
    src.store(gl.load(y_ptr + offs))  # overwrite through the source
    gl.thread_barrier()
    gl.store(after_ptr + offs, view.load(B))  # the alias sees it


@gluon.jit
def flagtree_lit_kernel(x_ptr, out_ptr):
    # FlagTree's valid lit case: 64x64 bf16 source, 32x64 bf16 alias at byte 128 (row 1).
    L: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.bfloat16, layout=L)
    src.store(gl.load(x_ptr + _tile_offsets(64, 64, B)))
    view = tle.gpu.alloc([32, 64], gl.bfloat16, layout=L, alias=src, alias_offset_bytes=128)
    gl.thread_barrier()
    gl.store(out_ptr + _tile_offsets(32, 64, B), view.load(B))


def run() -> dict[str, bool]:
    """Run both kernels on the current CUDA device; True where the alias saw the right bytes."""
    import torch

    m, n = 64, 64
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    y = torch.randn(m, n, device="cuda", dtype=torch.float16)
    before, after = torch.empty_like(x), torch.empty_like(x)
    flagtree_scenario_kernel[(1,)](x, y, before, after, m, n, num_warps=4)
    xb = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(32, 64, device="cuda", dtype=torch.bfloat16)
    flagtree_lit_kernel[(1,)](xb, out, num_warps=4)
    torch.cuda.synchronize()
    return {
        "alias_sees_fill": bool(torch.equal(before, x)),
        "alias_sees_overwrite": bool(torch.equal(after, y)),
        "lit_case_offset_128": bool(torch.equal(out, xb[1:33])),
    }


def cpu() -> int:
    from _cpu import judge, skipped

    ok = judge("flagtree_scenario_kernel[M=64, N=64]", flagtree_scenario_kernel,
               {"x_ptr": "*fp16", "y_ptr": "*fp16", "before_ptr": "*fp16", "after_ptr": "*fp16"},
               {"M": 64, "N": 64})  # fmt: skip
    ok &= judge("flagtree_lit_kernel", flagtree_lit_kernel, {"x_ptr": "*bf16", "out_ptr": "*bf16"})
    skipped(__file__, "the launches and the byte comparisons")
    return 0 if ok else 1


if __name__ == "__main__":
    from _cpu import gpu_present

    if not gpu_present():
        require(__file__, CPU_PATH)
        raise SystemExit(cpu())
    print(run())
