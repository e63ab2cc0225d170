"""Which instructions ``alias_spec/plan/proxy.py`` takes for a proxy fence between the generic
and the async proxy over shared memory (the kernels are in ``test_plan_async_truth.py`` and
the corpus mutants in ``test_plan_races.py``)."""

from __future__ import annotations

import pytest

from alias_spec.ir.llir import Instruction, Operand
from alias_spec.plan.proxy import FENCED, MAYBE, NONE, fence


def _call(callee: Operand) -> Instruction:
    return Instruction(0, "call", "", "void", [], "", 0, 1, 1, callee=callee)


@pytest.mark.parametrize(("asm", "want"), [
    ("fence.proxy.async.shared::cta;", FENCED),  # what Triton 3.6-3.9 print
    ("fence.proxy.async;", FENCED),  # every state space
    ("fence.proxy.async.shared::cluster;", FENCED),
    ("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;", FENCED),
    ("@$0 fence.proxy.async.shared::cta;", MAYBE),  # a thread whose predicate is false skips it
    ("{\n\tmov.u32 %r1, 0;\n\tfence.proxy.async.shared::cta;\n}", FENCED),
    ("fence.proxy.async.global;", NONE),  # global memory only
    ("fence.proxy.tensormap::generic.acquire.gpu [ $0 + 0 ], 0x80;", NONE),
    ("fence.acq_rel.gpu;", NONE),  # orders the generic proxy alone
    ("wgmma.fence.sync.aligned;", NONE),  # registers, not the proxies
])  # fmt: skip
def test_fence_in_inline_asm(asm: str, want: int) -> None:
    assert fence(_call(Operand("asm", "void", text=asm))) == want


@pytest.mark.parametrize(("name", "want"), [
    ("llvm.nvvm.fence.proxy.async", FENCED),
    ("llvm.nvvm.fence.proxy.async.shared_cta", FENCED),
    ("llvm.nvvm.fence.proxy.async.shared_cluster", FENCED),
    ("llvm.nvvm.fence.proxy.async.global", NONE),
    ("llvm.nvvm.fence.proxy.tensormap_generic.acquire.gpu", NONE),
    ("llvm.nvvm.wgmma.fence.sync.aligned", NONE),
    ("llvm.nvvm.barrier.cta.sync.aligned.all", NONE),
])  # fmt: skip
def test_fence_as_an_intrinsic(name: str, want: int) -> None:
    assert fence(_call(Operand("function", "void", name=name))) == want
