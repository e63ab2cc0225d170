"""A wgmma's operands through the async proxy (``tests/plan/cases/proxy_truth.py``): the tiles
stored through the generic proxy, fenced and multiplied, against what ``alias-spec plan
--races`` says of the kernel as built, without its proxy fence, and with the next tile stored
while the wgmma still reads the buffer. ``proxy_truth_h100.json`` is what an H100 showed of the
three (50 launches each, Triton 3.6.0): the correct kernel exact, the other two wrong."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.paths import PLAN_CASES

CASES = PLAN_CASES
pytest.importorskip("triton")
from alias_spec.plan.api import check_texts  # noqa: E402
from tests.plan.cases import proxy_truth  # noqa: E402

MEASURED = json.loads((CASES / "proxy_truth_h100.json").read_text())
TILE = proxy_truth.T * proxy_truth.T * 2  # one f16 tile's bytes


@cache
def _compiled(early: int) -> Any:
    return proxy_truth.compile_cpu(early)


def _plan(early: int, fence: bool = True) -> Any:
    compiled = _compiled(early)
    llir = compiled.asm["llir"] if fence else proxy_truth.without_fence(compiled.asm["llir"])
    return check_texts(compiled.asm["ttgir"], llir, "tiles_mma.ttgir", races=True)


def _line(needle: str) -> int:
    lines = Path(proxy_truth.__file__).read_text().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if needle in text)


def _llir_lines(early: int, fence: bool) -> list[str]:
    llir = _compiled(early).asm["llir"]
    return (llir if fence else proxy_truth.without_fence(llir)).splitlines()


def test_the_gpu_showed_both_bugs_and_the_correct_kernel_exact() -> None:
    kernels = MEASURED["kernels"]
    assert MEASURED["triton"] == "3.6.0" and set(kernels) == {
        "correct",
        "fence_deleted",
        "early_store",
    }
    assert kernels["correct"]["values_wrong"] == 0 and kernels["correct"]["launches"] >= 20
    # The missing proxy fence is seen on the GPU, in some launches only.
    assert (
        kernels["fence_deleted"]["launches_wrong"] > 0
        and kernels["fence_deleted"]["values_wrong"] > 0
    )
    assert kernels["early_store"]["launches_wrong"] == kernels["early_store"]["launches"]


def test_the_kernel_as_built_is_clean() -> None:
    report = _plan(0)
    assert not report.findings and report.status == "clean", [n.message for n in report.notes]


def test_without_its_fence_a_tile_store_meets_the_wgmma_across_the_proxies() -> None:
    report = _plan(0, fence=False)
    assert [f.rule for f in report.findings] == ["plan.race.proxy"], report.findings
    f = report.findings[0]
    store, mma = (_llir_lines(0, False)[n - 1] for n in f.values["lines"])
    assert "store <" in store and "addrspace(3)" in store
    assert "wgmma.mma_async" in mma
    # The first operand's buffer comes first: A's tile is the byte's buffer.
    assert f.values["buffer"].startswith("%sa") and 0 <= f.values["byte"] < TILE
    assert f.values["sources"][1] == f"proxy_truth.py:{_line('acc = hopper.warpgroup_mma(')}:43"


def test_the_next_tile_stored_under_the_wgmma_in_flight_is_a_race() -> None:
    report = _plan(1)
    assert [f.rule for f in report.findings] == ["plan.race"], report.findings
    f = report.findings[0]
    assert f.values["buffer"].startswith("%sa") and 0 <= f.values["byte"] < TILE
    assert f.values["sources"] == [
        f"proxy_truth.py:{_line('acc = hopper.warpgroup_mma(')}:43",
        f"proxy_truth.py:{_line('sa.store(nxt)  # A is still')}:21",
    ]
    assert not f.values["crossed_loop"] and "wgmma operand A" in f.message
    assert "of %sa" in f.message
