"""Asynchronous-ordering ground truth (``tests/plan_cases/async_truth.py``): a TMA load waited on
the wrong mbarrier phase, and a TMA store without its proxy fence, against what the H200
showed (``async_truth_h200.json``) and what ``alias-spec plan --races`` says of each.

The race check follows mbarrier phases (``alias_spec/plan/mbarrier.py``): the wrong phase is a
race finding between the TMA load and the read of its tile; the correct kernel raises no alarm
and is partial only for the proxy fences, which are not followed yet (nor is the kernel
without its fence called clean). Mutants of the correct kernel's LLVM IR whose mbarrier
protocol does not add up are partial, never clean nor flagged."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

CASES = Path(__file__).parent / "plan_cases"
pytest.importorskip("triton")
sys.path.insert(0, str(CASES))
import async_truth  # noqa: E402

from alias_spec.plan.api import check_texts  # noqa: E402

H200 = json.loads((CASES / "async_truth_h200.json").read_text())["kernels"]
BM_BN_BYTES = async_truth.BM * async_truth.BN * 2  # the f16 tile the TMA load fills


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
    assert report.status == "partial"
    # What stays partial is the proxy fence alone: the TMA load, its mbarrier and the tensor
    # maps built in shared memory are judged.
    assert [n.kind for n in report.notes] == ["race.unjudged"], report.notes
    assert "proxy fences" in report.notes[0].message


def test_the_wrong_phase_is_a_race_between_the_tma_load_and_the_read() -> None:
    report = _plan(1)
    races = [f for f in report.findings if f.rule == "plan.race"]
    assert len(races) == 1, report.findings
    f = races[0]
    llir = async_truth.compile_cpu(1).asm["llir"].splitlines()
    tma, read = (llir[n - 1] for n in f.values["lines"])
    assert "cp.async.bulk.tensor" in tma and "mbarrier::complete_tx" in tma
    assert " = load " in read and "addrspace(3)" in read
    assert f.values["buffer"].startswith("%in_s")
    assert 0 <= f.values["byte"] < BM_BN_BYTES and not f.values["crossed_loop"]
    line = {n: i + 1 for i, text in enumerate(Path(async_truth.__file__).read_text().splitlines())
            for n in ("_tma_load(x_desc", "x = in_s.load") if n in text}  # fmt: skip
    assert f.values["sources"] == [f"async_truth.py:{line['_tma_load(x_desc']}:44",
                                   f"async_truth.py:{line['x = in_s.load']}:22"]  # fmt: skip
    assert "before any wait on the mbarrier phase" in f.message


def test_the_kernel_without_its_fence_is_not_called_clean() -> None:
    report = _plan(0, fence=False)
    assert report.status != "clean" and not report.findings
    assert any(n.kind == "race.unjudged" and "proxy fences" in n.message for n in report.notes)


def _mutant(edit: str) -> Any:
    compiled = async_truth.compile_cpu(0)
    llir = compiled.asm["llir"]
    if edit == "expect fewer bytes":
        out = re.sub(r"(mbarrier\.arrive\.expect_tx[^\n]*\], )8192;", r"\g<1>4096;", llir)
    elif edit == "wait on a constant parity":
        out = re.sub(r"(mbarrier\.try_wait\.parity[^\n]*\(ptr addrspace\(3\) [^\n]*\), i32 )%\d+\)",
                     r"\g<1>0)", llir)  # fmt: skip
    elif edit == "no arrival":
        out = re.sub(r"^.*mbarrier\.arrive\.expect_tx.*\n", "", llir, flags=re.M)
    else:
        out = re.sub(r"^.*mbarrier\.try_wait.*\n", "", llir, flags=re.M)
    assert out != llir, edit
    return check_texts(compiled.asm["ttgir"], out, "roundtrip.ttgir", races=True)


@pytest.mark.parametrize("edit", ["expect fewer bytes", "wait on a constant parity",
                                  "no arrival", "no wait"])  # fmt: skip
def test_a_protocol_that_does_not_add_up_is_partial(edit: str) -> None:
    report = _mutant(edit)
    assert not report.findings and report.status == "partial", report.findings
    assert any("mbarrier at shared byte" in n.message and "not followed" in n.message
               for n in report.notes), [n.message for n in report.notes]  # fmt: skip


def test_the_mutant_lost_its_fences() -> None:
    llir = async_truth.compile_cpu(0).asm["llir"]
    assert "fence.proxy.async" in llir
    assert "fence.proxy.async" not in async_truth.without_fence(llir)
    with pytest.raises(ValueError):
        async_truth.without_fence(async_truth.without_fence(llir))
