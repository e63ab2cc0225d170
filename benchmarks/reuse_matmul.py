"""The payoff kernel: a pipelined TMA + wgmma matmul, its epilogue tile over the mainloop ring.

One Gluon kernel, three ways to get its shared memory, chosen by the constexpr ``MODE``:

- ``"planned"``: the reuse planner places the A and B rings (in use in the mainloop) and the C
  tile (in use in the epilogue) in one allocation (``tle.gpu.alloc_reuse``); C lands on the
  rings' bytes, as CUTLASS's and FlashAttention-3's unions put it.
- ``"upfront"``: three allocations made at the kernel's start, as a kernel written without
  aliasing (or a persistent kernel whose epilogue overlaps its next tile) holds them.
- ``"late"``: the C tile allocated after the mainloop, where Triton's own allocator may reuse
  the rings' bytes by liveness.

The program orders the phases: all wgmma retired, then a CTA barrier, then C is written (in
every mode, so the modes run the same instructions). bf16 in, fp32 accumulate, bf16 out; one
warpgroup (4 warps) per CTA, a 128 x 128 x 64 tile, ``STAGES`` slots with one mbarrier each.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from alias_spec.frontend import tle

BM, BN, BK = 128, 128, 64
NUM_WARPS = 4
GROUP_M = gl.constexpr(8)  # CTAs along M that share B tiles in L2
MODES = ("planned", "upfront", "late")
A_LAYOUT = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.bfloat16)
B_LAYOUT = gl.NVMMASharedLayout.get_default_for([BK, BN], gl.bfloat16)
C_LAYOUT = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.bfloat16)
ACC_LAYOUT = gl.constexpr(
    gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[NUM_WARPS, 1], instr_shape=[16, BN, 16]
    )
)


def reuse_plan(stages: int) -> tle.gpu.reuse_plan:
    """The declarations: the rings in use in the mainloop, the C tile in the epilogue."""
    return tle.gpu.reuse_plan(
        [
            tle.gpu.buffer("a", [stages, BM, BK], gl.bfloat16, A_LAYOUT),
            tle.gpu.buffer("b", [stages, BK, BN], gl.bfloat16, B_LAYOUT),
            tle.gpu.buffer("c", [BM, BN], gl.bfloat16, C_LAYOUT),
        ],
        uses={"a": "mainloop", "b": "mainloop", "c": "epilogue"},
        phases=["mainloop", "epilogue"],
    )


@gluon.jit
def matmul_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr, MODE: gl.constexpr,
                  PLAN: gl.constexpr):  # fmt: skip
    BM_: gl.constexpr = c_desc.block_type.shape[0]
    BN_: gl.constexpr = c_desc.block_type.shape[1]
    BK_: gl.constexpr = a_desc.block_type.shape[1]
    if MODE == "planned":
        a_s, b_s, c_s = tle.gpu.alloc_reuse(PLAN)
    else:
        a_s = gl.allocate_shared_memory(gl.bfloat16, [STAGES, BM_, BK_], a_desc.layout)
        b_s = gl.allocate_shared_memory(gl.bfloat16, [STAGES, BK_, BN_], b_desc.layout)
        if MODE == "upfront":
            c_s = gl.allocate_shared_memory(gl.bfloat16, [BM_, BN_], c_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)

    # Grouped tile order, so CTAs running together share tiles of B in L2.
    pid = gl.program_id(0)
    n_m = gl.cdiv(M, BM_)
    n_n = gl.cdiv(N, BN_)
    per_group = GROUP_M * n_n
    first_m = (pid // per_group) * GROUP_M
    rows = gl.minimum(n_m - first_m, GROUP_M)
    off_m = (first_m + (pid % per_group) % rows) * BM_
    off_n = ((pid % per_group) // rows) * BN_

    nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    n_k = gl.cdiv(K, BK_)
    for s in gl.static_range(STAGES - 1):
        go = s < n_k
        mbarrier.expect(bars.index(s), nbytes, pred=go)
        tma.async_copy_global_to_shared(a_desc, [off_m, s * BK_], bars.index(s), a_s.index(s), go)
        tma.async_copy_global_to_shared(b_desc, [s * BK_, off_n], bars.index(s), b_s.index(s), go)
    acc = gl.zeros([BM_, BN_], gl.float32, ACC_LAYOUT)
    for k in range(n_k):
        slot = k % STAGES
        mbarrier.wait(bars.index(slot), (k // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(slot), b_s.index(slot), acc, is_async=True)
        # One wgmma stays in flight: the one before this has retired, so its slot is free.
        acc, _, _ = hopper.warpgroup_mma_wait(1, deps=[acc, a_s.index(slot), b_s.index(slot)])
        nxt = k + STAGES - 1
        nslot = nxt % STAGES
        go = nxt < n_k
        mbarrier.expect(bars.index(nslot), nbytes, pred=go)
        tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK_], bars.index(nslot),
                                        a_s.index(nslot), go)  # fmt: skip
        tma.async_copy_global_to_shared(b_desc, [nxt * BK_, off_n], bars.index(nslot),
                                        b_s.index(nslot), go)  # fmt: skip
    acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))

    # Phase boundary: every read of the rings is done before C is written over them.
    gl.thread_barrier()
    if MODE == "late":
        c_s = gl.allocate_shared_memory(gl.bfloat16, [BM_, BN_], c_desc.layout)
    c_s.store(acc.to(gl.bfloat16))
    hopper.fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_s)
    tma.store_wait(0)


def smem_bytes(stages: int, mode: str) -> int:
    """Shared memory the kernel's buffers need by the model's count: the planner's footprint, or
    every buffer its own bytes, and the mbarriers (Triton's ``metadata.shared`` is what it
    really allocates; the tests and the benchmark compare the two)."""
    from alias_spec.frontend.tle.reuse import declarations, placement
    from alias_spec.model.facts import elem_bytes

    d, _ = declarations(reuse_plan(stages))
    buffers = placement(d).total if mode == "planned" else sum(b.size for b in d.buffers)
    return buffers + stages * elem_bytes(gl.int64.primitive_bitwidth)


def descriptors(a: Any, b: Any, c: Any) -> tuple[Any, Any, Any]:
    """Host-side TMA descriptors for row-major A (M x K), B (K x N) and C (M x N)."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    return (
        TensorDescriptor.from_tensor(a, [BM, BK], A_LAYOUT),
        TensorDescriptor.from_tensor(b, [BK, BN], B_LAYOUT),
        TensorDescriptor.from_tensor(c, [BM, BN], C_LAYOUT),
    )


def grid(m: int, n: int) -> tuple[int]:
    return (((m + BM - 1) // BM) * ((n + BN - 1) // BN),)


def compile_cpu(stages: int, mode: str, m: int = 4096, n: int = 4096, k: int = 4096) -> Any:
    """The kernel compiled for sm_90 without a GPU (descriptors described, not made)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    from triton.runtime.jit import MockTensor, mangle_type

    def desc(rows: int, cols: int, block: list[int], layout: Any) -> str:
        t = MockTensor(gl.bfloat16)
        return mangle_type(TensorDescriptor(t, [rows, cols], [cols, 1], block, layout))

    sig = {
        "a_desc": desc(m, k, [BM, BK], A_LAYOUT),
        "b_desc": desc(k, n, [BK, BN], B_LAYOUT),
        "c_desc": desc(m, n, [BM, BN], C_LAYOUT),
        "M": "i32",
        "N": "i32",
        "K": "i32",
        "STAGES": "constexpr",
        "MODE": "constexpr",
        "PLAN": "constexpr",
    }
    consts = {"STAGES": stages, "MODE": mode, "PLAN": reuse_plan(stages)}
    src = GluonASTSource(matmul_kernel, signature=sig, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": NUM_WARPS})
