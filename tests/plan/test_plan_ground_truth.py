"""The verdicts of ``alias-spec plan`` on the ground-truth kernels (CPU, compiled for sm_90).

Each kernel of ``tests/plan/cases/ground_truth.py`` is compiled by the installed Triton and
judged by ``check_compiled``; the verdict must be the one its case writes (``Case.expect``):
findings or partial, never clean, for a kernel whose code corrupts a buffer on the GPU
(``gpu_ground_truth_h200.json``), clean for the false-alarm classes. A verdict known to be
wrong today (``Case.known_wrong``) is an ``xfail(strict=True)`` with that reason: it fails the
day the verdict is right, to be unmarked then.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="needs triton (compiles the kernels)"
)


def _cases() -> dict[str, Any]:
    if importlib.util.find_spec("triton") is None:
        return {}
    from tests.plan.cases import ground_truth

    return ground_truth.CASES


@cache
def _compiled(name: str) -> Any:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    case = _cases()[name]
    src = GluonASTSource(case.fn, signature=case.signature, constexprs={})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(case.options))


def _param(name: str, case: Any) -> Any:
    if case.known_wrong:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=case.known_wrong))
    return pytest.param(name)


@cache
def _report(name: str) -> Any:
    """The kernel's report, judged once per process (test_verdict and the message tests
    read it; none changes it)."""
    from alias_spec.plan import check_compiled

    return check_compiled(_compiled(name))


@pytest.mark.parametrize("name", [_param(n, c) for n, c in _cases().items()])
def test_verdict(name: str) -> None:
    case = _cases()[name]
    report = _report(name)
    said = [x.message for x in report.findings + report.notes]
    assert report.status == case.expect, said
    if case.corrupts:
        assert report.status != "clean", said  # whatever `expect` says


def _messages(name: str) -> list[str]:
    report = _report(name)
    return [x.message for x in report.findings + report.notes]


def test_frame_finding_names_the_quoted_callee() -> None:
    # The callee's symbol is mangled with its constexpr argument (quoted in LLVM IR): the
    # finding must be about its frame, not some other access.
    said = _messages("frame_constexpr")
    assert any("_scaled_helper" in m and "in its frame as placed by the call" in m for m in said), (
        said
    )


def test_tma_finding_is_the_pending_store() -> None:
    said = _messages("tma_store_pending")
    assert any(re.search(r"%b\w* .*overlaps %a\w* .*both are live", m) for m in said), said
    assert not any("overlaps" in m for m in _messages("tma_store_waited"))


def test_asm_note_names_the_store() -> None:
    said = _messages("asm_shared_store")
    assert said and all("st.shared" in m and "not judged" in m for m in said), said


def test_same_ssa_name_in_two_regions() -> None:
    # The false alarm ws_private stands for: TTGIR defines `%mine` once in each partition.
    ttgir = _compiled("ws_private").asm["ttgir"]
    assert len(re.findall(r"^\s*%mine = ttg\.local_alloc", ttgir, re.M)) == 2


def test_every_case_has_a_gpu_runner() -> None:
    from tools.plan import ground_truth_gpu

    assert set(ground_truth_gpu.RUNNERS) == set(_cases())
    wrong_clean = {n for n, c in _cases().items() if c.corrupts}
    assert wrong_clean and all(_cases()[n].expect != "clean" for n in wrong_clean)
