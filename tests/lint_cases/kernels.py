"""Gluon kernels whose TTGIR dumps are the lint's real-compiler test cases.

``make_dumps.py`` compiles each for sm_90 on a CPU-only machine and writes
``<name>.ttgir`` next to this file. Some kernels are correct (the lint must stay quiet on
them), some hold a real bug that Triton 3.6 compiles without complaint (the lint must find it).
"""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from compiler_patch import tle

PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
PLAIN1: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))


@gluon.jit
def _store(ptr, value, M: gl.constexpr, N: gl.constexpr, B: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, B))
    gl.store(ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0), value)


@gluon.jit
def _load(ptr, M: gl.constexpr, N: gl.constexpr, B: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, B))
    return gl.load(ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))


@gluon.jit
def tle_alias_view(x_ptr, out_ptr):
    # FlagTree's scenario: an alias of the whole tile at offset 0 (recipe "view").
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.float16)
    src.store(_load(x_ptr, 64, 64, B))
    view = tle.gpu.alloc([64, 64], gl.float16, alias=src, alias_offset_bytes=0)
    gl.thread_barrier()
    _store(out_ptr, view.load(B), 64, 64, B)


@gluon.jit
def tle_alias_rows(x_ptr, out_ptr):
    # An alias of the bottom half (recipe "index").
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.float16, layout=PLAIN)
    src.store(_load(x_ptr, 64, 64, B))
    view = tle.gpu.alloc([32, 64], gl.float16, layout=PLAIN, alias=src, alias_offset_bytes=4096)
    gl.thread_barrier()
    _store(out_ptr, view.load(B), 32, 64, B)


@gluon.jit
def tle_alias_lit(x_ptr, out_ptr):
    # FlagTree's valid lit case: 64x64 bf16 source, 32x64 bf16 alias at byte 128.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.bfloat16, layout=PLAIN)
    src.store(_load(x_ptr, 64, 64, B))
    view = tle.gpu.alloc([32, 64], gl.bfloat16, layout=PLAIN, alias=src, alias_offset_bytes=128)
    gl.thread_barrier()
    _store(out_ptr, view.load(B), 32, 64, B)


@gluon.jit
def pipelined(x_ptr, out_ptr, n):
    # Double buffering: a runtime memdesc_index inside a loop.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [2, 64, 64], PLAIN)
    acc = gl.zeros([64, 64], gl.float32, B)
    for i in range(n):
        slot = bufs.index(i % 2)
        slot.store(_load(x_ptr + i * 4096, 64, 64, B))
        gl.thread_barrier()
        acc += slot.load(B).to(gl.float32)
    _store(out_ptr, acc, 64, 64, B)


@gluon.jit
def views(x_ptr, out_ptr):
    # Slices along both dims, a transpose and a reinterpret of the whole allocation.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    NV: gl.constexpr = gl.NVMMASharedLayout(128, 16, 2)
    buf = gl.allocate_shared_memory(gl.float16, [64, 64], NV)
    buf.store(_load(x_ptr, 64, 64, B))
    top = buf.slice(32, 32, dim=0)
    left = top.slice(0, 32, dim=1)
    t = buf.permute([1, 0])
    raw = buf._reinterpret(gl.int8, [8192], PLAIN1)
    _store(out_ptr, left.load(B), 32, 32, B)
    _store(out_ptr + 4096, t.load(B), 64, 64, B)
    B1: gl.constexpr = gl.BlockedLayout([8], [32], [gl.num_warps()], [0])
    gl.store(out_ptr + 8192 + gl.arange(0, 8192, layout=B1), raw.load(B1).to(gl.float16))


@gluon.jit
def reinterpret_overflow(x_ptr, out_ptr):
    # BUG: a 512-byte buffer viewed as 2048 bytes. Triton 3.6 has no reinterpret verifier and
    # compiles it; the view reads 1536 bytes past its allocation.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    small = gl.allocate_shared_memory(gl.float16, [16, 16], PLAIN)
    small.store(_load(x_ptr, 16, 16, B))
    big = small._reinterpret(gl.float16, [32, 32], PLAIN)
    gl.thread_barrier()
    _store(out_ptr, big.load(B), 32, 32, B)


@gluon.jit
def index_overflow(x_ptr, out_ptr):
    # BUG: buffer 2 of a two-buffer allocation. No release checks a constant index.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [2, 32, 32], PLAIN)
    bufs.index(0).store(_load(x_ptr, 32, 32, B))
    gl.thread_barrier()
    _store(out_ptr, bufs.index(2).load(B), 32, 32, B)


@gluon.jit
def slice_overflow(x_ptr, out_ptr):
    # BUG: rows [48, 80) of a 64-row buffer. Triton 3.6 does not bound-check subslices.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    buf = gl.allocate_shared_memory(gl.float16, [64, 64], PLAIN)
    buf.store(_load(x_ptr, 64, 64, B))
    gl.thread_barrier()
    _store(out_ptr, buf.slice(64, 32, dim=0).load(B), 32, 64, B)


# name -> (kernel, signature): every kernel takes two fp16 pointers (and maybe an i32).
KERNELS = {
    "tle_alias_view": (tle_alias_view, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "tle_alias_rows": (tle_alias_rows, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "tle_alias_lit": (tle_alias_lit, {"x_ptr": "*bf16", "out_ptr": "*bf16"}),
    "pipelined": (pipelined, {"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32"}),
    "views": (views, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "reinterpret_overflow": (reinterpret_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "index_overflow": (index_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "slice_overflow": (slice_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
}
