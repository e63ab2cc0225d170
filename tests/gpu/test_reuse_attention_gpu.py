"""GPU test (marker ``gpu``) of the flash-attention kernel (``benchmarks/reuse_attention.py``):
the O tile placed over Q and the K and V rings (mode ``planned``) computes the same bytes as
the kernel with four separate allocations (and as the one allocating O late), and attention
close to an fp32 torch reference.

Needs torch, Triton and z3 (the planner runs when the kernel compiles).
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
pytest.importorskip("z3")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from benchmarks import reuse_attention as ra  # noqa: E402

pytestmark = pytest.mark.gpu

# (heads, seq_len, head_dim, block_n, q scale): one K/V block fewer than the ring's depth, a
# few heads, both head dims; the q scale spreads the logits so the running max moves.
SHAPES = [
    (1, 128, 64, 128, 1.0),
    (3, 256, 128, 64, 1.0),
    (2, 512, 64, 128, 4.0),
    (4, 384, 64, 64, 1.0),
    (2, 1024, 128, 64, 4.0),
]


def _inputs(heads: int, seq_len: int, head_dim: int, scale: float, seed: int):
    torch.manual_seed(seed)
    shape = (heads * seq_len, head_dim)
    q = (torch.randn(shape, device="cuda") * scale).to(torch.bfloat16)
    k = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    return q, k, v


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:4])))
def test_planned_alias_is_byte_exact(stages: int, shape: tuple) -> None:
    heads, seq_len, head_dim, block_n, scale = shape
    q, k, v = _inputs(heads, seq_len, head_dim, scale, stages)
    sm_scale = 1.0 / math.sqrt(head_dim)
    out = {}
    for mode in ("upfront", "planned", "late"):
        o, kernel = ra.attention(q, k, v, seq_len, sm_scale, stages, mode, block_n)
        torch.cuda.synchronize()
        out[mode] = o
        if mode != "late":  # the alias is what saves the bytes
            assert kernel.metadata.shared == ra.smem_bytes(stages, mode, head_dim, block_n)
    bits = {m: o.view(torch.int16) for m, o in out.items()}
    assert torch.equal(bits["planned"], bits["upfront"])
    assert torch.equal(bits["late"], bits["upfront"])
    ref = ra.reference(q, k, v, sm_scale, seq_len)
    got = out["planned"].float()
    assert not torch.isnan(got).any()
    err = (got - ref).abs().max().item()
    assert err <= 2e-2 * ref.abs().max().item(), err
