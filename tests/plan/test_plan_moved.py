"""A load whose location LLVM moved onto another op (flash-linear-attention's
``chunk_gla_fwd_A_kernel_intra_sub_inter``, captured on an H200: LLVM splits the
``<2 x i32>`` loads of one ``ttg.local_load`` into scalar loads and gives them the location
of the ``ttg.convert_layout`` that uses them, whose scratch overlaps the loaded buffer). Such a
load is judged against the buffers of the op its address was computed for when it runs beside
that op's own loads (nothing between them writes memory, calls or waits); otherwise it stays a
note, never clean.

The kernel and two mutants of its LLVM IR are text cases (``tests/plan/cases/text/moved/``,
compared by ``test_plan_cases.py``): beside their op, clean; a fence between, a note each; a
piece moved past both buffers, a finding. Here: what their EXPECT lines cannot say."""

from __future__ import annotations

from alias_spec.plan.plan import Report
from tests.plan import expect

MOVED = expect.CASES / "moved"


def _moved_notes(report: Report) -> list[str]:
    return [n.message for n in report.notes if "another op's location" in n.message]


def test_a_fence_between_leaves_notes_naming_the_loaded_buffer() -> None:
    """A fence between the local_load's vector loads and the split pieces: the pieces may run
    after other threads moved on, so they are not judged; each note names the buffer the
    piece's address was computed for."""
    report = expect.judge(MOVED / "fence_between.ttgir").report
    assert report is not None and report.status == "partial"
    notes = _moved_notes(report)
    assert notes and all("%b_qg_86" in n for n in notes)
