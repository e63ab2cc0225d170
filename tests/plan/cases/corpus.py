"""The no-false-alarm corpus of ``alias-spec plan``: real kernels, compiled for sm_90 by each release.

Written for this project from Triton's tutorials (tiled matmul with 2-4 pipeline stages, the
same matmul through tensor descriptors, the persistent matmul of tutorial 09, fused softmax,
layer norm, attention forward), kernels in the style of the Gluon tutorials (a multi-buffered
TMA + wgmma matmul, a cp.async pipeline, TMA stores, a persistent wgmma matmul, warp-specialized
producer/consumer rings), and kernels with loops and branches that allocate and reuse shared
memory. ``tools/plan/make_corpus.py`` compiles them; every one is a correct kernel, so any finding on it is
a false alarm (or a compiler bug). Each kernel carries its expected verdict per release
(``Expect``; ``expected()`` also covers the call-frame and frontend dumps). The code avoids APIs
that differ between Triton 3.6 and 3.9, or picks the release's name at import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

# Renamed between releases: TMA loads (async_copy_global_to_shared up to 3.7, async_load
# after), the CTA barrier (thread_barrier up to 3.8, barrier after).
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_cta_barrier = getattr(gl, "barrier", None) or gl.thread_barrier
# cp.async and TMA stores were renamed in 3.8 (async_load, async_store); 3.9 drops the old names.
_cp_load = getattr(cp, "async_load", None) or cp.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global


RELEASES = ("3.6", "3.7", "3.8", "3.9")


@dataclass(frozen=True)
class Expect:
    """A kernel's expected verdict on one release. ``why`` is a phrase that the reason must
    contain: the first note of a partial verdict, the finding rule, or the compile error."""

    status: str = "clean"
    why: str = ""


CLEAN = Expect()
# Correct kernels the validator leaves partial today, each for a reason it names (``why`` may
# list alternatives, `` | ``-separated, where releases lower the kernel differently).
# A ring slot addressed across tiles: srem(count, 3) of a k-step count carried over the tile
# loop by a plain (wrapping) add. Only a count that never reaches 2^31 keeps the slot
# non-negative, which no interval of the loops proves (the launch's sizes bound it).
RING = Expect("partial", "not bounded | known only by their bounds")


@dataclass
class Kernel:
    name: str
    fn: Any
    signature: dict[str, str]
    constexprs: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    gluon: bool = False
    family: str = "tutorial"
    # Arguments the launcher would specialize as multiples of 16 (pointers, sizes, strides):
    # what lets the pipeliner issue 16-byte async copies, as it does at run time.
    divisible: tuple[str, ...] = ()
    # The verdict expected on every release, and where a release differs, its own.
    expect: Expect = CLEAN
    expect_on: dict[str, Expect] = field(default_factory=dict)

    def expected(self, release: str) -> Expect:
        return self.expect_on.get(release, self.expect)

    def attrs(self) -> dict[tuple[int, ...], list[list[Any]]]:
        names = list(self.signature)
        return {(names.index(a),): [["tt.divisibility", 16]] for a in self.divisible}


# --- Triton tutorials (triton.language) -------------------------------------------------------


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    per_group = GROUP * grid_n
    first_m = (pid // per_group) * GROUP
    size_m = min(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % per_group) % size_m
    pid_n = (pid % per_group) // size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        x = tl.load(a, mask=rk[None, :] < left, other=0.0)
        y = tl.load(b, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(x, y, acc)
        a += BK * sak
        b += BK * sbk
    c = acc.to(tl.float16)
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, c,
             mask=(cm[:, None] < M) & (cn[None, :] < N))  # fmt: skip


@triton.jit
def matmul_desc_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    """The matmul through device-side tensor descriptors (TMA loads)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = a_desc.load([pid_m * BM, k * BK])
        y = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(x, y, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                   BLOCK: tl.constexpr, STAGES: tl.constexpr):  # fmt: skip
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=STAGES):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps,
                      BLOCK: tl.constexpr):  # fmt: skip
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
        v = tl.where(cols < n, v - mean, 0.0)
        var_acc += v * v
    rstd = 1 / tl.sqrt(tl.sum(var_acc, axis=0) / n + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=mask)


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq, sm_scale,
                         BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):  # fmt: skip
    """Flash attention forward: one query block, online softmax over key/value blocks."""
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * seq * D
    rm = start_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < seq, other=0.0)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    scale = sm_scale * 1.44269504
    for start_n in range(0, seq, BN):
        cols = start_n + rn
        k = tl.load(k_ptr + base + cols[None, :] * D + rd[:, None], mask=cols[None, :] < seq,
                    other=0.0)  # fmt: skip
        s = tl.dot(q, k) * scale
        s = tl.where(cols[None, :] < seq, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + cols[:, None] * D + rd[None, :], mask=cols[:, None] < seq,
                    other=0.0)  # fmt: skip
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], acc.to(tl.float16),
             mask=rm[:, None] < seq)  # fmt: skip


@triton.jit
def branches_kernel(x_ptr, y_ptr, n, flag, BLOCK: tl.constexpr):
    """Loops and branches around reductions, scans and transposes (all through scratch)."""
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    i = 0
    while i < n:
        x = tl.load(x_ptr + i * BLOCK + offs)
        if flag > 0:
            total += tl.cumsum(x, axis=0)
        else:
            total += tl.max(x, axis=0)
        i += 1
    t2 = tl.reshape(total, [BLOCK // 32, 32])
    t2 = tl.trans(t2)
    tl.store(y_ptr + tl.arange(0, 32)[:, None] * (BLOCK // 32)
             + tl.arange(0, BLOCK // 32)[None, :], t2)  # fmt: skip


@triton.jit
def _tile_coords(tile, grid_m, grid_n, GROUP: tl.constexpr):
    """Grouped tile order (GROUP rows of tiles at a time), as the tutorial's L2 swizzle."""
    per_group = GROUP * grid_n
    first_m = (tile // per_group) * GROUP
    size_m = min(grid_m - first_m, GROUP)
    return first_m + (tile % per_group) % size_m, (tile % per_group) // size_m


@triton.jit
def persistent_matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
    NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr,
):  # fmt: skip
    """A persistent grid: each program walks the tiles start, start + NUM_SMS, ...; the k loop
    inside is pipelined (and, with FLATTEN, fused with the tile loop)."""
    start = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    n_k = tl.cdiv(K, BK)
    for tile in tl.range(start, grid_m * grid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = _tile_coords(tile, grid_m, grid_n, GROUP)
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(n_k):
            rk = k * BK + tl.arange(0, BK)
            x = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=rk[None, :] < K,
                        other=0.0)  # fmt: skip
            y = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=rk[:, None] < K,
                        other=0.0)  # fmt: skip
            acc = tl.dot(x, y, acc)
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(tl.float16),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))  # fmt: skip


@triton.jit
def persistent_matmul_desc_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
    NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr, WARP_SPECIALIZE: tl.constexpr,
    SPLIT_EPILOGUE: tl.constexpr,
):  # fmt: skip
    """The persistent matmul through device-side tensor descriptors; the epilogue optionally
    stores the tile as two halves (split columns), as the tutorial's subtiled epilogue."""
    start = tl.program_id(0)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    if SPLIT_EPILOGUE:
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN // 2])
    else:
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    n_k = tl.cdiv(K, BK)
    for tile in tl.range(start, grid_m * grid_n, NUM_SMS, flatten=FLATTEN,
                         warp_specialize=WARP_SPECIALIZE):  # fmt: skip
        pid_m, pid_n = _tile_coords(tile, grid_m, grid_n, GROUP)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(n_k):
            x = a_desc.load([pid_m * BM, k * BK])
            y = b_desc.load([k * BK, pid_n * BN])
            acc = tl.dot(x, y, acc)
        if SPLIT_EPILOGUE:
            halves = tl.reshape(acc, (BM, 2, BN // 2))
            left, right = tl.split(tl.permute(halves, (0, 2, 1)))
            c_desc.store([pid_m * BM, pid_n * BN], left.to(tl.float16))
            c_desc.store([pid_m * BM, pid_n * BN + BN // 2], right.to(tl.float16))
        else:
            c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


# --- Gluon ------------------------------------------------------------------------------------


@gluon.jit
def gl_tma_wgmma_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                        BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                        STAGES: gl.constexpr):  # fmt: skip
    """A multi-buffered TMA + async wgmma matmul: STAGES slots, one mbarrier each."""
    a_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    b_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BK, BN], gl.float16)
    acc_lay: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                      instr_shape=[16, BN, 16])  # fmt: skip
    a_desc = tma.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK], a_lay)
    b_desc = tma.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN], b_lay)
    a_s = gl.allocate_shared_memory(gl.float16, [STAGES, BM, BK], a_lay)
    b_s = gl.allocate_shared_memory(gl.float16, [STAGES, BK, BN], b_lay)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN
    nbytes: gl.constexpr = (BM * BK + BK * BN) * 2
    n_k = gl.cdiv(K, BK)
    for s in gl.static_range(STAGES - 1):
        mbarrier.expect(bars.index(s), nbytes)
        _tma_load(a_desc, [off_m, s * BK], bars.index(s), a_s.index(s))
        _tma_load(b_desc, [s * BK, off_n], bars.index(s), b_s.index(s))
    acc = gl.zeros([BM, BN], gl.float32, acc_lay)
    for k in range(n_k):
        slot = k % STAGES
        mbarrier.wait(bars.index(slot), (k // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot), acc, is_async=True)
        acc = hopper.warpgroup_mma_wait(0, deps=[acc])
        nxt = k + STAGES - 1
        nslot = nxt % STAGES
        pred = nxt < n_k
        mbarrier.expect(bars.index(nslot), nbytes, pred=pred)
        _tma_load(a_desc, [off_m, nxt * BK], bars.index(nslot), a_s.index(nslot), pred=pred)
        _tma_load(b_desc, [nxt * BK, off_n], bars.index(nslot), b_s.index(nslot), pred=pred)
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))
    out_lay: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    c = gl.convert_layout(acc.to(gl.float16), out_lay)
    rm = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, out_lay))
    rn = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, out_lay))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@gluon.jit
def _ws_consumer(ring, full, empty, out_ptr, n, BLOCK: gl.constexpr, SLOTS: gl.constexpr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, BLOCK, layout=lay)
    acc = gl.zeros([BLOCK], gl.float32, lay)
    for i in range(n):
        slot = i % SLOTS
        mbarrier.wait(full.index(slot), (i // SLOTS) & 1)
        acc += ring.index(slot).load(lay)
        mbarrier.arrive(empty.index(slot), count=1)
    gl.store(out_ptr + offs, acc + gl.sum(acc, axis=0))


@gluon.jit
def _ws_producer(ring, full, empty, in_ptr, n, BLOCK: gl.constexpr, SLOTS: gl.constexpr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    offs = gl.arange(0, BLOCK, layout=lay)
    for i in range(n):
        slot = i % SLOTS
        mbarrier.wait(empty.index(slot), ((i // SLOTS) & 1) ^ 1)
        ring.index(slot).store(gl.load(in_ptr + i * BLOCK + offs))
        mbarrier.arrive(full.index(slot), count=1)


@gluon.jit
def gl_warp_specialized(in_ptr, out_ptr, n, BLOCK: gl.constexpr, SLOTS: gl.constexpr):
    """A producer partition fills a ring of shared slots; the default partition consumes it."""
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    ring = gl.allocate_shared_memory(gl.float32, [SLOTS, BLOCK], plain)
    full = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(SLOTS):
        mbarrier.init(full.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    gl.warp_specialize(
        [
            (_ws_consumer, (ring, full, empty, out_ptr, n, BLOCK, SLOTS)),
            (_ws_producer, (ring, full, empty, in_ptr, n, BLOCK, SLOTS)),
        ],
        [1],
        [24],
    )


@gluon.jit
def gl_scratch_loop(x_ptr, y_ptr, n, BLOCK: gl.constexpr):
    """Two buffers, one reused in a loop with a branch; reductions and layout conversions
    (scratch) between their uses."""
    a: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    b: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
    plain: gl.constexpr = gl.SwizzledSharedLayout(4, 2, 4, [1, 0])
    rows = gl.arange(0, BLOCK, layout=gl.SliceLayout(1, a))
    cols = gl.arange(0, BLOCK, layout=gl.SliceLayout(0, a))
    ptrs = x_ptr + rows[:, None] * BLOCK + cols[None, :]
    keep = gl.allocate_shared_memory(gl.float32, [BLOCK, BLOCK], plain)
    keep.store(gl.load(ptrs))
    acc = gl.zeros([BLOCK, BLOCK], gl.float32, b)
    for i in range(n):
        t = gl.load(ptrs + i)
        if i % 2 == 0:
            tmp = gl.allocate_shared_memory(gl.float32, [BLOCK, BLOCK], plain, t)
            acc += tmp.load(b)
        else:
            acc += gl.convert_layout(t, b) + gl.max(gl.convert_layout(t, b), axis=0)[None, :]
    _cta_barrier()
    out = gl.convert_layout(acc, a) + keep.load(a)
    gl.store(y_ptr + rows[:, None] * BLOCK + cols[None, :], out)


@gluon.jit
def gl_async_copy_pipeline(a_ptr, b_ptr, c_ptr, rows, cols, stride,
                           BR: gl.constexpr, BC: gl.constexpr, STAGES: gl.constexpr):  # fmt: skip
    """c = a * b + a, one row block per program, column blocks streamed through a ring of
    STAGES cp.async slots per operand (one commit group per block, STAGES - 1 in flight)."""
    lay: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    r = gl.program_id(0) * BR + gl.arange(0, BR, layout=gl.SliceLayout(1, lay))
    c0 = gl.arange(0, BC, layout=gl.SliceLayout(0, lay))
    row_ok = (r < rows)[:, None]
    a_s = gl.allocate_shared_memory(gl.float32, [STAGES, BR, BC], plain)
    b_s = gl.allocate_shared_memory(gl.float32, [STAGES, BR, BC], plain)
    n = gl.cdiv(cols, BC)
    for j in gl.static_range(STAGES - 1):
        cc = j * BC + c0
        ok = row_ok & (cc < cols)[None, :]
        _cp_load(a_s.index(j), a_ptr + r[:, None] * stride + cc[None, :], mask=ok)
        _cp_load(b_s.index(j), b_ptr + r[:, None] * stride + cc[None, :], mask=ok)
        cp.commit_group()
    for i in range(n):
        # Refill the slot consumed one iteration ago; past the end the copy is masked off but
        # still committed, so that wait_group(STAGES - 1) always names block i.
        nxt = i + STAGES - 1
        cc = nxt * BC + c0
        ok = row_ok & (cc < cols)[None, :]
        _cp_load(a_s.index(nxt % STAGES), a_ptr + r[:, None] * stride + cc[None, :], mask=ok)
        _cp_load(b_s.index(nxt % STAGES), b_ptr + r[:, None] * stride + cc[None, :], mask=ok)
        cp.commit_group()
        cp.wait_group(STAGES - 1)
        x = a_s.index(i % STAGES).load(lay)
        y = b_s.index(i % STAGES).load(lay)
        cc = i * BC + c0
        gl.store(c_ptr + r[:, None] * stride + cc[None, :], x * y + x,
                 mask=row_ok & (cc < cols)[None, :])  # fmt: skip
    cp.wait_group(0)


@gluon.jit
def gl_tma_store(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr,
                 OUT_BUFS: gl.constexpr):  # fmt: skip
    """y = 2x + 1 over a column strip: each tile comes in by TMA (one mbarrier, its phase
    flipping per tile) and goes out by a TMA store from a ring of OUT_BUFS slots; store_wait
    keeps at most OUT_BUFS - 1 stores reading shared memory when a slot is rewritten."""
    smem: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float16)
    lay: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    x_desc = tma.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], smem)
    y_desc = tma.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN], smem)
    in_s = gl.allocate_shared_memory(gl.float16, [BM, BN], smem)
    out_s = gl.allocate_shared_memory(gl.float16, [OUT_BUFS, BM, BN], smem)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    off_n = gl.program_id(0) * BN
    for i in range(gl.cdiv(M, BM)):
        mbarrier.expect(bar, BM * BN * 2)
        _tma_load(x_desc, [i * BM, off_n], bar, in_s)
        mbarrier.wait(bar, i & 1)
        x = in_s.load(lay)
        tma.store_wait(OUT_BUFS - 1)
        slot = out_s.index(i % OUT_BUFS)
        slot.store(x * 2.0 + 1.0)
        hopper.fence_async_shared()
        _tma_store(y_desc, [i * BM, off_n], slot)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


@gluon.jit
def gl_persistent_wgmma(a_ptr, b_ptr, c_ptr, M, N, K,
                        BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                        STAGES: gl.constexpr, NUM_SMS: gl.constexpr):  # fmt: skip
    """A persistent TMA + wgmma matmul: the load ring's slot and phase count k steps across
    tiles (so the barriers stay in step), and each tile leaves by a TMA store from one
    epilogue buffer, waited for before the next tile rewrites it."""
    a_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    b_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BK, BN], gl.float16)
    c_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float16)
    acc_lay: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                      instr_shape=[16, BN, 16])  # fmt: skip
    a_desc = tma.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK], a_lay)
    b_desc = tma.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN], b_lay)
    c_desc = tma.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN], c_lay)
    a_s = gl.allocate_shared_memory(gl.float16, [STAGES, BM, BK], a_lay)
    b_s = gl.allocate_shared_memory(gl.float16, [STAGES, BK, BN], b_lay)
    c_s = gl.allocate_shared_memory(gl.float16, [BM, BN], c_lay)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    nbytes: gl.constexpr = (BM * BK + BK * BN) * 2
    grid_n = gl.cdiv(N, BN)
    n_k = gl.cdiv(K, BK)
    base = 0
    for tile in range(gl.program_id(0), gl.cdiv(M, BM) * grid_n, NUM_SMS):
        off_m = (tile // grid_n) * BM
        off_n = (tile % grid_n) * BN
        for s in gl.static_range(STAGES - 1):
            slot = (base + s) % STAGES
            pred = s < n_k
            mbarrier.expect(bars.index(slot), nbytes, pred=pred)
            _tma_load(a_desc, [off_m, s * BK], bars.index(slot), a_s.index(slot), pred=pred)
            _tma_load(b_desc, [s * BK, off_n], bars.index(slot), b_s.index(slot), pred=pred)
        acc = gl.zeros([BM, BN], gl.float32, acc_lay)
        for k in range(n_k):
            step = base + k
            slot = step % STAGES
            mbarrier.wait(bars.index(slot), (step // STAGES) & 1)
            acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot), acc, is_async=True)
            acc = hopper.warpgroup_mma_wait(0, deps=[acc])
            nk = k + STAGES - 1
            nslot = (base + nk) % STAGES
            pred = nk < n_k
            mbarrier.expect(bars.index(nslot), nbytes, pred=pred)
            _tma_load(a_desc, [off_m, nk * BK], bars.index(nslot), a_s.index(nslot), pred=pred)
            _tma_load(b_desc, [nk * BK, off_n], bars.index(nslot), b_s.index(nslot), pred=pred)
        base += n_k
        tma.store_wait(0)
        c_s.store(acc.to(gl.float16))
        hopper.fence_async_shared()
        _tma_store(c_desc, [off_m, off_n], c_s)
    tma.store_wait(0)
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))


@gluon.jit
def _wsmm_mma(a_s, b_s, ready, empty, c_ptr, N, n_k, off_m, off_n,
              BM: gl.constexpr, BN: gl.constexpr, STAGES: gl.constexpr):  # fmt: skip
    acc_lay: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                      instr_shape=[16, BN, 16])  # fmt: skip
    acc = gl.zeros([BM, BN], gl.float32, acc_lay)
    for k in range(n_k):
        slot = k % STAGES
        mbarrier.wait(ready.index(slot), (k // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot), acc, is_async=True)
        acc = hopper.warpgroup_mma_wait(0, deps=[acc])
        mbarrier.arrive(empty.index(slot), count=1)
    out_lay: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    c = gl.convert_layout(acc.to(gl.float16), out_lay)
    rm = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, out_lay))
    rn = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, out_lay))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@gluon.jit
def _wsmm_load(a_desc, b_desc, a_s, b_s, ready, empty, n_k, off_m, off_n,
               BK: gl.constexpr, STAGES: gl.constexpr, NBYTES: gl.constexpr):  # fmt: skip
    for k in range(n_k):
        slot = k % STAGES
        # The first pass over the ring finds every slot free (the inverted phase).
        mbarrier.wait(empty.index(slot), ((k // STAGES) & 1) ^ 1)
        mbarrier.expect(ready.index(slot), NBYTES)
        _tma_load(a_desc, [off_m, k * BK], ready.index(slot), a_s.index(slot))
        _tma_load(b_desc, [k * BK, off_n], ready.index(slot), b_s.index(slot))


@gluon.jit
def gl_ws_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                 BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, STAGES: gl.constexpr):  # fmt: skip
    """A warp-specialized matmul: a one-warp partition issues the TMA loads into a ring of
    STAGES slots (ready/empty barriers per slot); the default warpgroup runs wgmma on them."""
    a_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    b_lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BK, BN], gl.float16)
    a_desc = tma.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK], a_lay)
    b_desc = tma.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN], b_lay)
    a_s = gl.allocate_shared_memory(gl.float16, [STAGES, BM, BK], a_lay)
    b_s = gl.allocate_shared_memory(gl.float16, [STAGES, BK, BN], b_lay)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN
    n_k = gl.cdiv(K, BK)
    nbytes: gl.constexpr = (BM * BK + BK * BN) * 2
    gl.warp_specialize(
        [
            (_wsmm_mma, (a_s, b_s, ready, empty, c_ptr, N, n_k, off_m, off_n, BM, BN, STAGES)),
            (_wsmm_load, (a_desc, b_desc, a_s, b_s, ready, empty, n_k, off_m, off_n, BK,
                          STAGES, nbytes)),
        ],
        [1],
        [24],
    )  # fmt: skip


# --- a loop's accumulator (false alarms while a loop's results held every iter_arg) ---------


@triton.jit
def int8_gemm_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr):  # fmt: skip
    """An int8 GEMM storing its int32 accumulator: the layout conversion after the loop puts
    its scratch over the dead ring."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
        acc = tl.dot(a, tl.trans(b), acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def scaled_acc_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):  # fmt: skip
    """``acc = tl.dot(a, b, acc * 0.5)``: the accumulator is rewritten every iteration."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc * 0.5)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    """``tl.histogram``: each shared atomic sits behind its bounds branch."""
    h = tl.histogram(tl.load(x_ptr + tl.arange(0, N)), BINS)
    tl.store(out_ptr + tl.arange(0, BINS), h)


@gluon.jit
def gl_ping_pong(x_ptr, out_ptr, n, BLOCK: gl.constexpr):
    """Rows staged through two buffers in turn, summed; a reduction after the loop (its
    scratch may take the buffers' bytes)."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    offs = gl.arange(0, BLOCK, layout=lay)
    bufs = gl.allocate_shared_memory(gl.float32, [2, BLOCK], plain)
    acc = gl.zeros([BLOCK], gl.float32, lay)
    for i in range(n):
        b = bufs.index(i % 2)
        b.store(gl.load(x_ptr + i * BLOCK + offs))
        _cta_barrier()
        acc += b.load(lay)
        _cta_barrier()
    gl.store(out_ptr + offs, acc + gl.sum(acc, axis=0))


def kernels() -> list[Kernel]:
    """The corpus; names are stable (they name the dumps and the table rows)."""
    f16, f32, i32, c = "*fp16", "*fp32", "i32", "constexpr"
    # Unit strides are constants, as the launcher specializes them.
    mm_sig = {"a_ptr": f16, "b_ptr": f16, "c_ptr": f16, "M": i32, "N": i32, "K": i32,
              "sam": i32, "sak": c, "sbk": i32, "sbn": c, "scm": i32, "scn": c,
              "BM": c, "BN": c, "BK": c, "GROUP": c}  # fmt: skip
    mm_div = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm")
    unit = {"sak": 1, "sbn": 1, "scn": 1}
    big = dict(unit, BM=128, BN=128, BK=64, GROUP=8)
    small = dict(unit, BM=64, BN=64, BK=32, GROUP=8)
    out: list[Kernel] = []
    for stages in (2, 3, 4):
        out.append(Kernel(f"matmul_s{stages}", matmul_kernel, mm_sig, big,
                          {"num_warps": 8, "num_stages": stages}, divisible=mm_div))  # fmt: skip
    out.append(Kernel("matmul_s5", matmul_kernel, mm_sig, big,
                      {"num_warps": 8, "num_stages": 5}, divisible=mm_div))  # fmt: skip
    for stages in (2, 3, 4, 5):  # four warps: the epilogue's conversion in vector lanes on 3.9
        out.append(Kernel(f"matmul_w4_s{stages}", matmul_kernel, mm_sig, big,
                          {"num_warps": 4, "num_stages": stages}, divisible=mm_div))  # fmt: skip
    acc_sig = {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32", "K": i32,
               "BM": c, "BN": c, "BK": c}  # fmt: skip
    tile = {"BM": 128, "BN": 128, "BK": 64}
    out.append(Kernel("int8_gemm", int8_gemm_kernel, acc_sig, tile,
                      {"num_warps": 4, "num_stages": 3}, family="loops",
                      divisible=("a_ptr", "b_ptr", "c_ptr", "K")))  # fmt: skip
    out.append(Kernel("scaled_acc", scaled_acc_kernel,
                      dict(acc_sig, a_ptr=f16, b_ptr=f16, c_ptr=f16), tile,
                      {"num_warps": 4, "num_stages": 3}, family="loops",
                      divisible=("a_ptr", "b_ptr", "c_ptr", "K")))  # fmt: skip
    out.append(Kernel("histogram", histogram_kernel,
                      {"x_ptr": "*i32", "out_ptr": "*i32", "N": c, "BINS": c},
                      {"N": 1024, "BINS": 64}, {"num_warps": 4}, family="loops"))  # fmt: skip
    out.append(Kernel("gluon_ping_pong", gl_ping_pong,
                      {"x_ptr": f32, "out_ptr": f32, "n": i32, "BLOCK": c}, {"BLOCK": 1024},
                      {"num_warps": 4}, gluon=True, family="loops"))  # fmt: skip
    for stages in (2, 3, 4):  # two warps: mma.sync from ldmatrix, not wgmma
        out.append(Kernel(f"matmul_mma2_s{stages}", matmul_kernel, mm_sig, small,
                          {"num_warps": 2, "num_stages": stages}, divisible=mm_div))  # fmt: skip
    out.append(Kernel("matmul_small_s3", matmul_kernel, mm_sig, small,
                      {"num_warps": 4, "num_stages": 3}, divisible=mm_div))  # fmt: skip
    desc_sig = {"a_ptr": f16, "b_ptr": f16, "c_ptr": f16, "M": i32, "N": i32, "K": i32,
                "BM": c, "BN": c, "BK": c}  # fmt: skip
    desc_div = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K")
    out.append(Kernel("matmul_desc_s3", matmul_desc_kernel, desc_sig,
                      {"BM": 128, "BN": 128, "BK": 64}, {"num_warps": 4, "num_stages": 3},
                      divisible=desc_div))  # fmt: skip
    out.append(Kernel("softmax", softmax_kernel,
                      {"out_ptr": f32, "in_ptr": f32, "in_stride": i32, "out_stride": i32,
                       "n_rows": i32, "n_cols": i32, "BLOCK": c, "STAGES": c},
                      {"BLOCK": 1024, "STAGES": 2}, {"num_warps": 8},
                      divisible=("out_ptr", "in_ptr", "in_stride", "out_stride")))  # fmt: skip
    out.append(Kernel("layer_norm", layer_norm_kernel,
                      {"x_ptr": f16, "y_ptr": f16, "w_ptr": f32, "b_ptr": f32,
                       "mean_ptr": f32, "rstd_ptr": f32, "stride": i32, "n": i32, "eps": "fp32",
                       "BLOCK": c}, {"BLOCK": 1024}, {"num_warps": 8},
                      divisible=("x_ptr", "y_ptr", "w_ptr", "b_ptr", "stride")))  # fmt: skip
    att_sig = {"q_ptr": f16, "k_ptr": f16, "v_ptr": f16, "o_ptr": f16, "seq": i32,
               "sm_scale": "fp32", "BM": c, "BN": c, "D": c}  # fmt: skip
    att_div = ("q_ptr", "k_ptr", "v_ptr", "o_ptr", "seq")
    out.append(Kernel("attention_fwd_d64", attention_fwd_kernel, att_sig,
                      {"BM": 128, "BN": 64, "D": 64}, {"num_warps": 8, "num_stages": 3},
                      divisible=att_div))  # fmt: skip
    out.append(Kernel("attention_fwd_d128", attention_fwd_kernel, att_sig,
                      {"BM": 64, "BN": 64, "D": 128}, {"num_warps": 4, "num_stages": 2},
                      divisible=att_div))  # fmt: skip
    out.append(Kernel("attention_fwd_mma2", attention_fwd_kernel, att_sig,
                      {"BM": 64, "BN": 32, "D": 64}, {"num_warps": 2, "num_stages": 3},
                      divisible=att_div))  # fmt: skip
    out.append(Kernel("branches", branches_kernel,
                      {"x_ptr": f32, "y_ptr": f32, "n": i32, "flag": i32, "BLOCK": c},
                      {"BLOCK": 256}, {"num_warps": 4}, family="loops",
                      divisible=("x_ptr", "y_ptr")))  # fmt: skip
    # Triton's tutorial 09: the persistent matmul through pointers (its tile loop plain and
    # flattened with the k loop) and through tensor descriptors (flattened, with the subtiled
    # epilogue, and with warp_specialize asked of the tile loop: the sm_90 pipeline of these
    # releases keeps it one region). 132 programs, an H200's SM count.
    pm_sig = dict(mm_sig, NUM_SMS=c, FLATTEN=c)
    for flat in (False, True):
        out.append(Kernel("persistent_matmul" + ("_flat" if flat else ""),
                          persistent_matmul_kernel, pm_sig, dict(big, NUM_SMS=132, FLATTEN=flat),
                          {"num_warps": 8, "num_stages": 3}, divisible=mm_div))  # fmt: skip
    pd_sig = dict(desc_sig, GROUP=c, NUM_SMS=c, FLATTEN=c, WARP_SPECIALIZE=c, SPLIT_EPILOGUE=c)
    for name, flat, ws, split in (("persistent_matmul_desc", True, False, False),
                                  ("persistent_matmul_desc_split", True, False, True),
                                  ("persistent_matmul_ws", False, True, False)):  # fmt: skip
        cx = {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "NUM_SMS": 132, "FLATTEN": flat,
              "WARP_SPECIALIZE": ws, "SPLIT_EPILOGUE": split}  # fmt: skip
        out.append(Kernel(name, persistent_matmul_desc_kernel, pd_sig, cx,
                          {"num_warps": 8, "num_stages": 3}, divisible=desc_div,
                          ))  # fmt: skip
    # Gluon: the kernels above it, then ones in the style of the Gluon tutorials (cp.async
    # pipeline, TMA store, persistent wgmma, warp-specialized wgmma).
    gmm_sig = dict(desc_sig, STAGES=c)
    for stages in (2, 3):
        out.append(Kernel(f"gluon_tma_wgmma_s{stages}", gl_tma_wgmma_matmul, gmm_sig,
                          {"BM": 64, "BN": 128, "BK": 64, "STAGES": stages},
                          {"num_warps": 4}, gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_warp_specialized", gl_warp_specialized,
                      {"in_ptr": f32, "out_ptr": f32, "n": i32, "BLOCK": c, "SLOTS": c},
                      {"BLOCK": 128, "SLOTS": 3}, {"num_warps": 4},
                      gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_scratch_loop", gl_scratch_loop,
                      {"x_ptr": f32, "y_ptr": f32, "n": i32, "BLOCK": c},
                      {"BLOCK": 32}, {"num_warps": 4}, gluon=True, family="loops"))  # fmt: skip
    cp_sig = {"a_ptr": f32, "b_ptr": f32, "c_ptr": f32, "rows": i32, "cols": i32,
              "stride": i32, "BR": c, "BC": c, "STAGES": c}  # fmt: skip
    for stages in (2, 3):
        out.append(Kernel(f"gluon_async_copy_s{stages}", gl_async_copy_pipeline, cp_sig,
                          {"BR": 32, "BC": 64, "STAGES": stages}, {"num_warps": 4},
                          gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_tma_store", gl_tma_store,
                      {"x_ptr": f16, "y_ptr": f16, "M": i32, "N": i32, "BM": c, "BN": c,
                       "OUT_BUFS": c}, {"BM": 64, "BN": 64, "OUT_BUFS": 2}, {"num_warps": 4},
                      gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_persistent_wgmma", gl_persistent_wgmma, dict(gmm_sig, NUM_SMS=c),
                      {"BM": 64, "BN": 128, "BK": 64, "STAGES": 3, "NUM_SMS": 132},
                      {"num_warps": 4}, gluon=True, family="gluon", expect=RING))  # fmt: skip
    out.append(Kernel("gluon_ws_matmul", gl_ws_matmul, gmm_sig,
                      {"BM": 64, "BN": 128, "BK": 64, "STAGES": 3}, {"num_warps": 4},
                      gluon=True, family="gluon"))  # fmt: skip
    return out


# The call-frame kernels (``kernels.py``): the bug is flagged where it exists (3.6-3.8).
CALL_EXPECT: dict[str, dict[str, Expect]] = {
    "call_frame": {r: Expect("findings", "lowering.outside") for r in ("3.6", "3.7", "3.8")}
    | {"3.9": CLEAN},
    "call_frame_dead": dict.fromkeys(RELEASES, CLEAN),
    "call_inlined": dict.fromkeys(RELEASES, CLEAN),
}
# Frontend cases (``frontend_<id>``) that the frontend refuses to lower on a release: views that
# release's alias recipes cannot express. Every other frontend case is expected clean.
FRONTEND_REFUSED: dict[str, frozenset[str]] = {
    "3.8": frozenset("c0000 c0016 c0032 c0048 c0080 c0128 c0160 c0208 c0224 c0272 c0288".split()),
    "3.9": frozenset("c0000 c0016 c0032 c0048 c0128 c0160 c0208 c0224 c0272 c0288".split()),
}
REFUSED = Expect("not compiled", "no alias recipe")


def expected(name: str, release: str) -> Expect:
    """The verdict expected of the dump ``<release>/<name>``; KeyError for a name unknown here
    (a dump nobody wrote an expectation for)."""
    if name.startswith("frontend_"):
        refused = name.removeprefix("frontend_") in FRONTEND_REFUSED.get(release, ())
        return REFUSED if refused else CLEAN
    if name in CALL_EXPECT:
        return CALL_EXPECT[name][release]
    return {k.name: k for k in kernels()}[name].expected(release)
