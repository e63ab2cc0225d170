"""Buffer sizes the plan is proved with: an allocation's size never below what its type needs,
and the allocator's sizes given to the function they belong to.

A size smaller than the memdesc type's elements need (an ``allocation.size`` in a dump, or the
allocator's output) would let a plan that overlaps read as clean: it is a finding
(``plan.size``) and the proof goes on with the type's bytes. The allocator's debug output
names ops, not functions; two callees whose buffers share op and offset must still get their
own sizes (the lit functions ``multiple_calls`` and ``if_else_calls`` check it too).
"""

from __future__ import annotations

import json
import re

import pytest

from alias_spec.plan.plan import check_plan
from tests.paths import PLAN_CASES

CASES = PLAN_CASES
BELOW = CASES / "flagtree" / "size_below_type.ttgir"


def _rules(text: str, allocated: tuple[str, str, str] | None = None) -> list[str]:
    report, _, _ = check_plan(text, "k.ttgir", allocated=allocated)
    return sorted(f.rule for f in report.findings)


def test_a_size_below_the_type_is_flagged_not_proved_clean() -> None:
    text = BELOW.read_text()
    report, _, buffers = check_plan(text, BELOW.name)
    assert report.status == "findings"
    assert sorted(f.rule for f in report.findings) == ["plan.overlap", "plan.size"]
    size = next(f for f in report.findings if f.rule == "plan.size")
    assert size.values == {"size": 4096, "size_from": "attribute", "type_bytes": 16384}
    assert "%arena" in size.message and size.source == "kernel.py:50:12"
    # The proof used the type's bytes: the histogram's scratch at 8192 is inside them.
    (arena,) = [b for b in buffers if b.kind == "alloc"]
    assert (arena.offset, arena.size) == (0, 16384)


def test_a_size_that_fits_the_type_is_used_as_written() -> None:
    text = BELOW.read_text()
    exact = text.replace("allocation.size = 4096 : i32", "allocation.size = 16384 : i32")
    assert _rules(exact) == ["plan.overlap"]
    # Larger than the type (the allocator may pad): kept, and the overlap still found.
    larger = text.replace("allocation.size = 4096 : i32", "allocation.size = 20480 : i32")
    larger = larger.replace("ttg.shared = 16384", "ttg.shared = 20480")
    report, _, buffers = check_plan(larger, "k.ttgir")
    assert sorted(f.rule for f in report.findings) == ["plan.overlap"]
    assert [b.size for b in buffers if b.kind == "alloc"] == [20480]
    # Placed where it belongs (the scratch after the buffer): no finding at all.
    fixed = larger.replace("allocation.offset = 8192 : i32, allocation.size = 1024",
                           "allocation.offset = 20480 : i32, allocation.size = 1024").replace(
        "ttg.shared = 20480", "ttg.shared = 21504")  # fmt: skip
    assert _rules(fixed) == []


MODULE = (
    "#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>\n"
    "#smem = #ttg.shared_memory\n"
    'module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = {ctas} : i32, '
    "ttg.shared = 4096 : i32}} {{\n"
    "  tt.func public @k() {{\n"
    "    %a = ttg.local_alloc {{allocation.offset = 0 : i32, allocation.size = {size} : i32}} : "
    "() -> !ttg.memdesc<{shape}, #shared, #smem, mutable>\n"
    "    tt.return\n"
    "  }}\n"
    "}}\n"
)


@pytest.mark.parametrize(
    "shape,size,ctas,rules",
    [
        # A lower bound, bits packed (Triton gives an i1 a byte: more, never fewer).
        ("64xi1", 8, 1, []),
        ("64xi1", 7, 1, ["plan.size"]),
        ("3xi1", 1, 1, []),
        ("16x16xf16", 511, 1, ["plan.size"]),
        ("16x16xf16", 512, 1, []),
        ("16x16xf16", 256, 2, []),  # two CTAs: each holds part of the type (not judged here)
        ("16x16x!tt.ptr<f16>", 1024, 1, []),  # a type this check does not size: not judged
    ],
)
def test_type_bytes_are_a_lower_bound(shape: str, size: int, ctas: int, rules: list[str]) -> None:
    assert _rules(MODULE.format(shape=shape, size=size, ctas=ctas)) == rules


def test_an_allocator_size_below_the_type_is_flagged() -> None:
    # Triton's own output for the lit function @multiple_calls, with alloc2's buffer (32x16xf16,
    # 1024 bytes) reported as 512 bytes.
    lit = CASES / "triton_lit" / "allocation-6da8a386"
    text = (lit / "multiple_calls.ttgir").read_text()
    record = json.loads((lit / "multiple_calls.3.9.0.alloc.json").read_text())
    debug, count = re.subn(r"^-- 0 1024 0 interval 0 1$", "-- 0 512 0 interval 0 1",
                           record["debug"], flags=re.M)  # fmt: skip
    assert count >= 1
    assert _rules(text, (record["module"], record["debug"], record["version"])) == []
    report, _, buffers = check_plan(text, "k.ttgir",
                                    allocated=(record["module"], debug, record["version"]))  # fmt: skip
    (size,) = report.findings
    assert size.rule == "plan.size" and size.function == "alloc2"
    assert size.values == {"size": 512, "size_from": "allocator", "type_bytes": 1024}


def test_callees_that_look_alike_keep_their_own_sizes() -> None:
    lit = CASES / "triton_lit" / "allocation-6da8a386"
    text = (lit / "multiple_calls.ttgir").read_text()
    record = json.loads((lit / "multiple_calls.3.9.0.alloc.json").read_text())
    report, _, buffers = check_plan(text, "k.ttgir",
                                    allocated=(record["module"], record["debug"],
                                               record["version"]))  # fmt: skip
    sizes = {(b.function, b.kind, b.callee): b.size for b in buffers}
    assert sizes == {
        ("alloc1", "alloc", None): 512,  # 16x16xf16
        ("alloc2", "alloc", None): 1024,  # 32x16xf16
        ("multiple_calls", "alloc", None): 512,
        ("multiple_calls", "frame", "alloc1"): 512,
        ("multiple_calls", "frame", "alloc2"): 1024,
    }
    assert report.status == "clean"


CALLEES = """#AL = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#BL = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#CL = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @first(%x: tensor<32x32xf32, #AL>) {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #AL> -> tensor<32x32xf32, #BL>
    tt.return
  }
  tt.func @second(%x: tensor<32x32xf32, #AL>) {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #AL> -> tensor<32x32xf32, #CL>
    tt.return
  }
  tt.func @k(%x: tensor<32x32xf32, #AL>) {
    tt.call @first(%x) : (tensor<32x32xf32, #AL>) -> ()
    tt.call @second(%x) : (tensor<32x32xf32, #AL>) -> ()
    tt.return
  }
}
"""  # noqa: E501


def test_callees_the_output_cannot_tell_apart_are_noted_not_guessed() -> None:
    """Two callees, each one convert_layout at offset 0, with scratch of different sizes: the
    debug output names no function, so which block is whose is unknown. Their sizes are not
    guessed from file order: a note, the scratch not judged, nothing clean."""
    pytest.importorskip("triton")
    from alias_spec.plan.runner import allocate

    done = allocate(CALLEES, prepasses="none")
    blocks = re.findall(r"^-- 0 (\d+) 0 interval", done.debug, flags=re.M)
    assert len(set(blocks)) >= 2, "the two scratch sizes must differ for this test"
    report, _, buffers = check_plan(CALLEES, "k.ttgir",
                                    allocated=(done.module, done.debug, done.version))  # fmt: skip
    assert not report.findings
    assert report.status == "partial"
    kinds = {n.kind for n in report.notes}
    assert "plan.ambiguous" in kinds and "plan.unsized" in kinds
    scratch = {b.function: b.size for b in buffers if b.kind == "scratch"}
    assert scratch == {"first": None, "second": None}
