"""The plan's pipeline: a run that fails in a stage leaves nothing running (the LLVM IR's parse
probe, forked in the first stage, is ended)."""

from __future__ import annotations

import pytest

from alias_spec.plan import pipeline
from alias_spec.plan.runner import AllocationError
from tests.paths import PLAN_CASES

CASES = PLAN_CASES


def test_an_allocation_that_fails_is_one_line_and_ends_the_probe() -> None:
    """A module Triton refuses: one line, and the probe of its LLVM IR is not left running."""
    bad = (CASES / "call_frame.ttgir").read_text().replace("ttg.local_alloc", "ttg.no_such_op")
    run = pipeline.Run(bad, "bad.ttgir", llir=(CASES / "call_frame.llir").read_text())
    with pytest.raises(AllocationError) as got:
        pipeline.run(run)
    assert "\n" not in str(got.value)
    assert run.probe is None


@pytest.mark.parametrize("collecting", [True, False])
def test_the_cycle_collector_is_paused_during_the_stages_and_left_as_it_was(
    collecting: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every stage runs with Python's cycle collector off; afterwards it is as the caller had
    it, after a run that passes and after one that fails in a stage."""
    import gc

    seen: list[bool] = []
    stages = [(name, lambda run, f=f: (seen.append(gc.isenabled()), f(run))[1])
              for name, f in pipeline.STAGES]  # fmt: skip
    monkeypatch.setattr(pipeline, "STAGES", tuple(stages))
    text = (CASES / "call_frame.alloc.ttgir").read_text()
    was = gc.isenabled()
    try:
        gc.enable() if collecting else gc.disable()
        report = pipeline.run(pipeline.Run(text, "call_frame.alloc.ttgir"))
        assert report.status in ("clean", "partial")
        assert seen and not any(seen)
        assert gc.isenabled() is collecting

        def fails(run: pipeline.Run) -> None:
            raise AllocationError("refused")

        monkeypatch.setattr(pipeline, "STAGES", (stages[0], ("allocated", fails)))
        with pytest.raises(AllocationError):
            pipeline.run(pipeline.Run(text, "call_frame.alloc.ttgir"))
        assert gc.isenabled() is collecting
    finally:
        gc.enable() if was else gc.disable()
