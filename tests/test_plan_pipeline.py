"""The plan's pipeline asks for Triton's allocation in its first stage and waits for it in the
second (``pipeline._Prefetch``): the same report as asking in turn, the same one-line errors,
and nothing left running or changed in the interpreter afterwards."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from alias_spec.plan import pipeline
from alias_spec.plan.runner import AllocationError

CASES = Path(__file__).resolve().parent / "plan_cases"


def _report(text: str, llir: str | None, prefetch: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    if not prefetch:  # a TTGIR the first stage will not send: asked in the second stage
        monkeypatch.setattr(pipeline, "PREFETCH", False)
    run = pipeline.Run(text, "call_frame.ttgir", llir=llir)
    report = pipeline.run(run)
    monkeypatch.undo()
    assert run.prefetch is None and run.probe is None
    return "\n".join([report.status, *(f.message for f in report.findings),
                      *(n.message for n in report.notes)])  # fmt: skip


def test_asked_early_or_in_turn_the_report_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (CASES / "call_frame.ttgir").read_text()
    llir = (CASES / "call_frame.llir").read_text()
    before = sys.getswitchinterval()
    made: list[object] = []

    class Counted(pipeline._Prefetch):
        def __init__(self, *args: object) -> None:
            made.append(self)
            super().__init__(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "_Prefetch", Counted)
    early = _report(text, llir, True, monkeypatch)
    assert len(made) == 1  # the allocation was asked for early
    assert sys.getswitchinterval() == before  # lowered while waiting, given back after
    assert early == _report(text, llir, False, monkeypatch)


def test_an_allocation_that_fails_is_the_same_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module Triton refuses: the error raised from the prefetching thread is the one the
    second stage would raise, and the interpreter's switch interval is given back."""
    bad = (CASES / "call_frame.ttgir").read_text().replace("ttg.local_alloc", "ttg.no_such_op")
    before = sys.getswitchinterval()
    messages = []
    for prefetch in (True, False):
        if not prefetch:
            monkeypatch.setattr(pipeline, "PREFETCH", False)
        with pytest.raises(AllocationError) as got:
            pipeline.run(pipeline.Run(bad, "bad.ttgir"))
        monkeypatch.undo()
        messages.append(str(got.value))
        assert "\n" not in str(got.value)
    assert messages[0] == messages[1]
    assert sys.getswitchinterval() == before
