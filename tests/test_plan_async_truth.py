"""Asynchronous-ordering ground truth (``tests/plan_cases/async_truth.py``): a TMA load waited on
the wrong mbarrier phase, and a TMA store without its proxy fence, against what the H200
showed (``async_truth_h200.json``) and what ``alias-spec plan --races`` says of each.

The race check does not follow mbarrier phases or proxy fences yet: it must not call either
kernel clean, and it must raise no alarm on the correct one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).parent / "plan_cases"
pytest.importorskip("triton")
sys.path.insert(0, str(CASES))
import async_truth  # noqa: E402

from alias_spec.plan.api import check_texts  # noqa: E402

H200 = json.loads((CASES / "async_truth_h200.json").read_text())["kernels"]


def _plan(phase: int, fence: bool = True):  # noqa: ANN202 - a Report
    compiled = async_truth.compile_cpu(phase)
    llir = compiled.asm["llir"] if fence else async_truth.without_fence(compiled.asm["llir"])
    return check_texts(compiled.asm["ttgir"], llir, "roundtrip.ttgir", races=True)


def test_the_gpu_shows_the_wrong_phase_and_not_the_correct_kernel() -> None:
    assert H200["correct"]["values_wrong"] == 0 and H200["correct"]["launches"] >= 20
    wrong = H200["wrong_phase"]
    assert wrong["launches_wrong"] == wrong["launches"] and wrong["values_wrong"] > 0
    # Measured, not assumed: the H200 showed no wrong value without the fence.
    assert H200["fence_deleted"]["launches"] >= 20


def test_the_correct_kernel_raises_no_alarm() -> None:
    report = _plan(0)
    assert not report.findings, report.findings
    assert report.status in ("clean", "partial")


@pytest.mark.parametrize("phase,fence,why", [
    (1, True, "mbarrier"),  # the wait's phase is not followed
    (0, False, "proxy fences"),  # the fence between generic writes and async reads
])  # fmt: skip
def test_the_broken_kernels_are_not_called_clean(phase: int, fence: bool, why: str) -> None:
    report = _plan(phase, fence)
    assert report.status != "clean"
    assert any(n.kind == "race.unjudged" and why in n.message for n in report.notes), [
        n.message for n in report.notes
    ]


def test_the_mutant_lost_its_fences() -> None:
    llir = async_truth.compile_cpu(0).asm["llir"]
    assert "fence.proxy.async" in llir
    assert "fence.proxy.async" not in async_truth.without_fence(llir)
    with pytest.raises(ValueError):
        async_truth.without_fence(async_truth.without_fence(llir))
