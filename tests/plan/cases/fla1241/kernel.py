"""A kernel with the shared-memory structure of flash-linear-attention's ``chunk_bwd_kernel_dv``.

Modelled on fla's chunk_bwd_kernel_dv, fla-core 0.6.0 (``fla/ops/common/chunk_o.py``), written
for this project: the same loads, masks, block shapes and ``tl.dot`` chain, with the branches
that fla's own callers leave off removed (no gate ``g``/``g_gamma``, fixed-length sequences, the
state ``dh`` stored K-major, as ``chunk_simple_gla``'s backward runs it). fla pull request
#1241 reports an illegal memory access on sm_90 (H100/H20, Triton 3.7.0; compute-sanitizer: an
out-of-range shared or local address at one PC) in fp16/bf16 when K is odd and the K loop has
a masked tail iteration (K > BK=128: 129, 131, 133, 153, 155, 161, 163, 255 fail; 127 and the
even K pass; fp32 passes), and rejects odd K/V for 16-bit inputs since; this project's issue 28
adds wrong gradients on an H200 with Triton 3.6 (memcheck: 0 errors).

Per program: one chunk of BT rows of one head, one block of BV columns of V. Over the K blocks
it accumulates ``A = k @ q^T`` (BT x BT, fp32) and ``dv = k @ dh`` (BT x BV, fp32); then the
causal mask and scale on ``A``, cast to 16 bits, and ``dv += A @ do``. The loads of ``q`` (read
transposed), ``k`` and ``dh`` are masked by ``o_k < K``: with odd K the last block reads
columns past K as zeros, and each head's base offset into ``q``/``k`` (a multiple of odd K) is
known only to be 2-byte aligned, so those loads are not vectorized: the pipeliner leaves them
as register loads stored to shared memory for the wgmma, where with K=154 it fills rings by
cp.async (``dh`` is pipelined by cp.async either way).

``VARIANTS`` are the shapes compiled (``tools/plan/fla1241/compile_fla1241.py``): the failing odd K=153 (Based's
Taylor feature map of a 16-dim feature: 1 + 16 + 136), the controls K=154 (even, two K blocks)
and K=127 (odd, one K block); bf16 ``q``/``k``/``do``/``dv``, fp32 ``dh`` (fla keeps the states
in fp32), BT=64, BK=min(next_pow2(K), 128)=128, V=64 so BV=64, H=4. ``CONFIGS`` is fla's Hopper
autotune space for this kernel (num_warps in 2, 4; num_stages in 2, 3, 4): fla #1241 does not
name the configuration that fails (the autotuner runs all of them), so every one is compiled.
H, V and the batch are not given there either: H=4 and V=64 are this model's choice.
They are compiled for ``GPUTarget("cuda", 90, 32)`` on the CPU, the pointers specialized as
16-byte aligned (as a launch with torch tensors does), ``T`` not specialized (as in fla).
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit(do_not_specialize=["T"])
def chunk_dv_kernel(
    q, k, do, dv, dh, scale, T,
    H: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
    BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr,
):  # fmt: skip
    n_v: tl.constexpr = (V + BV - 1) // BV
    pid = tl.program_id(0).to(tl.int64)
    i_v = pid % n_v
    i_t = pid // n_v
    i_bh = tl.program_id(1).to(tl.int64)
    i_b = i_bh // H
    i_h = i_bh % H
    n_t = tl.cdiv(T, BT)
    i_tg = i_b * n_t + i_t
    bos = i_b * T

    # Per-head bases: q/k rows are H*K apart, do/dv rows H*V, one K x V state per chunk.
    q += (bos * H + i_h) * K
    k += (bos * H + i_h) * K
    do += (bos * H + i_h) * V
    dv += (bos * H + i_h) * V
    dh += (i_tg * H + i_h).to(tl.int64) * K * V

    rows = i_t * BT + tl.arange(0, BT)
    in_t = rows < T
    cols_v = i_v * BV + tl.arange(0, BV)
    in_v = cols_v < V

    acc_dv = tl.zeros([BT, BV], dtype=tl.float32)
    acc_a = tl.zeros([BT, BT], dtype=tl.float32)
    for i_k in range(tl.cdiv(K, BK)):
        cols_k = i_k * BK + tl.arange(0, BK)
        in_k = cols_k < K
        # q read as its transpose (BK x BT), k as it is (BT x BK): masked past K and past T.
        q_t = tl.load(q + cols_k[:, None] + rows[None, :] * (H * K),
                      mask=in_k[:, None] & in_t[None, :], other=0.0)  # fmt: skip
        k_b = tl.load(k + rows[:, None] * (H * K) + cols_k[None, :],
                      mask=in_t[:, None] & in_k[None, :], other=0.0)  # fmt: skip
        acc_a = tl.dot(k_b, q_t, acc_a)
        dh_b = tl.load(dh + cols_k[:, None] * V + cols_v[None, :],
                       mask=in_k[:, None] & in_v[None, :], other=0.0)  # fmt: skip
        acc_dv = tl.dot(k_b, dh_b.to(k_b.dtype), acc_dv)

    causal = (rows[:, None] <= rows[None, :]) & (in_t[:, None] & in_t)
    a16 = tl.where(causal, acc_a * scale, 0).to(do.dtype.element_ty)
    io = rows[:, None] * (H * V) + cols_v[None, :]
    io_mask = in_t[:, None] & in_v[None, :]
    do_b = tl.load(do + io, mask=io_mask, other=0.0)
    acc_dv = tl.dot(a16.to(do_b.dtype), do_b, acc_dv)
    tl.store(dv + io, acc_dv.to(dv.dtype.element_ty), mask=io_mask)


SIGNATURE = {
    "q": "*bf16", "k": "*bf16", "do": "*bf16", "dv": "*bf16", "dh": "*fp32",
    "scale": "fp32", "T": "i32",
    "H": "constexpr", "K": "constexpr", "V": "constexpr",
    "BT": "constexpr", "BK": "constexpr", "BV": "constexpr",
}  # fmt: skip
# The pointers a launch with torch tensors specializes as multiples of 16.
DIVISIBLE = ("q", "k", "do", "dv", "dh")

# name -> K, with what fla#1241 observed for it on the GPU.
VARIANTS = {
    "odd153": 153,  # fails: odd, a masked tail block (128 + 25)
    "even154": 154,  # passes: even, the same two K blocks
    "odd127": 127,  # passes: odd, one K block
}
CONFIGS = tuple((w, s) for w in (2, 4) for s in (2, 3, 4))


def constexprs(K: int) -> dict[str, int]:
    """The launch's constants for head dimension K, chosen as fla's ``chunk_bwd_dv`` chooses
    them on a Hopper GPU (BK, BV capped at 128)."""
    V = 64
    return {"H": 4, "K": K, "V": V, "BT": 64,
            "BK": min(max(triton.next_power_of_2(K), 16), 128),
            "BV": min(max(triton.next_power_of_2(V), 16), 128)}  # fmt: skip
