"""Gluon kernels whose TTGIR and LLVM IR dumps are the plan validator's real-compiler cases.

``tools/plan/make_dumps.py`` compiles each for sm_90 on a CPU-only machine. ``call_frame`` is the
call-frame bug of Triton 3.6-3.8: a 4 KiB buffer lives across a call to a non-inlined function
whose body needs scratch; the allocator places the call's frame after the buffer, but the
callee addresses its scratch from the shared base. ``call_frame_dead`` reads its buffer back
before the call (the frame may then reuse its bytes) and ``call_inlined`` inlines the callee:
both are correct on every release.
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


def _callee_body(x_ptr, out_ptr):
    a: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    b: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=a)
    x = gl.load(x_ptr + offs)
    y = gl.convert_layout(x * 2.0, b)  # a layout conversion through shared scratch
    total = gl.sum(y, axis=0)  # a cross-warp reduction through shared scratch
    gl.store(out_ptr + gl.arange(0, N, layout=b), y + total)


helper_noinline = gluon.jit(noinline=True)(_callee_body)
helper_inline = gluon.jit(_callee_body)


@gluon.jit
def call_frame(x_ptr, y_ptr, out_ptr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _sync()
    helper_noinline(x_ptr, y_ptr)
    _sync()
    gl.store(out_ptr + offs, buf.load(lay))


@gluon.jit
def call_frame_dead(x_ptr, y_ptr, out_ptr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _sync()
    back = buf.load(lay)
    helper_noinline(x_ptr, y_ptr)
    gl.store(out_ptr + offs, back)


@gluon.jit
def call_inlined(x_ptr, y_ptr, out_ptr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _sync()
    helper_inline(x_ptr, y_ptr)
    _sync()
    gl.store(out_ptr + offs, buf.load(lay))


SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}
KERNELS: dict[str, tuple[Any, dict[str, str]]] = {
    "call_frame": (call_frame, SIG),
    "call_frame_dead": (call_frame_dead, SIG),
    "call_inlined": (call_inlined, SIG),
}
