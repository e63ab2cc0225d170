"""Gluon kernels for the plan validator's soundness cases (``tools/plan/soundness/make_cases.py`` compiles them).

``call_frame_constexpr`` is the call-frame bug of Triton 3.6-3.8 (see ``../kernels.py``) with a
non-inlined callee that takes a constexpr argument: Triton mangles the constexpr into the
callee's symbol, which then needs quoting in MLIR (``@"...(2,)cconstexpr_1024_"``).
``call_frame_constexpr_dead`` reads its buffer back before the call, which is correct on
every release.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

N: gl.constexpr = gl.constexpr(1024)
PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
# The barrier is gl.thread_barrier() up to 3.8 and gl.barrier() from 3.9.
_barrier = getattr(gl, "barrier", None) or gl.thread_barrier


@gluon.jit
def _sync():
    _barrier()


@gluon.jit(noinline=True)
def helper(x_ptr, out_ptr, n: gl.constexpr):
    a: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    b: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, n, layout=a)
    x = gl.load(x_ptr + offs)
    y = gl.convert_layout(x * 2.0, b)  # a layout conversion through shared scratch
    total = gl.sum(y, axis=0)  # a cross-warp reduction through shared scratch
    gl.store(out_ptr + gl.arange(0, n, layout=b), y + total)


@gluon.jit
def call_frame_constexpr(x_ptr, y_ptr, out_ptr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _sync()
    helper(x_ptr, y_ptr, N)
    _sync()
    gl.store(out_ptr + offs, buf.load(lay))


@gluon.jit
def call_frame_constexpr_dead(x_ptr, y_ptr, out_ptr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _sync()
    back = buf.load(lay)
    helper(x_ptr, y_ptr, N)
    gl.store(out_ptr + offs, back)


SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}
KERNELS: dict[str, tuple[Any, dict[str, str]]] = {
    "call_frame_constexpr": (call_frame_constexpr, SIG),
    "call_frame_constexpr_dead": (call_frame_constexpr_dead, SIG),
}
