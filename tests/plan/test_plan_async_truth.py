"""Asynchronous-ordering ground truth (``tests/plan/cases/async_truth.py``): a TMA load waited on
the wrong mbarrier phase, and a TMA store without its proxy fence, against what the H200
showed (``async_truth_h200.json``) and what ``alias-spec plan --races`` says of each.

The race check follows mbarrier phases (``alias_spec/plan/mbarrier.py``) and proxy fences
(``alias_spec/plan/proxy.py``): the wrong phase is a race finding between the TMA load and the
read of its tile; the correct kernel is clean; the kernel without its fences is a
``plan.race.proxy`` finding between the generic store of the tile and the TMA store that reads
it (required by the PTX memory model, not observed on the H200: 0 wrong values there). Mutants
of the correct kernel's LLVM IR whose mbarrier protocol does not add up are partial, never
clean nor flagged; one whose fence a thread may skip is partial."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.paths import PLAN_CASES

CASES = PLAN_CASES
pytest.importorskip("triton")
from alias_spec.plan.api import check_texts  # noqa: E402
from tests.plan.cases import async_truth  # noqa: E402

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


def test_the_correct_kernel_is_clean() -> None:
    # The TMA load, its mbarrier, the tensor maps built in shared memory and the proxy fences
    # before the TMA load and the TMA store are all judged.
    report = _plan(0)
    assert not report.findings, report.findings
    assert report.status == "clean", [n.message for n in report.notes]


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


def _line(needle: str) -> int:
    """The line of ``async_truth.py`` that holds ``needle``."""
    lines = Path(async_truth.__file__).read_text().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if needle in text)


def _fences(llir: str) -> list[re.Match[str]]:
    return list(re.finditer(r"^.*\bfence\.proxy\.async\b.*\n", llir, re.M))


def _proxy_races(report: Any) -> list[Any]:
    return [f for f in report.findings if f.rule == "plan.race.proxy"]


def _races_plain(report: Any) -> list[Any]:
    return [f for f in report.findings if f.rule == "plan.race"]


def test_the_kernel_without_its_fence_is_a_proxy_race() -> None:
    # What the H200 ran: every fence.proxy.async deleted. No wrong value was seen there; the
    # PTX memory model still requires the fence between the generic store and the TMA store.
    report = _plan(0, fence=False)
    found = _proxy_races(report)
    assert len(found) == 1 and not _races_plain(report), report.findings
    f = found[0]
    llir = async_truth.without_fence(async_truth.compile_cpu(0).asm["llir"]).splitlines()
    store, tma = (llir[n - 1] for n in f.values["lines"])
    assert "store <" in store and "addrspace(3)" in store
    assert "cp.async.bulk.tensor" in tma and ".global.shared::cta" in tma
    assert f.values["buffer"].startswith("%out_s")
    assert BM_BN_BYTES <= f.values["byte"] < 2 * BM_BN_BYTES  # out_s follows in_s
    assert f.values["sources"] == [f"async_truth.py:{_line('out_s.store(')}:20",
                                   f"async_truth.py:{_line('_tma_store(y_desc')}:40"]  # fmt: skip
    assert "PTX memory model" in f.message and "async proxy" in f.message


def _edited(edit: str) -> Any:
    compiled = async_truth.compile_cpu(0)
    llir = compiled.asm["llir"]
    store_fence, load_fence = (m for m in sorted(_fences(llir), key=lambda m: -m.start()))
    if edit == "no fence before the TMA store":
        out = llir[: store_fence.start()] + llir[store_fence.end() :]
    elif edit == "no fence before the TMA load":
        out = llir[: load_fence.start()] + llir[load_fence.end() :]
    elif edit == "fence after the barrier":
        # Still on every path from the store to the TMA store (the issuing thread fences).
        barrier = re.compile(r"^.*@llvm\.nvvm\.barrier\.cta\.sync\.aligned\.all.*\n", re.M)
        nxt = barrier.search(llir, store_fence.end())
        assert nxt is not None and nxt.start() == store_fence.end()
        out = (llir[: store_fence.start()] + nxt.group(0) + store_fence.group(0)
               + llir[nxt.end() :])  # fmt: skip
    else:  # a fence some threads may skip: under a predicate
        line = store_fence.group(0)
        out = llir.replace(
            line,
            line.replace(
                '"fence.proxy.async.shared::cta;", ""()',
                '"@$0 fence.proxy.async.shared::cta;", "b"(i1 %23)',
            ),
        )
    assert out != llir, edit
    return check_texts(compiled.asm["ttgir"], out, "roundtrip.ttgir", races=True)


def test_each_fence_alone_is_needed() -> None:
    # Without the fence before the TMA store: the tile's generic store, read by the TMA store.
    f = _proxy_races(_edited("no fence before the TMA store"))
    assert len(f) == 1 and f[0].values["buffer"].startswith("%out_s"), f
    # Without the one Triton's proxy-fence pass put before the TMA load: the scratch the tensor
    # maps were built in (generic writes) is where the TMA load then writes the tile.
    f = _proxy_races(_edited("no fence before the TMA load"))
    assert len(f) == 1 and "tensormap" in f[0].values["buffer"], f
    assert f[0].values["byte"] < 128 and "complete_tx" in f[0].message


def test_a_fence_after_the_barrier_still_orders() -> None:
    report = _edited("fence after the barrier")
    assert not report.findings and report.status == "clean", report.findings


def test_a_fence_some_threads_may_skip_is_partial() -> None:
    report = _edited("predicated fence")
    assert not report.findings and report.status == "partial", report.findings
    assert any("proxy fence" in n.message and "not decided" in n.message
               for n in report.notes), [n.message for n in report.notes]  # fmt: skip


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
    elif edit == "retry label past its branch":
        # The branch then jumps forward: one try, and a failed one falls through as if the
        # phase had completed (ptxas takes it).
        out = re.sub(r"(\w+):(\\0A\\09)(mbarrier\.try_wait[^;]*;\\0A\\09@!\w+ bra(?:\.uni)? \1;)",
                     r"\3\2\1:", llir)  # fmt: skip
    else:
        out = re.sub(r"^.*mbarrier\.try_wait.*\n", "", llir, flags=re.M)
    assert out != llir, edit
    return check_texts(compiled.asm["ttgir"], out, "roundtrip.ttgir", races=True)


@pytest.mark.parametrize("edit", ["expect fewer bytes", "wait on a constant parity",
                                  "no arrival", "no wait", "retry label past its branch"])  # fmt: skip
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
