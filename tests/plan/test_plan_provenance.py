"""Every shared access judged against its own buffer, and the value-flow graph's exact
pass-through (``alias_spec/ir/flows.py``, ``alias_spec/plan/attribution.py``).

The overrun kernels and their controls are in ``tests/plan/cases/ground_truth.py`` (class (d), with
their GPU counts); here: the kernel scratch-base mutant (a text edit of a real dump), the
false-alarm kernels of a loop's accumulator, and the graph's edges on a hand-written module
(``tests/plan/cases/text/provenance/``, a text case of its own).
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from alias_spec.ir.flows import Flows
from alias_spec.ir.ttgir import read_module
from alias_spec.plan.api import check_texts
from tests.paths import PLAN_CASES
from tests.plan import expect

CASES = PLAN_CASES
from tools.plan import judge_corpus  # noqa: E402

needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                  reason="needs triton (compiles the kernels)")  # fmt: skip


def _judge(rec: dict, llir: str):
    a = rec["alloc"]
    return check_texts(rec["ttgir"], llir, f"{rec['name']}.ttgir",
                       allocated=(a["module"], a["debug"], a["version"]))  # fmt: skip


# --- the kernel scratch-base mutant ----------------------------------------------------------


def test_kernel_scratch_from_the_shared_base_is_a_finding() -> None:
    """``call_inlined`` (3.6) keeps a 4 KiB buffer at 0 across a layout conversion whose
    scratch the allocator put at 4096. Addressing that scratch from ``@global_smem`` itself
    (the call-frame bug's shape, in the kernel) stays inside ``ttg.shared``: only the scratch's
    own range shows it."""
    rec = judge_corpus.load(CASES / "corpus" / "3.6" / "call_inlined.json.gz")
    assert _judge(rec, rec["llir"]).status == "clean"
    base = "getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096)"
    assert base in rec["llir"]
    mutant = rec["llir"].replace(base, "@global_smem")
    report = _judge(rec, mutant)
    assert report.status == "findings", [n.message for n in report.notes]
    f = report.findings[0]
    assert f.rule == "lowering.outside"
    assert "scratch of ttg.convert_layout" in f.message and "[4096, 6144)" in f.message
    assert f.values["address"] < 4096


# --- the value-flow graph ----------------------------------------------------------------------


def test_flow_graph_passes_each_position_through() -> None:
    # A loop carrying a view of %ring beside an accumulator, through warp_group_dot_wait.
    loop = expect.CASES / "provenance" / "loop_view_and_accumulator.ttgir"
    fn = read_module(loop.read_text()).functions[0]
    held = Flows(fn).reach("%ring")
    # The ring reaches its view, the loop's view argument, the wait's view result, the loop's
    # view result...
    assert {"%v0", "%view", "%w#1", "%r#1"} <= held, held
    # ...but neither the accumulator nor the wait's accumulator result, nor the loop's first
    # result: a position holds what flows into that position only.
    assert not {"%acc", "%w#0", "%r#0", "%d"} & held, held


# --- false alarms: a loop's accumulator ------------------------------------------------------


@needs_triton
def test_int8_gemm_storing_its_accumulator_is_clean() -> None:
    """An int8 GEMM's int32 accumulator leaves the loop through warp_group_dot_wait; the
    scratch of its layout conversion after the loop reuses the dead ring's bytes. Reported as
    plan.overlap while the wait linked every operand to every result."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from alias_spec.plan import check_compiled
    from tests.plan.cases import corpus

    k = next(k for k in corpus.kernels() if k.name == "int8_gemm")
    src = ASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs),
                    attrs=k.attrs())  # fmt: skip
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(k.options))
    assert re.search(r"warp_group_dot_wait", kernel.asm["ttgir"])
    report = check_compiled(kernel)
    assert report.status == "clean", [x.message for x in report.findings + report.notes]


# --- the target's capacity ---------------------------------------------------------------------


def test_plan_larger_than_the_target_allows_is_said_first() -> None:
    """matmul_s5 (3.6) needs 163,840 bytes: within sm_90's 227 KiB per block, past sm_89's
    99 KiB. Said first, as one warning with both numbers; nothing said where it fits."""
    rec = judge_corpus.load(CASES / "corpus" / "3.6" / "matmul_s5.json.gz")
    report = _judge(rec, rec["llir"])
    assert report.shared == 163840 and report.status == "clean"
    assert '"cuda:90"' in rec["alloc"]["module"]
    small = dict(rec, alloc=dict(rec["alloc"], module=rec["alloc"]["module"].replace(
        '"cuda:90"', '"cuda:89"')), ttgir=rec["ttgir"].replace('"cuda:90"', '"cuda:89"'))  # fmt: skip
    report = _judge(small, rec["llir"])
    first = report.findings[0]
    assert first.rule == "plan.capacity" and first.level == "warning"
    assert "163840" in first.message and str(99 * 1024) in first.message
    assert "cannot launch" in first.message
