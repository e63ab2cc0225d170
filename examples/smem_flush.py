"""The buffered-flush pattern from the reinterpret seed, with tle.gpu.alloc(alias=...).

Events are written one row at a time through ``smem.index(j)`` (a leading buffer dim outside
the layout), then the whole buffer is read at once through a 2-D alias of the same bytes.

    python examples/smem_flush.py      # pip install -e '.[plan]'; torch and a GPU to launch

With a GPU it launches the kernel and compares the bytes. Without one it compiles the kernel
for sm_90 on the CPU, lints it and checks its shared-memory plan, prints the verdicts and a line
saying the GPU part was skipped (exit 0; 1 if anything was found). Without Triton (or, on the
CPU, the plan extra's pydantic, z3, llvmlite) it says so in one line and exits 77.
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
def smem_flush_kernel(out_ptr, EVENTS: gl.constexpr):
    B: gl.constexpr = gl.BlockedLayout([1, 2], [32, 1], [gl.num_warps(), 1], [1, 0])
    smem = tle.gpu.alloc([EVENTS, 2], gl.uint32, layout=gl.SwizzledSharedLayout(1, 1, 1, [0]))
    for j in range(EVENTS):
        smem.index(j).store(gl.full([2], j, gl.uint32, layout=gl.SliceLayout(0, B)))
    gl.thread_barrier()
    flat = tle.gpu.alloc(
        [EVENTS, 2], gl.uint32, layout=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), alias=smem
    )
    rows = gl.arange(0, EVENTS, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, 2, layout=gl.SliceLayout(0, B))
    gl.store(out_ptr + gl.expand_dims(rows, 1) * 2 + gl.expand_dims(cols, 0), flat.load(B))


def run() -> dict[str, bool]:
    import torch

    out = torch.zeros(32, 2, dtype=torch.int32, device="cuda")
    smem_flush_kernel[(1,)](out, 32, num_warps=1)
    torch.cuda.synchronize()
    want = torch.arange(32, dtype=torch.int32, device="cuda")[:, None].expand(32, 2)
    return {"flush_rows_match": bool(torch.equal(out, want))}


def cpu() -> int:
    from _cpu import judge, skipped

    ok = judge("smem_flush_kernel[EVENTS=32]", smem_flush_kernel, {"out_ptr": "*i32"},
               {"EVENTS": 32}, num_warps=1)  # fmt: skip
    skipped(__file__, "the launch and the byte comparison")
    return 0 if ok else 1


if __name__ == "__main__":
    from _cpu import gpu_present

    if not gpu_present():
        require(__file__, CPU_PATH)
        raise SystemExit(cpu())
    print(run())
