"""`alias-spec plan --llir` never says clean about a shared access it did not judge.

Cases: ``tests/plan/cases/soundness/llir/*.llir``, trimmed from Triton's lowering of small
kernels and mutated. Each file's first lines state its verdict (``; EXPECT: clean``,
``partial``, ``findings`` or ``error``), a substring of the note, finding or error that must
name the cause (``; NOTE:``) and, when not ``rsum.ttgir``, the TTGIR it is judged against
(``; TTGIR:``); the comment under them says how a validator that skips the access judged it:
clean, as the hand-written reader this issue replaced judged all 13 mutated cases. The verdicts are read through the command, as a user gets them (exit 0, 1, 2, 3).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from alias_spec.api import run as cli_main
from alias_spec.plan.llir import LlirError, check_lowering
from alias_spec.plan.plan import check_plan
from tests.paths import PLAN_CASES

CASES = PLAN_CASES / "soundness" / "llir"
EXIT = {"clean": 0, "findings": 1, "error": 2, "partial": 3}
LLIR = sorted(CASES.glob("*.llir"))

from tools.plan.soundness.llir import make_scaling  # noqa: E402


def _header(path: Path) -> tuple[str, str, str]:
    head = path.read_text().splitlines()[:3]
    exp = re.fullmatch(r"; EXPECT: (\w+)", head[0])
    note = re.fullmatch(r"; NOTE:\s*(.*)", head[1])
    assert exp and note, f"{path.name}: no EXPECT / NOTE header"
    assert exp.group(1) in EXIT, f"{path.name}: unknown verdict {exp.group(1)}"
    ttgir = re.fullmatch(r"; TTGIR: (\S+)", head[2]) if len(head) > 2 else None
    return exp.group(1), note.group(1).strip(), ttgir.group(1) if ttgir else "rsum.ttgir"


def test_every_verdict_has_a_case() -> None:
    verdicts = {_header(p)[0] for p in LLIR}
    assert verdicts == set(EXIT), verdicts
    assert len(LLIR) >= 15


@pytest.mark.parametrize("path", LLIR, ids=[p.stem for p in LLIR])
def test_case_verdict(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect, note, ttgir = _header(path)
    code = cli_main(["plan", str(CASES / ttgir), "--llir", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == EXIT[expect], out + err
    if expect == "error":
        assert out == "" and len(err.strip().splitlines()) == 1, err
        assert note in err, err
        return
    assert err == "", err
    if note:
        assert note in out, out
    else:  # clean: nothing left unjudged, every access checked
        assert '"notes": []' in out and '"findings": []' in out, out


def test_another_kernel_names_both() -> None:
    """The error names the TTGIR's kernel and the function the LLVM IR defines instead."""
    report, module, _ = check_plan((CASES / "rsum.ttgir").read_text(), "rsum.ttgir")
    text = (CASES / "other_kernel.llir").read_text()
    with pytest.raises(LlirError, match=r"@rsum\b.*@softmax_kernel"):
        check_lowering(text, "other.llir", report, module.num_warps)
    with pytest.raises(LlirError, match=r"@rsum\b.*@softmax_kernel"):
        check_lowering(text, "other.llir", report, module.num_warps, kernels=["rsum"])
    # The same text under the kernel's own name is judged (the control).
    fixed = text.replace("@softmax_kernel(", "@rsum(")
    check_lowering(fixed, "rsum.llir", report, module.num_warps, kernels=["rsum"])
    assert report.status == "clean", report.notes


def test_quoted_callee_found_by_its_symbol() -> None:
    """A frame named by a quoted symbol in the TTGIR and by the same symbol in the LLVM IR:
    the callee's accesses are judged against the frame, not against the whole kernel."""
    report, module, _ = check_plan((CASES / "quoted_callee.ttgir").read_text(), "q.ttgir")
    check_lowering((CASES / "quoted_callee_frame_dropped.llir").read_text(), "q.llir", report,
                   module.num_warps)  # fmt: skip
    (f,) = report.findings
    assert f.function == "soundness_kernels.helper__Pfp32_Pfp32__(2,)cconstexpr_1024_"
    assert f.values["range"] == [16, 32] and f.values["address"] < 16


@pytest.mark.parametrize("chained", [False, True])
def test_nested_loop_phis_judged(chained: bool) -> None:
    """Four nested loops, each carrying a counter, a wrapping stage index and a shared stage
    pointer (12 loop phis): every access proved inside; with one byte less ttg.shared the
    last stage's accesses are not proved (a witness over loop-carried values is not reported
    as a finding, the access is not judged): the proof depends on the loops' bounds."""
    n = 4
    text = make_scaling.module(n, chained=chained)
    report, module, _ = check_plan(make_scaling.ttgir(n), "s.ttgir")
    check_lowering(text, "s.llir", report, module.num_warps, kernels=["scaling"])
    assert report.status == "clean", (report.notes, report.findings)
    assert report.lowering == f"{2 * n} shared accesses checked"
    short, module, _ = check_plan(make_scaling.ttgir(n, make_scaling.shared_bytes(n) - 1), "s")
    check_lowering(text, "s.llir", short, module.num_warps, kernels=["scaling"])
    assert short.status == "partial" and not short.findings
    assert all(n.kind == "lowering.unbounded" for n in short.notes), short.notes


def test_unknown_trip_count_still_bounded() -> None:
    """Loops whose trip count is a constant bound the same way as an argument's."""
    text = make_scaling.module(2, trip="7")
    report, module, _ = check_plan(make_scaling.ttgir(2), "s.ttgir")
    check_lowering(text, "s.llir", report, module.num_warps)
    assert report.status == "clean", (report.notes, report.findings)


HAS_TRITON = importlib.util.find_spec("triton") is not None
SOUNDNESS = CASES.parent


@pytest.mark.skipif(not HAS_TRITON, reason="needs triton (the release's allocator)")
@pytest.mark.parametrize(("name", "expect"), [("call_frame_constexpr", "findings"),
                                              ("call_frame_constexpr_dead", "clean")])  # fmt: skip
def test_quoted_callee_through_the_release(name: str, expect: str) -> None:
    """The call-frame kernels whose callee's symbol is quoted, planned by the installed
    release (3.6: the frame bug is in the lowering of the first, not of the second)."""
    report, module, _ = check_plan((SOUNDNESS / f"{name}.ttgir").read_text(), f"{name}.ttgir")
    if not report.plan_from.startswith("triton 3.6"):
        pytest.skip("the expectations are those of Triton 3.6")
    frame = next(b for b in report.buffers if b.kind == "frame")
    assert frame.size == 2048, frame
    check_lowering((SOUNDNESS / f"{name}.llir").read_text(), f"{name}.llir", report,
                   module.num_warps)  # fmt: skip
    assert report.status == expect, (report.findings, report.notes)
