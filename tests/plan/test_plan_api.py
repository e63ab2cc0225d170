"""``alias_spec.plan.check_compiled`` on kernels compiled here (for sm_90, no GPU needed).

The call-frame kernels of ``tests/plan/cases/kernels.py`` are the ones ``tests/gpu/
test_plan_gpu.py`` runs on an H200: together the two tests make the claim that the kernel the
validator flags corrupts its buffer and the ones it proves clean do not.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from alias_spec.ir.ttgir import TtgirError
from alias_spec.plan import PlanInputError, check_compiled

needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                  reason="needs triton")  # fmt: skip


def _compile(name: str) -> Any:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from tests.plan.cases import kernels

    fn, sig = kernels.KERNELS[name]
    return triton.compile(GluonASTSource(fn, signature=sig, constexprs={}),
                          target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})  # fmt: skip


def _fixed() -> bool:
    import triton

    return tuple(int(p) for p in triton.__version__.split(".")[:2]) >= (3, 9)


@needs_triton
def test_flagged_kernel_of_the_gpu_test() -> None:
    report = check_compiled(_compile("call_frame"))
    if _fixed():
        assert report.status == "clean"
        return
    assert report.status == "findings"
    (f,) = report.findings
    assert f.rule == "lowering.outside"
    assert f.values["range"] == [4096, 6144]  # the callee's frame, after the 4 KiB buffer
    assert f.values["address"] < 4096  # it addresses the caller's buffer instead


@needs_triton
@pytest.mark.parametrize("name", ["call_frame_dead", "call_inlined"])
def test_clean_kernels_of_the_gpu_test(name: str) -> None:
    report = check_compiled(_compile(name))
    assert report.status == "clean", [x.message for x in report.findings + report.notes]
    assert report.lowering.endswith("shared accesses checked")


@needs_triton
def test_plan_only_and_texts_as_a_mapping() -> None:
    k = _compile("call_frame")
    report = check_compiled(k, lowering=False)
    assert report.lowering.startswith("not checked") and not report.findings
    again = check_compiled({"ttgir": k.asm["ttgir"], "llir": k.asm["llir"].encode()})
    assert [f.rule for f in again.findings] == ([] if _fixed() else ["lowering.outside"])


@pytest.mark.parametrize(
    "kernel,needle",
    [
        (42, "got int"),
        ({"llir": "x"}, 'no asm["ttgir"]'),
        ({"ttgir": 7}, "not text"),
        ({"ttgir": b"\xff"}, "not UTF-8"),
    ],
)
def test_bad_objects_are_one_line_errors(kernel: Any, needle: str) -> None:
    with pytest.raises(PlanInputError) as exc:
        check_compiled(kernel)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_bad_ttgir_text_is_a_ttgir_error() -> None:
    with pytest.raises(TtgirError):
        check_compiled({"ttgir": "allocation.offset\nnot mlir"})
