"""Gluon kernels for the liveness cases (``tools/plan/liveness/make_cases.py`` compiles them for sm_90, no GPU).

``tma_store_pending`` stores tile A to global memory with an asynchronous TMA store, then
allocates B: A's last use is the store, so Triton's allocator gives B A's bytes while the store
may still be reading them (on an H200 almost every output tile came out wrong). The wait comes
only at the end. ``tma_store_waited`` waits for A's store before allocating B: correct.

``branch_buffers`` allocates a different buffer in each branch of a runtime ``if`` under one
Python name, so the frontend yields it out of the ``scf.if`` although nothing reads it after;
Triton folds that result away and gives both buffers the same bytes, which is right: only one
branch runs.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, tma

BM: gl.constexpr = gl.constexpr(64)
BN: gl.constexpr = gl.constexpr(64)
N: gl.constexpr = gl.constexpr(1024)
PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
_barrier = getattr(gl, "barrier", None) or gl.thread_barrier
# The TMA store is tma.async_copy_shared_to_global up to 3.8 and tma.async_store from 3.9.
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global


@gluon.jit
def _tile():
    blk: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rows = gl.arange(0, BM, layout=gl.SliceLayout(1, blk))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, blk))
    return (rows[:, None] * BN + cols[None, :]).to(gl.float16)


@gluon.jit
def tma_store_pending(out_ptr, M, N):
    lay: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    desc = tma.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN], lay)
    tile = _tile()
    a = gl.allocate_shared_memory(gl.float16, [BM, BN], lay, tile)
    fence_async_shared()
    _tma_store(desc, [0, 0], a)
    b = gl.allocate_shared_memory(gl.float16, [BM, BN], lay, tile + 1.0)
    fence_async_shared()
    _tma_store(desc, [BM, 0], b)
    tma.store_wait(0)


@gluon.jit
def tma_store_waited(out_ptr, M, N):
    lay: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    desc = tma.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN], lay)
    tile = _tile()
    a = gl.allocate_shared_memory(gl.float16, [BM, BN], lay, tile)
    fence_async_shared()
    _tma_store(desc, [0, 0], a)
    tma.store_wait(0)
    b = gl.allocate_shared_memory(gl.float16, [BM, BN], lay, tile + 1.0)
    fence_async_shared()
    _tma_store(desc, [BM, 0], b)
    tma.store_wait(0)


@gluon.jit
def branch_buffers(x_ptr, out_ptr, flag):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    x = gl.load(x_ptr + offs)
    if flag > 0:
        s = gl.allocate_shared_memory(gl.float32, [N], PLAIN, x)
        _barrier()
        y = s.load(lay) * 2.0
    else:
        z = x + 1.0
        s = gl.allocate_shared_memory(gl.float32, [N], PLAIN, z)
        _barrier()
        w = s.load(lay)
        y = w * 3.0
    gl.store(out_ptr + offs, y)


TMA_SIG = {"out_ptr": "*fp16", "M": "i32", "N": "i32"}
KERNELS: dict[str, tuple[Any, dict[str, str]]] = {
    "tma_store_pending": (tma_store_pending, TMA_SIG),
    "tma_store_waited": (tma_store_waited, TMA_SIG),
    "branch_buffers": (branch_buffers, {"x_ptr": "*fp32", "out_ptr": "*fp32", "flag": "i32"}),
}
