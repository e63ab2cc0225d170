"""Gluon kernels whose TTGIR dumps are the lint's real-compiler test cases.

``tools/lint/make_dumps.py`` compiles each for sm_90 (sm_100 where it needs tensor memory) on a CPU-only
machine and writes ``<name>.ttgir`` next to this file. Some kernels are correct (the lint must
stay quiet on them), some hold a real bug that Triton 3.6 compiles without complaint (the lint
must find it), some use what the spec does not model (the lint must say so).
"""

from __future__ import annotations

from typing import Any

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import blackwell as bw

from alias_spec.frontend import tle

PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
PLAIN1: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
# Four elements of padding after every 64-element row.
PADDED: gl.constexpr = gl.constexpr(
    gl.PaddedSharedLayout.with_identity_for([[64, 4]], [64, 64], [1, 0])
)


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
def tle_alias_granule(x_ptr, out_ptr):
    # The task's accepted alias: 64x64 bf16 source, 32x64 bf16 alias at byte 1024. 1024 is not
    # a multiple of the alias's 4096 bytes, so Triton 3.6 gets the "granule" recipe: the source
    # as int8 [2, 1024], index 1, reinterpret. The last reinterpret is larger than the 1024-byte
    # index view it starts from, yet the chain lands on bytes [1024, 5120) of 8192.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.bfloat16, layout=PLAIN)
    src.store(_load(x_ptr, 64, 64, B))
    view = tle.gpu.alloc([32, 64], gl.bfloat16, layout=PLAIN, alias=src, alias_offset_bytes=1024)
    gl.thread_barrier()
    _store(out_ptr, view.load(B), 32, 64, B)


@gluon.jit
def granule_overflow(x_ptr, out_ptr):
    # BUG: the granule recipe's op chain, hand-written with the wrong index: the 8192-byte
    # source as int8 [8, 1024], index 6, reinterpreted as 32x64 bf16 (4096 bytes). The chain
    # lands on bytes [6144, 10240): 2048 bytes past the allocation. Triton 3.6 compiles it.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = gl.allocate_shared_memory(gl.bfloat16, [64, 64], PLAIN)
    src.store(_load(x_ptr, 64, 64, B))
    rows = src._reinterpret(gl.int8, [8, 1024], PLAIN1).index(6)
    view = rows._reinterpret(gl.bfloat16, [32, 64], PLAIN)
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


@gluon.jit
def ring(x_ptr, out_ptr, n):
    # A three-stage ring buffer carried through the loop: the stage to fill is re-indexed with
    # a runtime index on every trip; its top half is read through a slice, and after the loop
    # the last stage's bottom half.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [3, 64, 64], PLAIN)
    acc = gl.zeros([32, 64], gl.float32, B)
    cur = bufs.index(0)
    for i in range(n):
        cur.store(_load(x_ptr + i * 4096, 64, 64, B))
        gl.thread_barrier()
        acc += cur.slice(0, 32).load(B).to(gl.float32)
        gl.thread_barrier()
        cur = bufs.index((i + 1) % 3)
    _store(out_ptr, acc + cur.slice(32, 32).load(B).to(gl.float32), 32, 64, B)


@gluon.jit
def ring_overflow(x_ptr, out_ptr, n):
    # BUG: the carried stage is read as two stages (16 KB of an 8 KB stage). From stages 0 and
    # 1 that stays inside the 24 KB allocation; from stage 2, which the runtime index reaches,
    # it reads 8 KB past its end. Triton 3.6 has no reinterpret verifier.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [3, 64, 64], PLAIN)
    acc = gl.zeros([128, 64], gl.float32, B)
    cur = bufs.index(0)
    for i in range(n):
        cur.store(_load(x_ptr + i * 4096, 64, 64, B))
        gl.thread_barrier()
        acc += cur._reinterpret(gl.float16, [128, 64], PLAIN).load(B).to(gl.float32)
        gl.thread_barrier()
        cur = bufs.index((i + 1) % 3)
    _store(out_ptr, acc, 128, 64, B)


@gluon.jit
def branch_stage(x_ptr, out_ptr, flag):
    # An scf.if chooses the stage (a memdesc result); its bottom half is read through a slice.
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [2, 64, 64], PLAIN)
    if flag > 0:
        s = bufs.index(0)
    else:
        s = bufs.index(1)
    s.store(_load(x_ptr, 64, 64, B))
    gl.thread_barrier()
    _store(out_ptr, s.slice(32, 32).load(B), 32, 64, B)


@gluon.jit
def padded_stage(x_ptr, out_ptr):
    # A padded layout: the allocation is larger than its logical shape, so the spec's byte
    # model does not hold for it (the lint must say so rather than judge it).
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    bufs = gl.allocate_shared_memory(gl.float16, [2, 64, 64], PADDED)
    one = bufs.index(1)
    one.store(_load(x_ptr, 64, 64, B))
    gl.thread_barrier()
    _store(out_ptr, one.load(B), 64, 64, B)


@gluon.jit
def tmem_ring(out_ptr, n):
    # Two tensor-memory accumulators used in turn (sm_100): memdesc_index in tensor memory,
    # carried through the loop. Not shared memory: the lint must not judge it by the
    # shared-memory rules.
    TL: gl.constexpr = bw.TensorMemoryLayout([128, 64], col_stride=1)
    acc = bw.allocate_tensor_memory(gl.float32, [2, 128, 64], TL)
    R: gl.constexpr = bw.get_tmem_reg_layout(gl.float32, [128, 64], TL, gl.num_warps())
    z = gl.zeros([128, 64], gl.float32, R)
    cur = acc.index(0)
    for i in range(n):
        cur.store(z + i)
        cur = acc.index((i + 1) % 2)
    _store(out_ptr, cur.load(R), 128, 64, R)


@triton.jit
def triton_pipelined(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr):  # fmt: skip
    # A plain Triton matmul that Triton's own pipeliner turns into a three-stage cp.async
    # ring (runtime memdesc_index on the multi-buffered allocations).
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


# name -> (kernel, signature): every kernel takes two fp16 pointers (and maybe an i32).
KERNELS = {
    "tle_alias_view": (tle_alias_view, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "tle_alias_rows": (tle_alias_rows, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "tle_alias_lit": (tle_alias_lit, {"x_ptr": "*bf16", "out_ptr": "*bf16"}),
    "tle_alias_granule": (tle_alias_granule, {"x_ptr": "*bf16", "out_ptr": "*bf16"}),
    "granule_overflow": (granule_overflow, {"x_ptr": "*bf16", "out_ptr": "*bf16"}),
    "pipelined": (pipelined, {"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32"}),
    "views": (views, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "reinterpret_overflow": (reinterpret_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "index_overflow": (index_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "slice_overflow": (slice_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "ring": (ring, {"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32"}),
    "ring_overflow": (ring_overflow, {"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32"}),
    "branch_stage": (branch_stage, {"x_ptr": "*fp16", "out_ptr": "*fp16", "flag": "i32"}),
    "padded_stage": (padded_stage, {"x_ptr": "*fp16", "out_ptr": "*fp16"}),
    "tmem_ring": (tmem_ring, {"out_ptr": "*fp32", "n": "i32"}),
    "triton_pipelined": (
        triton_pipelined,
        {
            "a_ptr": "*fp16",
            "b_ptr": "*fp16",
            "c_ptr": "*fp32",
            "K": "i32",
            "BM": "constexpr",
            "BN": "constexpr",
            "BK": "constexpr",
        },
    ),
}

# What a kernel needs beyond the defaults (sm_90, no constexprs, no argument attributes).
OPTIONS: dict[str, dict[str, Any]] = {
    "tmem_ring": {"arch": 100},
    "triton_pipelined": {
        "constexprs": {"BM": 128, "BN": 128, "BK": 64},
        # 16-byte aligned pointers and K, so that the loads can become cp.async copies.
        "attrs": {(i,): [["tt.divisibility", 16]] for i in range(4)},
    },
}
