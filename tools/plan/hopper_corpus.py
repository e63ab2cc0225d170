"""A real-world corpus of Hopper kernels with TMA and warp specialization: captured on a GPU,
each op checked against a torch reference there, then judged here by ``alias-spec plan``.

    python -m tools.plan.hopper_corpus capture OUT_DIR [--only triton gluon inductor]
    python -m tools.plan.hopper_corpus judge (CACHE_DIR... | --corpus DIR) [--snapshot FILE]
        [--jobs N]

``capture`` (the GPU machine: torch with CUDA and Triton, nothing of this project's judging)
runs three sources, each in a process of its own with its own ``TRITON_CACHE_DIR``:

- ``triton``: kernels written here in plain Triton: a persistent matmul over host-side tensor
  descriptors (``tl.range(..., flatten=True)`` over tiles), the same with the tile loop
  warp-specialized, a matmul over device-side descriptors (``tl.make_tensor_descriptor``,
  ``triton.set_allocator``) with its K loop pipelined or warp-specialized, and an attention
  forward whose key loop is warp-specialized;
- ``gluon``: kernels written here in Gluon: a TMA ring of mbarriers feeding asynchronous
  wgmma, a loader partition and an MMA partition (``gl.warp_specialize``), and a persistent
  warp-specialized matmul with a TMA-store epilogue;
- ``inductor``: ``torch.compile(mode="max-autotune-no-cudagraphs")`` with Inductor's
  persistent TMA matmul template switched on, on mm/addmm shapes, and flex_attention forward
  and backward.

It writes ``OUT_DIR/<source>.tar.xz`` (each kernel's ``.ttgir``, ``.llir`` and metadata
``.json``) and ``OUT_DIR/ops.json`` (device, versions, date, the Inductor flags set, each op's
largest error against its reference and whether it is within tolerance, kernel counts).

``judge`` (here, the CPU) judges every kernel of the unpacked caches (``--corpus``: unpacks
``DIR/<source>.tar.xz`` itself, one folder per source) as ``alias-spec plan DIR`` does, without
and with ``--races``, and writes the verdicts as the snapshot
``tests/plan/test_plan_hopper_corpus.py`` compares with (``--snapshot``; the corpus is
``tests/plan/cases/realworld/hopper``, its snapshot ``verdicts.snapshot.json`` there).

Landing a capture: copy ``OUT_DIR/ops.json`` and ``OUT_DIR/*.tar.xz`` into that folder, write the
snapshot with ``judge --corpus``, then fill the test's ``FALSE_ALARMS`` (findings on kernels
whose ops passed) and ``SAMPLE`` (a quick kernel of each verdict) from it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

SOURCES = ("triton", "gluon", "inductor")
SM90_LIMIT = 232448  # bytes of shared memory a block may have on sm_90 (227 KiB)

# --- Triton kernels ------------------------------------------------------------------------


@triton.jit
def _tile_of(tile, n_m, n_n, GROUP_M: tl.constexpr):
    """Tile ``tile``'s (row, column) block: GROUP_M rows of blocks walked column by column,
    so that consecutive tiles share their B columns in L2."""
    width = GROUP_M * n_n
    first = (tile // width) * GROUP_M
    rows = min(n_m - first, GROUP_M)
    return first + (tile % rows), (tile % width) // rows


@triton.jit
def mm_persistent(a_desc, b_desc, c_desc, M, N, K, GROUP_M: tl.constexpr,
                  NUM_SMS: tl.constexpr, STAGES: tl.constexpr):  # fmt: skip
    """C = A @ B^T over host-side descriptors (B is N x K), one program per SM walking the
    tiles; the tile and K loops flattened into one pipelined loop."""
    BM: tl.constexpr = a_desc.block_shape[0]
    BK: tl.constexpr = a_desc.block_shape[1]
    BN: tl.constexpr = b_desc.block_shape[0]
    n_m = tl.cdiv(M, BM)
    n_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), n_m * n_n, NUM_SMS, num_stages=STAGES, flatten=True):
        pm, pn = _tile_of(tile, n_m, n_n, GROUP_M)
        acc = tl.zeros((BM, BN), tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pm * BM, ki * BK])
            b = b_desc.load([pn * BN, ki * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@triton.jit
def mm_persistent_ws(a_desc, b_desc, c_ptr, M, N, K, GROUP_M: tl.constexpr,
                     NUM_SMS: tl.constexpr, STAGES: tl.constexpr):  # fmt: skip
    """The persistent matmul with its tile loop warp-specialized (Hopper's automatic
    producer/consumer split; in 3.6 it takes 4 warps, an unflattened loop and a store through
    pointers: a descriptor store there fails to compile)."""
    BM: tl.constexpr = a_desc.block_shape[0]
    BK: tl.constexpr = a_desc.block_shape[1]
    BN: tl.constexpr = b_desc.block_shape[0]
    n_m = tl.cdiv(M, BM)
    n_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), n_m * n_n, NUM_SMS, num_stages=STAGES,
                         warp_specialize=True):  # fmt: skip
        pm, pn = _tile_of(tile, n_m, n_n, GROUP_M)
        acc = tl.zeros((BM, BN), tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pm * BM, ki * BK])
            b = b_desc.load([pn * BN, ki * BK])
            acc = tl.dot(a, b.T, acc)
        rows = pm * BM + tl.arange(0, BM)
        cols = pn * BN + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(c_ptr.dtype.element_ty), mask)


@triton.jit
def mm_device_desc(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr, STAGES: tl.constexpr, WS: tl.constexpr):  # fmt: skip
    """C = A @ B^T, one program a tile, over descriptors made on the device (their 128-byte
    tensor maps live in the scratch ``triton.set_allocator`` hands out)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), tl.float32)
    for ki in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([pm * BM, ki * BK])
        b = b_desc.load([pn * BN, ki * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, T, sm_scale, HD: tl.constexpr, BM: tl.constexpr,
             BN: tl.constexpr, STAGES: tl.constexpr, WS: tl.constexpr,
             CAUSAL: tl.constexpr):  # fmt: skip
    """Softmax(Q K^T) V of one (batch, head) per grid column, T x HD each, online softmax over
    key blocks loaded through device-side descriptors; the key loop optionally
    warp-specialized."""
    pm = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * T * HD
    q_desc = tl.make_tensor_descriptor(q_ptr + head, [T, HD], [HD, 1], [BM, HD])
    k_desc = tl.make_tensor_descriptor(k_ptr + head, [T, HD], [HD, 1], [BN, HD])
    v_desc = tl.make_tensor_descriptor(v_ptr + head, [T, HD], [HD, 1], [BN, HD])
    o_desc = tl.make_tensor_descriptor(o_ptr + head, [T, HD], [HD, 1], [BM, HD])
    q = q_desc.load([pm * BM, 0])
    m = tl.full([BM], float("-inf"), tl.float32)
    den = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, HD], tl.float32)
    scale = sm_scale * 1.4426950408889634  # exp2 instead of exp
    rows = pm * BM + tl.arange(0, BM)
    hi = (pm + 1) * BM if CAUSAL else T
    for start in tl.range(0, hi, BN, num_stages=STAGES, warp_specialize=WS):
        s = tl.dot(q, k_desc.load([start, 0]).T) * scale
        if CAUSAL:
            cols = start + tl.arange(0, BN)
            s = tl.where(rows[:, None] >= cols[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m - m_new)
        den = den * alpha + tl.sum(p, 1)
        v = v_desc.load([start, 0])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    o_desc.store([pm * BM, 0], (acc / den[:, None]).to(o_desc.dtype))


# --- Gluon kernels -------------------------------------------------------------------------


@gluon.constexpr_function
def _acc_layout(bn: Any) -> Any:
    """wgmma's accumulator layout for one warpgroup (the kernels run on 4 warps)."""
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                     instr_shape=[16, int(bn), 16])  # fmt: skip


@gluon.jit
def _tma_store_tile(c_desc, c_s, acc, pm, pn):
    """The accumulator out through shared memory and a TMA store (which reads c_s
    asynchronously: the caller waits before writing c_s again)."""
    c_s.store(acc.to(c_desc.dtype))
    hopper.fence_async_shared()  # generic-proxy writes visible to the TMA unit
    tma.async_copy_shared_to_global(c_desc, [pm * c_s.shape[0], pn * c_s.shape[1]], c_s)


@gluon.jit
def _fill(a_desc, b_desc, a_s, b_s, ready, slot, pm, pn, k):
    """Ring slot ``slot`` filled by TMA with A's and B's tiles of K step ``k``, its mbarrier
    told the bytes both bring."""
    BK: gl.constexpr = a_desc.block_type.shape[1]
    mbarrier.expect(ready.index(slot), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(a_desc, [pm * a_desc.block_type.shape[0], k * BK],
                                    ready.index(slot), a_s.index(slot))  # fmt: skip
    tma.async_copy_global_to_shared(b_desc, [pn * b_desc.block_type.shape[0], k * BK],
                                    ready.index(slot), b_s.index(slot))  # fmt: skip


@gluon.jit
def gl_mm_ring(a_desc, b_desc, c_desc, K, STAGES: gl.constexpr):
    """C = A @ B^T, one program a tile: a ring of STAGES slots filled by TMA STAGES - 1 steps
    ahead, each slot's mbarrier waited on before an asynchronous wgmma reads it; one wgmma
    stays in flight, so a slot is refilled only after the wgmma that read it retired."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    pm = gl.program_id(0)
    pn = gl.program_id(1)
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BN, BK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
    k_tiles = gl.cdiv(K, BK)
    for s in gl.static_range(STAGES - 1):
        if s < k_tiles:
            _fill(a_desc, b_desc, a_s, b_s, ready, s, pm, pn, s)
    acc = gl.zeros([BM, BN], gl.float32, _acc_layout(BN))
    for i in range(k_tiles):
        slot = i % STAGES
        mbarrier.wait(ready.index(slot), (i // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot).permute((1, 0)), acc,
                                   is_async=True)  # fmt: skip
        # wgmma i - 1 has retired: its slot is the one refilled next
        acc = hopper.warpgroup_mma_wait(num_outstanding=1, deps=[acc])
        nxt = i + STAGES - 1
        if nxt < k_tiles:
            _fill(a_desc, b_desc, a_s, b_s, ready, nxt % STAGES, pm, pn, nxt)
    acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    _tma_store_tile(c_desc, c_s, acc, pm, pn)
    tma.store_wait(0)


@gluon.jit
def _ws_load(a_desc, b_desc, a_s, b_s, ready, empty, M, N, K, PERSISTENT: gl.constexpr):
    """The loader partition: TMA loads into the ring, each slot taken once its empty mbarrier
    says the MMA partition is done with it (a fresh mbarrier passes the wait on phase 1)."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    STAGES: gl.constexpr = a_s.shape[0]
    n_n = gl.cdiv(N, BN)
    k_tiles = gl.cdiv(K, BK)
    if PERSISTENT:
        first = gl.program_id(0)
        last = gl.cdiv(M, BM) * n_n
        step = gl.num_programs(0)
    else:
        first = gl.program_id(0) * n_n + gl.program_id(1)
        last = first + 1
        step = 1
    i = gl.to_tensor(0)  # the ring position, carried across tiles
    for tile in range(first, last, step):
        pm = tile // n_n
        pn = tile % n_n
        for ki in range(k_tiles):
            slot = i % STAGES
            mbarrier.wait(empty.index(slot), ((i // STAGES) & 1) ^ 1)
            _fill(a_desc, b_desc, a_s, b_s, ready, slot, pm, pn, ki)
            i += 1


@gluon.jit
def _ws_mma_tile(a_s, b_s, ready, empty, i, k_tiles, BN: gl.constexpr):
    """One tile's K loop of the MMA partition from ring position i: each slot waited on, read
    by a wgmma, released to the loader once that wgmma retired."""
    STAGES: gl.constexpr = a_s.shape[0]
    BM: gl.constexpr = a_s.shape[1]
    acc = gl.zeros([BM, BN], gl.float32, _acc_layout(BN))
    for _ki in range(k_tiles):
        slot = i % STAGES
        mbarrier.wait(ready.index(slot), (i // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot).permute((1, 0)), acc,
                                   is_async=True)  # fmt: skip
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        mbarrier.arrive(empty.index(slot), count=1)
        i += 1
    return acc, i


@gluon.jit
def _ws_mma(a_s, b_s, ready, empty, K, BN: gl.constexpr, BK: gl.constexpr):
    acc, _i = _ws_mma_tile(a_s, b_s, ready, empty, gl.to_tensor(0), gl.cdiv(K, BK), BN)
    return (acc,)


@gluon.jit
def _ring(a_desc, b_desc, STAGES: gl.constexpr):
    """The ring's slots and its ready/empty mbarriers."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BN, BK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    return a_s, b_s, ready, empty


@gluon.jit
def _ring_done(ready, empty):
    STAGES: gl.constexpr = ready.shape[0]
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(s))
        mbarrier.invalidate(empty.index(s))


@gluon.jit
def gl_mm_ws(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr):
    """C = A @ B^T, one program a tile: a one-warp loader partition fills the ring, the
    default partition runs the wgmmas; after the join the accumulator leaves by TMA store."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    a_s, b_s, ready, empty = _ring(a_desc, b_desc, STAGES)
    (acc,) = gl.warp_specialize([(_ws_mma, (a_s, b_s, ready, empty, K, BN, BK)),
                                 (_ws_load, (a_desc, b_desc, a_s, b_s, ready, empty, M, N, K,
                                             False))], [1], [24])  # fmt: skip
    _ring_done(ready, empty)
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    _tma_store_tile(c_desc, c_s, acc, gl.program_id(0), gl.program_id(1))
    tma.store_wait(0)


@gluon.jit
def _pws_mma(a_s, b_s, c_s, ready, empty, c_desc, M, N, K):
    """The persistent MMA partition: each tile's K loop, then its epilogue by TMA store; the
    previous tile's store must have read c_s before c_s is written again."""
    BM: gl.constexpr = c_s.shape[0]
    BN: gl.constexpr = c_s.shape[1]
    BK: gl.constexpr = a_s.shape[2]
    n_n = gl.cdiv(N, BN)
    k_tiles = gl.cdiv(K, BK)
    i = gl.to_tensor(0)  # the ring position, carried across tiles
    for tile in range(gl.program_id(0), gl.cdiv(M, BM) * n_n, gl.num_programs(0)):
        acc, i = _ws_mma_tile(a_s, b_s, ready, empty, i, k_tiles, BN)
        tma.store_wait(0)
        _tma_store_tile(c_desc, c_s, acc, tile // n_n, tile % n_n)
    tma.store_wait(0)


@gluon.jit
def gl_mm_ws_persistent(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr):
    """The warp-specialized matmul made persistent: one program per SM walks the tiles; the
    loader runs ahead across tile boundaries; the MMA partition stores each tile itself."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    a_s, b_s, ready, empty = _ring(a_desc, b_desc, STAGES)
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    gl.warp_specialize([(_pws_mma, (a_s, b_s, c_s, ready, empty, c_desc, M, N, K)),
                        (_ws_load, (a_desc, b_desc, a_s, b_s, ready, empty, M, N, K, True))],
                       [1], [24])  # fmt: skip
    _ring_done(ready, empty)


# --- the ops, each checked against torch ------------------------------------------------------

# (M, N, K): a square one and a ragged one (M and N not multiples of the tiles: TMA clips)
SHAPES = ((1024, 1024, 1024), (1000, 520, 264))


def _operands(torch: Any, shape: tuple[int, int, int], dtype: Any) -> tuple[Any, Any, Any]:
    """A (M x K), B (N x K) scaled so that C's entries are about N(0, 1), and the fp32
    reference A @ B^T of the same rounded inputs."""
    m, n, k = shape
    a = (torch.randn(m, k, device="cuda") * k**-0.25).to(dtype)
    b = (torch.randn(n, k, device="cuda") * k**-0.25).to(dtype)
    return a, b, a.float() @ b.float().T


def _tol(torch: Any, ref: Any, dtype: Any) -> float:
    """A few units in the last place of the output type at the reference's largest entry: a
    tile read stale or half-written is off by about the entries themselves."""
    eps = 2.0**-10 if dtype == torch.float16 else 2.0**-7
    return 4 * eps * float(ref.abs().max())


def _dt(torch: Any) -> dict[str, Any]:
    return {"fp16": torch.float16, "bf16": torch.bfloat16}


def triton_ops(torch: Any, check: Any) -> None:
    from triton.tools.tensor_descriptor import TensorDescriptor

    torch.manual_seed(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # The device-side descriptors' tensor maps are written to global scratch from here.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))  # fmt: skip

    def persistent(dt: str, shape: tuple, bm: int, bn: int, bk: int, stages: int, warps: int,
                   ws: bool) -> list:  # fmt: skip
        dtype = _dt(torch)[dt]
        a, b, ref = _operands(torch, shape, dtype)
        m, n, k = shape
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        ad = TensorDescriptor.from_tensor(a, [bm, bk])
        bd = TensorDescriptor.from_tensor(b, [bn, bk])
        tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
        grid = (min(sms, tiles),)
        if ws:
            mm_persistent_ws[grid](ad, bd, c, m, n, k, GROUP_M=8, NUM_SMS=sms, STAGES=stages,
                                   num_warps=warps)  # fmt: skip
        else:
            cd = TensorDescriptor.from_tensor(c, [bm, bn])
            mm_persistent[grid](ad, bd, cd, m, n, k, GROUP_M=8, NUM_SMS=sms, STAGES=stages,
                                num_warps=warps)  # fmt: skip
        return [("c", c, ref, _tol(torch, ref, dtype))]

    def device_desc(dt: str, shape: tuple, bm: int, bn: int, bk: int, stages: int, warps: int,
                    ws: bool) -> list:  # fmt: skip
        dtype = _dt(torch)[dt]
        a, b, ref = _operands(torch, shape, dtype)
        m, n, k = shape
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
        mm_device_desc[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, STAGES=stages, WS=ws,
                             num_warps=warps)  # fmt: skip
        return [("c", c, ref, _tol(torch, ref, dtype))]

    def attention(dt: str, causal: bool, ws: bool, warps: int, stages: int) -> list:
        dtype = _dt(torch)[dt]
        bh, t, hd = 8, 1024, 64
        q, k, v = (torch.randn(bh, t, hd, device="cuda").to(dtype) for _ in range(3))
        o = torch.empty_like(q)
        attn_fwd[(t // 128, bh)](q, k, v, o, t, hd**-0.5, HD=hd, BM=128, BN=64, STAGES=stages,
                                 WS=ws, CAUSAL=causal, num_warps=warps)  # fmt: skip
        ref = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=causal)  # fmt: skip
        return [("o", o, ref, 0.02 if dtype == torch.float16 else 0.05)]

    for dt in ("fp16", "bf16"):
        for shape in SHAPES:
            s = "x".join(map(str, shape))
            for bm, bn, bk, stages, warps in ((128, 128, 64, 3, 8), (128, 256, 64, 3, 8),
                                              (128, 128, 64, 4, 8)):  # fmt: skip
                check(f"triton.mm_persistent.{dt}.{s}.{bm}x{bn}x{bk}.s{stages}",
                      partial(persistent, dt, shape, bm, bn, bk, stages, warps, False))  # fmt: skip
            for stages in (2, 3):
                check(f"triton.mm_persistent_ws.{dt}.{s}.128x128x64.s{stages}",
                      partial(persistent, dt, shape, 128, 128, 64, stages, 4, True))  # fmt: skip
            for stages, warps, ws in ((4, 8, False), (3, 4, True)):
                name = "mm_device_desc_ws" if ws else "mm_device_desc"
                check(f"triton.{name}.{dt}.{s}.128x128x64.s{stages}",
                      partial(device_desc, dt, shape, 128, 128, 64, stages, warps, ws))  # fmt: skip
        for causal in (False, True):
            for ws, warps, stages in ((False, 4, 3), (True, 4, 3), (False, 8, 2)):
                check(f"triton.attn_fwd{'_ws' if ws else ''}.{dt}.causal{int(causal)}.w{warps}",
                      partial(attention, dt, causal, ws, warps, stages))  # fmt: skip


# (kernel, BM, BN, BK, stages)
GLUON_CONFIGS = (
    ("gl_mm_ring", 128, 128, 64, 3),
    ("gl_mm_ring", 128, 256, 64, 3),
    ("gl_mm_ring", 64, 128, 64, 4),
    ("gl_mm_ws", 128, 128, 64, 3),
    ("gl_mm_ws", 128, 128, 64, 4),
    ("gl_mm_ws_persistent", 128, 128, 64, 3),
    ("gl_mm_ws_persistent", 128, 256, 64, 3),
)


def gluon_ops(torch: Any, check: Any) -> None:
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    torch.manual_seed(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count

    def desc(t: Any, block: list[int]) -> Any:
        gdt = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}[t.dtype]
        layout = gl.NVMMASharedLayout.get_default_for(block, gdt)
        return TensorDescriptor.from_tensor(t, block, layout)

    def run(kernel: str, dt: str, shape: tuple, bm: int, bn: int, bk: int, stages: int) -> list:
        dtype = _dt(torch)[dt]
        a, b, ref = _operands(torch, shape, dtype)
        m, n, k = shape
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        ad, bd, cd = desc(a, [bm, bk]), desc(b, [bn, bk]), desc(c, [bm, bn])
        grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
        if kernel == "gl_mm_ring":
            gl_mm_ring[grid](ad, bd, cd, k, STAGES=stages, num_warps=4)
        elif kernel == "gl_mm_ws":
            gl_mm_ws[grid](ad, bd, cd, m, n, k, STAGES=stages, num_warps=4)
        else:
            tiles = grid[0] * grid[1]
            gl_mm_ws_persistent[(min(sms, tiles),)](ad, bd, cd, m, n, k, STAGES=stages,
                                                    num_warps=4)  # fmt: skip
        return [("c", c, ref, _tol(torch, ref, dtype))]

    for dt in ("fp16", "bf16"):
        for shape in SHAPES:
            s = "x".join(map(str, shape))
            for kernel, bm, bn, bk, stages in GLUON_CONFIGS:
                check(f"gluon.{kernel}.{dt}.{s}.{bm}x{bn}x{bk}.s{stages}",
                      partial(run, kernel, dt, shape, bm, bn, bk, stages))  # fmt: skip


INDUCTOR_FLAGS = ("enable_persistent_tma_matmul",)


def inductor_ops(torch: Any, check: Any, flags: dict[str, Any]) -> None:
    """Inductor's max-autotune matmul templates (the persistent TMA one switched on) and
    flex_attention; the Inductor flags found and set go into ``flags`` (for ops.json)."""
    import torch._inductor.config as cfg
    import torch.nn.functional as F

    cfg.max_autotune_gemm_backends = "TRITON"
    cfg.force_disable_caches = True  # every kernel compiled here, into this cache
    for name in INDUCTOR_FLAGS:
        if hasattr(cfg.triton, name):
            setattr(cfg.triton, name, True)
            flags[name] = True
        else:
            flags[name] = "absent"
    flags["tma_like"] = {k: getattr(cfg.triton, k) for k in dir(cfg.triton)
                         if ("tma" in k or "persistent" in k) and not k.startswith("_")
                         and isinstance(getattr(cfg.triton, k), (bool, int, str))}  # fmt: skip
    torch.manual_seed(0)
    dev = "cuda"

    def mm(shape: tuple, dt: str, kind: str) -> list:
        dtype = _dt(torch)[dt]
        m, n, k = shape
        a = (torch.randn(m, k, device=dev) * k**-0.25).to(dtype)
        b = (torch.randn(k, n, device=dev) * k**-0.25).to(dtype)
        bias = torch.randn(n, device=dev).to(dtype)
        fns = {"mm": lambda x, y, z: x @ y,
               "addmm": lambda x, y, z: torch.addmm(z, x, y),
               "mm_relu": lambda x, y, z: torch.relu(x @ y) * 2}  # fmt: skip
        fn = fns[kind]
        got = torch.compile(fn, mode="max-autotune-no-cudagraphs", dynamic=False)(a, b, bias)
        ref = fn(a.float(), b.float(), bias.float())
        return [("y", got, ref, _tol(torch, ref, dtype))]

    def flex(dt: str, shape: tuple, mask: bool, opts: dict | None) -> list:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        dtype = _dt(torch)[dt]
        b, h, t, d = shape

        def causal(score: Any, bi: Any, hi: Any, qi: Any, ki: Any) -> Any:
            return torch.where(qi >= ki, score, -float("inf"))

        def causal_mask(bi: Any, hi: Any, qi: Any, ki: Any) -> Any:
            return qi >= ki

        q, k, v = (torch.randn(shape, device=dev, dtype=dtype, requires_grad=True)
                   for _ in range(3))  # fmt: skip
        kw: dict[str, Any] = {"kernel_options": opts} if opts else {}
        if mask:
            kw["block_mask"] = create_block_mask(causal_mask, b, h, t, t, device=dev)
        else:
            kw["score_mod"] = causal
        o = torch.compile(flex_attention)(q, k, v, **kw)
        dout = torch.randn_like(o)
        (o.float() * dout.float()).sum().backward()
        got = [o.detach()] + [x.grad.detach().clone() for x in (q, k, v)]
        qf, kf, vf = (x.detach().float().requires_grad_() for x in (q, k, v))
        ro = F.scaled_dot_product_attention(qf, kf, vf, is_causal=True)
        (ro * dout.float()).sum().backward()
        want = [ro.detach()] + [x.grad for x in (qf, kf, vf)]
        tol = 0.05 if dtype == torch.float16 else 0.1
        return [(n, g, w, tol) for n, g, w in zip(("o", "dq", "dk", "dv"), got, want, strict=True)]

    for kind, shape, dt in (("mm", (1024, 1024, 1024), "fp16"),
                            ("addmm", (2048, 512, 1024), "bf16"),
                            ("mm_relu", (768, 1536, 512), "fp16")):  # fmt: skip
        check(f"inductor.{kind}.{dt}.{'x'.join(map(str, shape))}", partial(mm, shape, dt, kind))
    check("inductor.flex_attention.fp16.score_mod",
          partial(flex, "fp16", (2, 4, 512, 64), False, None))  # fmt: skip
    check("inductor.flex_attention.bf16.block_mask",
          partial(flex, "bf16", (1, 8, 1024, 128), True, None))  # fmt: skip
    check("inductor.flex_attention.fp16.block_mask.tma",
          partial(flex, "fp16", (2, 4, 1024, 64), True, {"USE_TMA": True}))  # fmt: skip


# --- capture (the GPU machine) -------------------------------------------------------------


def _stats(cache: Path) -> dict[str, int]:
    """How many kernels of a cache use TMA, wgmma, warp specialization, more than sm_90's
    shared memory."""
    out: Counter[str] = Counter()
    for ttgir in cache.glob("*/*.ttgir"):
        text = ttgir.read_text(errors="replace")
        out["kernels"] += 1
        out["tma"] += any(w in text for w in ("async_tma_copy", "tt.descriptor_", "tensormap"))
        out["wgmma"] += "ttng.warp_group_dot" in text
        out["warp_specialize"] += "ttg.warp_specialize" in text
        meta = ttgir.with_suffix(".json")
        if meta.is_file():
            shared = json.loads(meta.read_text()).get("shared", 0)
            out["over_sm90"] += int(shared) > SM90_LIMIT
    return dict(out)


def _capture_source(source: str, out: Path, budget: float) -> int:
    """One source's ops in this process (its cache is the TRITON_CACHE_DIR it was given); the
    ops so far are written after each one, so a source stopped from outside keeps them."""
    import torch

    from tools.plan.realworld import capture as rw

    if not torch.cuda.is_available():
        print("capture: needs a CUDA GPU", file=sys.stderr)
        return 2
    rw.DEADLINE.append(time.monotonic() + budget)  # ops past it are recorded as skipped
    extra: dict[str, Any] = {}

    def check(name: str, fn: Any) -> None:
        rw.check(name, fn)
        out.write_text(json.dumps({"ops": rw.OPS, **extra}, indent=1) + "\n")

    if source == "inductor":
        extra["inductor_flags"] = {}
        inductor_ops(torch, check, extra["inductor_flags"])
    else:
        {"triton": triton_ops, "gluon": gluon_ops}[source](torch, check)
    out.write_text(json.dumps({"ops": rw.OPS, **extra}, indent=1) + "\n")
    return 0


def capture(out: Path, only: list[str], limit: float) -> int:
    """Every source at once, each in a process of its own; a source still running after
    ``limit`` seconds is stopped (what it compiled and checked so far is kept)."""
    import torch

    deadline = time.monotonic() + limit

    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="hopper-corpus-"))
    procs = {}
    for source in only:  # each source in its own process, cache and Inductor cache, at once
        env = dict(os.environ, TRITON_CACHE_DIR=str(work / source / "cache"),
                   TORCHINDUCTOR_CACHE_DIR=str(work / source / "inductor"),
                   PYTHONUNBUFFERED="1")  # fmt: skip
        (work / source).mkdir(parents=True)
        log = open(work / source / "log.txt", "w")  # noqa: SIM115
        cmd = [sys.executable, "-m", "tools.plan.hopper_corpus", "_source", source,
               str(work / source / "ops.json"), "--budget", str(limit - 90)]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        procs[source] = (proc, log)
    from tools.plan.realworld.capture import pack

    doc: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": sys.version.split()[0],
        "sources": {},
    }
    for source, (proc, log) in procs.items():
        try:
            rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        log.close()
        text = (work / source / "log.txt").read_text(errors="replace")
        print(f"--- {source} (exit {rc})\n{text[-6000:]}", flush=True)
        ops_file = work / source / "ops.json"
        ops = json.loads(ops_file.read_text()) if ops_file.is_file() else {"ops": []}
        cache = work / source / "cache"
        kernels = pack(cache, out / f"{source}.tar.xz")
        ran = [o for o in ops["ops"] if "outputs" in o]
        doc["sources"][source] = {
            "exit": rc, "kernels": kernels, "counts": _stats(cache) if cache.is_dir() else {},
            "ops_run": len(ran), "ops_passed": sum(bool(o["ok"]) for o in ran),
            "ops_failed_to_run": len(ops["ops"]) - len(ran), **ops,
        }  # fmt: skip
    (out / "ops.json").write_text(json.dumps(doc, indent=1) + "\n")
    for source, s in doc["sources"].items():
        print(f"{source}: {s['kernels']} kernels {s['counts']}; {s['ops_passed']} of "
              f"{s['ops_run']} ops within tolerance, {s['ops_failed_to_run']} did not "
              "run")  # fmt: skip
    return 0


# --- judging (here, on the CPU) --------------------------------------------------------------


def judge(roots: list[Path], jobs: int | None, timeout: float) -> dict[str, dict[str, Any]]:
    """Every kernel under the roots (one folder per source) judged as ``alias-spec plan DIR``
    does, without and with ``--races``: ``source/folder`` -> {kernel, metadata, plan: row,
    races: row}."""
    from alias_spec.plan import batch

    found = [(root.name, k) for root in roots for k in batch.find_kernels(root)]
    rows: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        stream = batch.judge_kernels([k for _, k in found], jobs, None, timeout, mode == "races")
        for done, (index, verdict) in enumerate(stream, 1):
            key = f"{found[index][0]}/{Path(verdict.file).parent.name}"
            row = rows.setdefault(key, {"kernel": verdict.kernel, **verdict.meta})
            row[mode] = verdict_row(verdict)
            said = row[mode].get("findings") or row[mode].get("reasons") or [""]
            print(f"[{mode} {done}/{len(found)}] {key} {verdict.kernel} {verdict.status} "
                  f"{verdict.seconds:.1f}s {said[0]}", flush=True)  # fmt: skip
    return dict(sorted(rows.items()))


MODES = ("plan", "races")  # alias-spec plan DIR, and with --races

# A note's reason: its kind, then the first of these phrases its message has (numbers and
# names vary from kernel to kernel; the phrase says what was not decided).
_WHY = (
    (r"is not followed: ([^;(]+)", None),
    (r"can leave its buffers? ", "an address not bounded to its buffer"),
    (r"pairs of accesses by two warp-specialized partitions", "partitions' order not followed"),
    (r"not decided for their proxy fence", "proxy fence not decided"),
    (r"the ordering of \d+ shared accesses is not judged", "accesses whose order is not judged"),
    (r"its size is not readable", "an access whose size is not readable"),
    (r"box dimension not matched", "a tensor map box not matched to its op"),
    (r"not derived from @global_smem", "an address not derived from global_smem"),
    (r"ran out of time", "ran out of time"),
)


def reason(note: dict[str, Any]) -> str:
    """``kind: why`` of one note of a report."""
    message = str(note.get("message", ""))
    for pattern, label in _WHY:
        m = re.search(pattern, message)
        if m:
            why = label or re.sub(r"\d+", "N", m.group(1)).strip()
            return f"{note.get('kind', '?')}: {why}"
    return f"{note.get('kind', '?')}: {re.sub(r'[0-9]+', 'N', message.split(': ', 1)[-1])[:80]}"


def verdict_row(verdict: Any) -> dict[str, Any]:
    """What the snapshot keeps of one verdict: status, each finding's kind and message, each
    note's reason (``reason``), seconds."""
    row: dict[str, Any] = {"status": verdict.status, "seconds": round(verdict.seconds, 1)}
    if verdict.error is not None:
        row["error"] = verdict.error[:300]
    report = verdict.report or {}
    if report.get("findings"):
        row["findings"] = [f"{f.get('rule')}: {str(f.get('message', ''))[:240]}"
                           for f in report["findings"]]  # fmt: skip
    if report.get("notes"):
        row["reasons"] = sorted({reason(n) for n in report["notes"]})
    return row


def summary(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per mode: statuses (all, per source), the decided fraction (clean or findings), the
    kernels with each note reason and with each finding kind."""
    out: dict[str, Any] = {"kernels": len(rows)}
    for mode in MODES:
        mine = {k: r[mode] for k, r in rows.items()}
        status = Counter(r["status"] for r in mine.values())
        out[mode] = {
            "status": dict(status),
            "by_source": {s: dict(Counter(r["status"] for k, r in mine.items()
                                          if k.split("/")[0] == s))
                          for s in sorted({k.split("/")[0] for k in mine})},
            "decided": round((status["clean"] + status["findings"]) / max(1, len(mine)), 4),
            "partial_kernels_by_reason": dict(Counter(
                x for r in mine.values() if r["status"] == "partial"
                for x in r.get("reasons", [])).most_common()),
            "kernels_by_finding_kind": dict(Counter(
                x for r in mine.values() for x in {f.split(":", 1)[0]
                                                   for f in r.get("findings", [])}).most_common()),
        }  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture", help="run the ops on the GPU and keep their kernels")
    c.add_argument("out", type=Path)
    c.add_argument("--only", nargs="*", choices=SOURCES, default=list(SOURCES))
    c.add_argument("--limit", type=float, default=480.0, help="seconds for all sources")
    s = sub.add_parser("_source")  # one source, in the process capture starts for it
    s.add_argument("source", choices=SOURCES)
    s.add_argument("out", type=Path)
    s.add_argument("--budget", type=float, default=390.0)
    j = sub.add_parser("judge", help="judge unpacked caches, without and with --races")
    j.add_argument("caches", nargs="*", type=Path, help="one folder per source")
    j.add_argument("--corpus", type=Path, help="a folder of <source>.tar.xz to unpack and judge")
    j.add_argument("--jobs", type=int, default=None)
    j.add_argument("--timeout", type=float, default=600.0)
    j.add_argument("--snapshot", type=Path, help="write the verdicts as the test's snapshot")
    args = p.parse_args(argv)
    if args.cmd == "capture":
        return capture(args.out, args.only, args.limit)
    if args.cmd == "_source":
        return _capture_source(args.source, args.out, args.budget)
    t0 = time.monotonic()
    roots = list(args.caches)
    if args.corpus is not None:
        work = Path(tempfile.mkdtemp(prefix="hopper-judge-"))
        for source in SOURCES:
            if (args.corpus / f"{source}.tar.xz").is_file():
                with tarfile.open(args.corpus / f"{source}.tar.xz") as tar:
                    tar.extractall(work / source, filter="data")
                roots.append(work / source)
    if not roots:
        p.error("judge needs cache folders or --corpus")
    rows = judge(roots, args.jobs, args.timeout)
    summ = summary(rows)
    print(json.dumps(summ, indent=1))
    print(f"judged in {time.monotonic() - t0:.0f} s")
    if args.snapshot:
        doc = {"note": "snapshot written by `python -m tools.plan.hopper_corpus judge --snapshot`"
                       "; see tests/plan/test_plan_hopper_corpus.py",
               "summary": summ, "kernels": rows}  # fmt: skip
        args.snapshot.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
