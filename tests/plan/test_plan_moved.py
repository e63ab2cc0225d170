"""A load whose location LLVM moved onto another op (flash-linear-attention's
``chunk_gla_fwd_A_kernel_intra_sub_inter``, captured on an H200: LLVM splits the
``<2 x i32>`` loads of one ``ttg.local_load`` into scalar loads and gives them the location
of the ``ttg.convert_layout`` that uses them, whose scratch overlaps the loaded buffer). Such a
load is judged against the buffers of the op its address was computed for when it runs beside
that op's own loads (nothing between them writes memory, calls or waits); otherwise it stays a
note, never clean."""

from __future__ import annotations

import tarfile
from functools import cache

from alias_spec.plan.api import check_texts
from tests.paths import PLAN_CASES

HERE = PLAN_CASES / "realworld" / "h200"
KERNEL = (
    "H4QE2K6HXBO525NYCA5GK2ZIRJEO4YNECARXCGPALEBDEQE37VZA/chunk_gla_fwd_A_kernel_intra_sub_inter"
)


@cache
def _texts() -> tuple[str, str]:
    with tarfile.open(HERE / "fla.tar.xz") as tar:
        got = {}
        for ext in ("ttgir", "llir"):
            f = tar.extractfile(f"{KERNEL}.{ext}")
            assert f is not None
            got[ext] = f.read().decode()
    return got["ttgir"], got["llir"]


def _moved_notes(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.message for n in report.notes if "another op's location" in n.message]


def test_split_loads_beside_their_op_are_judged() -> None:
    ttgir, llir = _texts()
    report = check_texts(ttgir, llir)
    assert report.status == "clean", [n.message for n in report.notes][:3]
    assert not _moved_notes(report)


def test_a_fence_between_leaves_them_a_note() -> None:
    """A fence between the local_load's vector loads and the split pieces: the pieces may run
    after other threads moved on, so they are not judged (a note each, partial)."""
    ttgir, llir = _texts()
    anchor = "  %.extract71 = load i32, ptr addrspace(3) %427"
    assert llir.count(anchor) == 1
    mutant = llir.replace(anchor, '  fence syncscope("block") acq_rel\n' + anchor)
    report = check_texts(ttgir, mutant)
    assert report.status == "partial"
    notes = _moved_notes(report)
    assert notes and all("%b_qg_86" in n for n in notes)


def test_a_split_load_leaving_both_buffers_is_a_finding() -> None:
    """The same piece moved 8 KiB on, past every buffer its op or its address's op names."""
    ttgir, llir = _texts()
    old = "  %.extract71 = load i32, ptr addrspace(3) %427, align 8"
    new = ("  %far = getelementptr inbounds nuw i8, ptr addrspace(3) %427, i32 8192\n"
           "  %.extract71 = load i32, ptr addrspace(3) %far, align 8")  # fmt: skip
    assert llir.count(old) == 1
    report = check_texts(ttgir, llir.replace(old, new))
    assert report.status == "findings"
    assert any(f.rule.startswith("lowering") for f in report.findings)
