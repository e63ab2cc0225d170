"""Flash-attention forward on Hopper, its output tile over the Q tile and the K and V rings.

The attention counterpart of ``reuse_matmul.py``: one Gluon kernel, three ways to get its
shared memory, chosen by the constexpr ``MODE``:

- ``"planned"``: the reuse planner places Q and the K and V rings (in use in the mainloop) and
  the O tile (in use in the epilogue) in one allocation (``tle.gpu.alloc_reuse``); O lands on
  the mainloop's bytes.
- ``"upfront"``: four allocations made at the kernel's start.
- ``"late"``: the O tile allocated after the mainloop, where Triton's own allocator may reuse
  the mainloop's bytes by liveness.

Q, K, V and O are bf16, ``[batch * heads * seq_len, D]`` row-major, each head's rows
contiguous; ``seq_len`` must be a multiple of ``BLOCK_M`` and of the K/V block, so no tile
crosses a head. One CTA (one warpgroup, 4 warps) takes ``BLOCK_M`` query rows of one head:
S = Q K^T and O += P V by wgmma, P in registers as the second wgmma's A operand, the softmax
online in fp32 (non-causal). The program orders the phases: all wgmma retired, then a CTA
barrier, then O is written (in every mode, so the modes run the same instructions).
"""

from __future__ import annotations

import math
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from alias_spec.frontend import tle

BLOCK_M = 128
HEAD_DIM = 128  # the default head dim; 64 works too
BLOCK_N = 64  # the default K/V block; 128 works too (more registers for S and P)
NUM_WARPS = 4
MODES = ("planned", "upfront", "late")
LOG2E = gl.constexpr(math.log2(math.e))  # softmax in base 2: exp(x) = exp2(x * log2(e))


@gluon.constexpr_function
def mma_layout(n: int) -> gl.NVMMADistributedLayout:
    """The wgmma accumulator layout of a ``[BLOCK_M, n]`` tile for one warpgroup."""
    return gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[NUM_WARPS, 1], instr_shape=[16, int(n), 16]
    )


def tile_layout(rows: int, head_dim: int) -> gl.NVMMASharedLayout:
    """Shared layout of a ``[rows, head_dim]`` bf16 tile (Q, O, one K or V slot)."""
    return gl.NVMMASharedLayout.get_default_for([rows, head_dim], gl.bfloat16)


def reuse_plan(stages: int, head_dim: int = HEAD_DIM, block_n: int = BLOCK_N) -> tle.gpu.reuse_plan:
    """The declarations: Q and the K and V rings in use in the mainloop, O in the epilogue."""
    qo = tile_layout(BLOCK_M, head_dim)
    kv = tile_layout(block_n, head_dim)
    return tle.gpu.reuse_plan(
        [
            tle.gpu.buffer("q", [BLOCK_M, head_dim], gl.bfloat16, qo),
            tle.gpu.buffer("k", [stages, block_n, head_dim], gl.bfloat16, kv),
            tle.gpu.buffer("v", [stages, block_n, head_dim], gl.bfloat16, kv),
            tle.gpu.buffer("o", [BLOCK_M, head_dim], gl.bfloat16, qo),
        ],
        uses={"q": "mainloop", "k": "mainloop", "v": "mainloop", "o": "epilogue"},
        phases=["mainloop", "epilogue"],
    )


@gluon.jit
def attention_kernel(q_desc, k_desc, v_desc, o_desc, seq_len, sm_scale, STAGES: gl.constexpr,
                     MODE: gl.constexpr, PLAN: gl.constexpr):  # fmt: skip
    BM: gl.constexpr = q_desc.block_type.shape[0]
    D: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    S_LAYOUT: gl.constexpr = mma_layout(BN)
    O_LAYOUT: gl.constexpr = mma_layout(D)
    # P as the register A operand of P V: two bf16 per 32-bit register.
    P_LAYOUT: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=O_LAYOUT, k_width=2)
    # A step refills the slot of the step before: with one slot that is the slot being read.
    gl.static_assert(STAGES >= 2, "the K/V ring needs at least two slots")
    if MODE == "planned":
        q_s, k_s, v_s, o_s = tle.gpu.alloc_reuse(PLAN)
    else:
        q_s = gl.allocate_shared_memory(gl.bfloat16, [BM, D], q_desc.layout)
        k_s = gl.allocate_shared_memory(gl.bfloat16, [STAGES, BN, D], k_desc.layout)
        v_s = gl.allocate_shared_memory(gl.bfloat16, [STAGES, BN, D], v_desc.layout)
        if MODE == "upfront":
            o_s = gl.allocate_shared_memory(gl.bfloat16, [BM, D], o_desc.layout)
    # bars[s] for ring slot s (its K and V tiles together), bars[STAGES] for the Q tile.
    bars = gl.allocate_shared_memory(gl.int64, [STAGES + 1, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES + 1):
        mbarrier.init(bars.index(s), count=1)

    head = gl.program_id(1)
    q_row = head * seq_len + gl.program_id(0) * BM
    kv_row = head * seq_len
    n_kv = seq_len // BN

    q_bar = bars.index(STAGES)
    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [q_row, 0], q_bar, q_s)
    kv_bytes: gl.constexpr = k_desc.block_type.nbytes + v_desc.block_type.nbytes
    # As the matmul: STAGES - 1 blocks in flight ahead; the last slot is filled in step 0.
    for s in gl.static_range(STAGES - 1):
        go = s < n_kv
        mbarrier.expect(bars.index(s), kv_bytes, pred=go)
        tma.async_copy_global_to_shared(k_desc, [kv_row + s * BN, 0], bars.index(s),
                                        k_s.index(s), go)  # fmt: skip
        tma.async_copy_global_to_shared(v_desc, [kv_row + s * BN, 0], bars.index(s),
                                        v_s.index(s), go)  # fmt: skip

    qk_scale = sm_scale * LOG2E
    m_i = gl.full([BM], float("-inf"), gl.float32, gl.SliceLayout(1, S_LAYOUT))
    l_i = gl.zeros([BM], gl.float32, gl.SliceLayout(1, S_LAYOUT))
    s_zero = gl.zeros([BM, BN], gl.float32, S_LAYOUT)
    # O and P are carried as the in-flight P V wgmma's accumulator and A operand: each step's
    # P V is retired by the next step's wait (or the one after the loop).
    o = hopper.warpgroup_mma_init(gl.zeros([BM, D], gl.float32, O_LAYOUT))
    p = gl.zeros([BM, BN], gl.bfloat16, P_LAYOUT)
    mbarrier.wait(q_bar, 0)
    for j in range(n_kv):
        slot = j % STAGES
        mbarrier.wait(bars.index(slot), (j // STAGES) & 1)
        s_tok = hopper.warpgroup_mma(q_s, k_s.index(slot).permute((1, 0)), s_zero,
                                     use_acc=False, is_async=True)  # fmt: skip
        # Retires this step's Q K^T and the previous step's P V: the slot P V read is free.
        s_acc, o, p, _, _ = hopper.warpgroup_mma_wait(0, deps=[s_tok, o, p, q_s, k_s.index(slot)])
        nxt = j + STAGES - 1
        nslot = nxt % STAGES
        go = nxt < n_kv
        mbarrier.expect(bars.index(nslot), kv_bytes, pred=go)
        tma.async_copy_global_to_shared(k_desc, [kv_row + nxt * BN, 0], bars.index(nslot),
                                        k_s.index(nslot), go)  # fmt: skip
        tma.async_copy_global_to_shared(v_desc, [kv_row + nxt * BN, 0], bars.index(nslot),
                                        v_s.index(nslot), go)  # fmt: skip

        m_new = gl.maximum(m_i, gl.max(s_acc, axis=1) * qk_scale)
        alpha = gl.exp2(m_i - m_new)  # exp2(-inf) = 0 on the first step
        e = gl.exp2(s_acc * qk_scale - gl.expand_dims(m_new, 1))
        l_i = l_i * alpha + gl.sum(e, axis=1)
        m_i = m_new
        o = o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, O_LAYOUT)), 1)
        p = gl.convert_layout(e.to(gl.bfloat16), P_LAYOUT)
        o = hopper.warpgroup_mma(p, v_s.index(slot), o, is_async=True)
    o, _ = hopper.warpgroup_mma_wait(0, deps=[o, p])
    for s in gl.static_range(STAGES + 1):
        mbarrier.invalidate(bars.index(s))
    o = o / gl.expand_dims(gl.convert_layout(l_i, gl.SliceLayout(1, O_LAYOUT)), 1)

    # Phase boundary: every read of Q, K and V is done before O is written over them.
    gl.thread_barrier()
    if MODE == "late":
        o_s = gl.allocate_shared_memory(gl.bfloat16, [BM, D], o_desc.layout)
    o_s.store(o.to(gl.bfloat16))
    hopper.fence_async_shared()
    tma.async_copy_shared_to_global(o_desc, [q_row, 0], o_s)
    tma.store_wait(0)


def tile_bytes(stages: int, head_dim: int = HEAD_DIM, block_n: int = BLOCK_N) -> dict[str, int]:
    """Bytes of each declared buffer, by the model's count."""
    from alias_spec.frontend.tle.reuse import declarations

    d, _ = declarations(reuse_plan(stages, head_dim, block_n))
    return {b.name: b.size for b in d.buffers}


def smem_bytes(stages: int, mode: str, head_dim: int = HEAD_DIM, block_n: int = BLOCK_N) -> int:
    """Shared memory the kernel's buffers need by the model's count: the planner's footprint, or
    every buffer its own bytes, and the mbarriers (Triton's ``metadata.shared`` is what it
    really allocates)."""
    from alias_spec.frontend.tle.reuse import declarations, placement
    from alias_spec.model.facts import elem_bytes

    d, _ = declarations(reuse_plan(stages, head_dim, block_n))
    buffers = placement(d).total if mode == "planned" else sum(b.size for b in d.buffers)
    return buffers + (stages + 1) * elem_bytes(gl.int64.primitive_bitwidth)


def descriptors(q: Any, k: Any, v: Any, o: Any, block_n: int = BLOCK_N) -> tuple[Any, ...]:
    """Host-side TMA descriptors for row-major ``[rows, D]`` Q, K, V and O."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    d = q.shape[1]
    qo, kv = tile_layout(BLOCK_M, d), tile_layout(block_n, d)
    return (
        TensorDescriptor.from_tensor(q, [BLOCK_M, d], qo),
        TensorDescriptor.from_tensor(k, [block_n, d], kv),
        TensorDescriptor.from_tensor(v, [block_n, d], kv),
        TensorDescriptor.from_tensor(o, [BLOCK_M, d], qo),
    )


def check_shape(batch_heads: int, seq_len: int, block_n: int = BLOCK_N) -> None:
    """The flattened layout needs whole tiles per head: a tile may not cross into the next."""
    if batch_heads < 1 or seq_len < 1 or seq_len % BLOCK_M or seq_len % block_n:
        raise ValueError(
            f"seq_len={seq_len} must be a positive multiple of {BLOCK_M} and {block_n}"
        )


def grid(batch_heads: int, seq_len: int) -> tuple[int, int]:
    """One CTA per ``BLOCK_M`` query rows of one head."""
    return (seq_len // BLOCK_M, batch_heads)


def attention(q: Any, k: Any, v: Any, seq_len: int, sm_scale: float, stages: int, mode: str,
              block_n: int = BLOCK_N) -> tuple[Any, Any]:  # fmt: skip
    """Run the kernel on CUDA tensors; returns the output and the compiled kernel."""
    import torch

    if q.shape[0] % seq_len or k.shape != q.shape or v.shape != q.shape:
        raise ValueError(
            f"q, k, v must all be [heads * {seq_len}, D], got {q.shape, k.shape, v.shape}"
        )
    check_shape(q.shape[0] // seq_len, seq_len, block_n)
    o = torch.full_like(q, float("nan"))  # rows the kernel misses show as NaN
    kernel = attention_kernel[grid(q.shape[0] // seq_len, seq_len)](
        *descriptors(q, k, v, o, block_n), seq_len, sm_scale, STAGES=stages,
        MODE=gl.constexpr(mode), PLAN=gl.constexpr(reuse_plan(stages, q.shape[1], block_n)),
        num_warps=NUM_WARPS,
    )  # fmt: skip
    return o, kernel


def reference(q: Any, k: Any, v: Any, sm_scale: float, seq_len: int | None = None) -> Any:
    """softmax(Q K^T * sm_scale) V per head in fp32, for ``[heads * seq_len, D]`` inputs
    (``seq_len`` None: one head); returns fp32 of Q's shape."""
    import torch

    s = q.shape[0] if seq_len is None else seq_len
    d = q.shape[1]
    qh, kh, vh = (t.float().reshape(-1, s, d) for t in (q, k, v))
    p = torch.softmax(qh @ kh.transpose(1, 2) * sm_scale, dim=-1)
    return (p @ vh).reshape(q.shape)


def compile_cpu(stages: int, mode: str, head_dim: int = HEAD_DIM, block_n: int = BLOCK_N,
                batch_heads: int = 32, seq_len: int = 4096) -> Any:  # fmt: skip
    """The kernel compiled for sm_90 without a GPU (descriptors described, not made)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    from triton.runtime.jit import MockTensor, mangle_type

    check_shape(batch_heads, seq_len, block_n)
    rows = batch_heads * seq_len

    def desc(block_rows: int) -> str:
        t = MockTensor(gl.bfloat16)
        layout = tile_layout(block_rows, head_dim)
        block = [block_rows, head_dim]
        return mangle_type(TensorDescriptor(t, [rows, head_dim], [head_dim, 1], block, layout))

    sig = {
        "q_desc": desc(BLOCK_M),
        "k_desc": desc(block_n),
        "v_desc": desc(block_n),
        "o_desc": desc(BLOCK_M),
        "seq_len": "i32",
        "sm_scale": "fp32",
        "STAGES": "constexpr",
        "MODE": "constexpr",
        "PLAN": "constexpr",
    }
    consts = {"STAGES": stages, "MODE": mode, "PLAN": reuse_plan(stages, head_dim, block_n)}
    src = GluonASTSource(attention_kernel, signature=sig, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": NUM_WARPS})
