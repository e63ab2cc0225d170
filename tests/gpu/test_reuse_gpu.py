"""GPU test (marker ``gpu``) of the reuse planner's kernel: the epilogue tile placed over the
mainloop ring (``benchmarks/reuse_matmul.py``, mode ``planned``) computes the same bytes as the
kernel with three separate allocations, and a product close to an fp32 reference.

Needs torch, Triton and z3 (the planner runs when the kernel compiles).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
pytest.importorskip("z3")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from benchmarks import reuse_matmul as rm  # noqa: E402

pytestmark = pytest.mark.gpu


def _matmul(a, b, stages: int, mode: str):
    from triton.experimental.gluon import language as gl

    m, k = a.shape
    n = b.shape[1]
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = rm.matmul_kernel[rm.grid(m, n)](
        *rm.descriptors(a, b, c), m, n, k, STAGES=stages, MODE=gl.constexpr(mode),
        PLAN=gl.constexpr(rm.reuse_plan(stages)), num_warps=rm.NUM_WARPS,
    )  # fmt: skip
    torch.cuda.synchronize()
    return c, kernel


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("shape", [(512, 384, 320), (1024, 1024, 2048)])
def test_planned_alias_is_byte_exact(stages: int, shape: tuple[int, int, int]) -> None:
    m, n, k = shape
    torch.manual_seed(stages)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    planned, kp = _matmul(a, b, stages, "planned")
    upfront, ku = _matmul(a, b, stages, "upfront")
    assert torch.equal(planned.view(torch.int16), upfront.view(torch.int16))
    ref = a.float() @ b.float()
    assert torch.allclose(planned.float(), ref, rtol=2e-2, atol=0.5)
    # The alias is what saves the bytes: C shares the ring's allocation.
    assert kp.metadata.shared == rm.smem_bytes(stages, "planned")
    assert ku.metadata.shared == rm.smem_bytes(stages, "upfront")
