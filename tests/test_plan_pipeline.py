"""The plan's pipeline: a run that fails in a stage leaves nothing running (the LLVM IR's parse
probe, forked in the first stage, is ended)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alias_spec.plan import pipeline
from alias_spec.plan.runner import AllocationError

CASES = Path(__file__).resolve().parent / "plan_cases"


def test_an_allocation_that_fails_is_one_line_and_ends_the_probe() -> None:
    """A module Triton refuses: one line, and the probe of its LLVM IR is not left running."""
    bad = (CASES / "call_frame.ttgir").read_text().replace("ttg.local_alloc", "ttg.no_such_op")
    run = pipeline.Run(bad, "bad.ttgir", llir=(CASES / "call_frame.llir").read_text())
    with pytest.raises(AllocationError) as got:
        pipeline.run(run)
    assert "\n" not in str(got.value)
    assert run.probe is None
