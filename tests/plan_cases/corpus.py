"""The no-false-alarm corpus of ``alias-spec plan``: real kernels, compiled for sm_90 by each release.

Written for this project from Triton's tutorials (tiled matmul with 2-4 pipeline stages, the
same matmul through tensor descriptors, fused softmax, layer norm, attention forward), Gluon
kernels (a multi-buffered TMA + wgmma matmul, a warp-specialized producer/consumer ring,
layout conversions and reductions through scratch), and kernels with loops and branches that
allocate and reuse shared memory. ``make_corpus.py`` compiles them; every one is a correct
kernel, so any finding on it is a false alarm (or a compiler bug). The code avoids APIs that
differ between Triton 3.6 and 3.9, or picks the release's name at import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

# Renamed between releases: TMA loads (async_copy_global_to_shared up to 3.7, async_load
# after), the CTA barrier (thread_barrier up to 3.8, barrier after).
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_cta_barrier = getattr(gl, "barrier", None) or gl.thread_barrier


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


def kernels() -> list[Kernel]:
    """The corpus; names are stable (they name the dumps and the table rows)."""
    f16, f32, i32 = "*fp16", "*fp32", "i32"
    c = "constexpr"
    # Unit strides are constants, as the launcher specializes them.
    mm_sig = {"a_ptr": f16, "b_ptr": f16, "c_ptr": f16, "M": i32, "N": i32, "K": i32,
              "sam": i32, "sak": c, "sbk": i32, "sbn": c, "scm": i32, "scn": c,
              "BM": c, "BN": c, "BK": c, "GROUP": c}  # fmt: skip
    mm_div = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm")
    out: list[Kernel] = []
    for stages in (2, 3, 4):
        out.append(Kernel(f"matmul_s{stages}", matmul_kernel, mm_sig,
                          {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "sak": 1, "sbn": 1, "scn": 1},
                          {"num_warps": 8, "num_stages": stages}, divisible=mm_div))  # fmt: skip
    for stages in (2, 3, 4):  # two warps: mma.sync from ldmatrix, not wgmma
        out.append(Kernel(f"matmul_mma2_s{stages}", matmul_kernel, mm_sig,
                          {"BM": 64, "BN": 64, "BK": 32, "GROUP": 8, "sak": 1, "sbn": 1, "scn": 1},
                          {"num_warps": 2, "num_stages": stages}, divisible=mm_div))  # fmt: skip
    out.append(Kernel("matmul_small_s3", matmul_kernel, mm_sig,
                      {"BM": 64, "BN": 64, "BK": 32, "GROUP": 8, "sak": 1, "sbn": 1, "scn": 1},
                      {"num_warps": 4, "num_stages": 3}, divisible=mm_div))  # fmt: skip
    out.append(
        Kernel(
            "matmul_desc_s3",
            matmul_desc_kernel,
            {
                "a_ptr": f16,
                "b_ptr": f16,
                "c_ptr": f16,
                "M": i32,
                "N": i32,
                "K": i32,
                "BM": "constexpr",
                "BN": "constexpr",
                "BK": "constexpr",
            },
            {"BM": 128, "BN": 128, "BK": 64},
            {"num_warps": 4, "num_stages": 3},
            divisible=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
        )
    )
    out.append(Kernel("softmax", softmax_kernel,
                      {"out_ptr": f32, "in_ptr": f32, "in_stride": i32, "out_stride": i32,
                       "n_rows": i32, "n_cols": i32, "BLOCK": "constexpr", "STAGES": "constexpr"},
                      {"BLOCK": 1024, "STAGES": 2}, {"num_warps": 8},
                      divisible=("out_ptr", "in_ptr", "in_stride", "out_stride")))  # fmt: skip
    out.append(Kernel("layer_norm", layer_norm_kernel,
                      {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": f32, "b_ptr": f32,
                       "mean_ptr": f32, "rstd_ptr": f32, "stride": i32, "n": i32, "eps": "fp32",
                       "BLOCK": "constexpr"}, {"BLOCK": 1024}, {"num_warps": 8},
                      divisible=("x_ptr", "y_ptr", "w_ptr", "b_ptr", "stride")))  # fmt: skip
    att_sig = {
        "q_ptr": f16,
        "k_ptr": f16,
        "v_ptr": f16,
        "o_ptr": f16,
        "seq": i32,
        "sm_scale": "fp32",
        "BM": "constexpr",
        "BN": "constexpr",
        "D": "constexpr",
    }
    att_div = ("q_ptr", "k_ptr", "v_ptr", "o_ptr", "seq")
    out.append(
        Kernel(
            "attention_fwd_d64",
            attention_fwd_kernel,
            att_sig,
            {"BM": 128, "BN": 64, "D": 64},
            {"num_warps": 8, "num_stages": 3},
            divisible=att_div,
        )
    )
    out.append(
        Kernel(
            "attention_fwd_d128",
            attention_fwd_kernel,
            att_sig,
            {"BM": 64, "BN": 64, "D": 128},
            {"num_warps": 4, "num_stages": 2},
            divisible=att_div,
        )
    )
    out.append(Kernel("attention_fwd_mma2", attention_fwd_kernel, att_sig,
                      {"BM": 64, "BN": 32, "D": 64}, {"num_warps": 2, "num_stages": 3},
                      divisible=att_div))  # fmt: skip
    out.append(Kernel("branches", branches_kernel,
                      {"x_ptr": f32, "y_ptr": f32, "n": i32, "flag": i32, "BLOCK": "constexpr"},
                      {"BLOCK": 256}, {"num_warps": 4}, family="loops", divisible=("x_ptr", "y_ptr")))  # fmt: skip
    for stages in (2, 3):
        out.append(Kernel(f"gluon_tma_wgmma_s{stages}", gl_tma_wgmma_matmul,
                          {"a_ptr": f16, "b_ptr": f16, "c_ptr": f16, "M": i32, "N": i32,
                           "K": i32, "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
                           "STAGES": "constexpr"},
                          {"BM": 64, "BN": 128, "BK": 64, "STAGES": stages},
                          {"num_warps": 4}, gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_warp_specialized", gl_warp_specialized,
                      {"in_ptr": f32, "out_ptr": f32, "n": i32, "BLOCK": "constexpr",
                       "SLOTS": "constexpr"}, {"BLOCK": 128, "SLOTS": 3}, {"num_warps": 4},
                      gluon=True, family="gluon"))  # fmt: skip
    out.append(Kernel("gluon_scratch_loop", gl_scratch_loop,
                      {"x_ptr": f32, "y_ptr": f32, "n": i32, "BLOCK": "constexpr"},
                      {"BLOCK": 32}, {"num_warps": 4}, gluon=True, family="loops"))  # fmt: skip
    return out
