"""Buffer sizes the plan is proved with: an allocation's size never below what its type needs,
and the allocator's sizes given to the function they belong to.

A size smaller than the memdesc type's elements need (an ``allocation.size`` in a dump, or the
allocator's output) would let a plan that overlaps read as clean: it is a finding
(``plan.size``) and the proof goes on with the type's bytes. The allocator's debug output
names ops, not functions; two callees whose buffers share op and offset must still get their
own sizes (the lit functions ``multiple_calls`` and ``if_else_calls`` check it too).

Modules whose verdict says it all (a size at, above or below its type; callees the allocator's
output cannot tell apart) are text cases: ``tests/plan/cases/text/sizes/``, compared by
``test_plan_cases.py``. Here: the values a finding names, and mutations of stored output.
"""

from __future__ import annotations

import json
import re

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
