"""`alias-spec lint` on real TTGIR dumps (tests/lint_cases/*.ttgir, compiled by Triton 3.6.0 for
sm_90 from tests/lint_cases/kernels.py) and on hand-written modules.

Expected findings are written down from the kernels' comments (which view is the planted bug,
on which line of the dump), not read back from the linter. Runs in about two seconds.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.catalogue import rules_for
from alias_spec.lint import lint_text, main, to_sarif

CASES = Path(__file__).resolve().parent / "lint_cases"


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

CLEAN = ["tle_alias_view.ttgir", "tle_alias_rows.ttgir", "pipelined.ttgir", "views.ttgir"]


@pytest.mark.parametrize("name", CLEAN)
@pytest.mark.parametrize("profile", ["safe", "triton-3.6"])
def test_correct_kernels_are_clean(name: str, profile: str) -> None:
    report = _lint(name, profile)
    assert report.findings == [], [f.to_json() for f in report.findings]


def test_views_of_real_dumps_are_followed_to_their_allocation() -> None:
    # pipelined: one runtime memdesc_index inside an scf.for; views: two slices, a transpose
    # (followed, not judged) and a reinterpret.
    assert _lint("pipelined.ttgir", "safe").views == 1
    assert _lint("views.ttgir", "safe").views == 3
    assert _lint("tle_alias_rows.ttgir", "safe").views >= 2


@pytest.mark.parametrize(
    ("name", "op", "rules"),
    [
        # 512 bytes reinterpreted as 2048.
        ("reinterpret_overflow.ttgir", "ttg.memdesc_reinterpret", {"alias.range.fits"}),
        # Buffer 2 of 2.
        ("index_overflow.ttgir", "ttg.memdesc_index", {"alias.range.fits"}),
        # Rows [64, 96) of 64.
        ("slice_overflow.ttgir", "ttg.memdesc_subslice", {"alias.range.fits"}),
    ],
)
def test_planted_bugs_are_found_at_their_op(name: str, op: str, rules: set[str]) -> None:
    report = _lint(name, "safe")
    assert report.findings, "the bug Triton 3.6 compiled was not reported"
    found = {f.rule for f in report.findings}
    assert rules <= found
    line = _line_of(name, rf"= {re.escape(op)} .*\[%c2_i32\]" if "index" in name else f"= {op} ")
    for f in report.findings:
        assert (f.op, f.line, f.level) == (op, line, "error")  # the bytes leave the allocation
        assert f.column == (CASES / name).read_text().splitlines()[line - 1].index(op) + 1
        assert f.source and f.source.startswith("tests/lint_cases/kernels.py:")


def test_triton_profiles_on_real_dumps() -> None:
    # Triton 3.6 compiled the overflowing reinterpret: its own profile is clean, 3.8 and 3.9
    # reject it (same size, fits).
    assert _lint("reinterpret_overflow.ttgir", "triton-3.6").findings == []
    assert {f.rule for f in _lint("reinterpret_overflow.ttgir", "triton-3.8").findings} == {
        "triton.reinterpret.same_size"
    }
    assert {f.rule for f in _lint("reinterpret_overflow.ttgir", "triton-3.9").findings} == {
        "triton.reinterpret.fits"
    }
    assert {f.rule for f in _lint("slice_overflow.ttgir", "triton-3.9").findings} == {
        "triton.subslice.bounds"
    }


def test_frontend_recipe_steps_are_warnings_inside_the_allocation() -> None:
    # The granule recipe (FlagTree's lit case, offset 128) reinterprets a 128-byte index view
    # as 4096 bytes: larger than its own source view, still inside the allocation. Triton 3.6
    # accepts it; 3.9 would not.
    report = _lint("tle_alias_lit.ttgir", "safe")
    assert report.findings
    assert {f.level for f in report.findings} == {"warning"}
    assert _lint("tle_alias_lit.ttgir", "triton-3.6").findings == []
    assert {f.rule for f in _lint("tle_alias_lit.ttgir", "triton-3.9").findings} == {
        "triton.reinterpret.fits"
    }


# --- hand-written modules -------------------------------------------------------------------


def test_flagtree_module() -> None:
    report = _lint("flagtree_alias.mlir", "safe")
    by_result: dict[str, set[str]] = {}
    for f in report.findings:
        by_result.setdefault(f.result, set()).add(f.rule)
    assert "%alias" not in by_result  # FlagTree's valid lit case
    assert {"alias.range.fits", "alias.range.physical"} <= by_result["%past_end"]
    assert by_result["%unaligned"] == {"alias.base.aligned"}  # 2048 on a 1024-byte repeat
    assert "alias.range.fits" in by_result["%chained"]  # 4096 + 2048 bytes past a 4096 view
    past_end = next(f for f in report.findings if f.result == "%past_end")
    assert past_end.line == _line_of("flagtree_alias.mlir", "%past_end =")  # a 3-line op
    assert past_end.fix == "use offset_bytes = 8190"  # the solver's nearest valid offset
    # Stock Triton has no tle.memdesc_alias.
    stock = _lint("flagtree_alias.mlir", "triton-3.9")
    assert {f.rule for f in stock.findings} == {"triton.op.stock"}
    assert len(stock.findings) == 4


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("safe", {"%cols": "alias.range.fits", "%rw": "alias.mutability",
                  "%flat": "alias.range.physical", "%three": "alias.range.fits"}),
        ("triton-3.6", {"%four": "triton.subslice.swizzle"}),
        ("triton-3.8", {"%raw": "triton.reinterpret.no_subview", "%cols": "triton.subslice.start",
                        "%rw": "triton.reinterpret.mutability",
                        "%flat": "triton.reinterpret.no_subview",
                        "%four": "triton.subslice.swizzle"}),
        ("triton-3.9", {"%cols": "triton.subslice.bounds", "%rw": "triton.reinterpret.mutability",
                        "%flat": "triton.reinterpret.owned", "%four": "triton.subslice.swizzle"}),
    ],
)  # fmt: skip
def test_stock_view_module(profile: str, expected: dict[str, str]) -> None:
    report = _lint("stock_views.mlir", profile)
    got: dict[str, set[str]] = {}
    for f in report.findings:
        got.setdefault(f.result, set()).add(f.rule)
    assert set(got) == set(expected)
    for result, rule_id in expected.items():
        assert rule_id in got[result], (result, got[result])
    # The untraced view (a function argument) is judged as its own allocation, with a note.
    assert any("not traced" in n for n in report.notes)


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
    assert "fix:" in out and "kernel source: tests/lint_cases/kernels.py:" in out
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
    assert len(err.strip().splitlines()) == 1 and err.startswith("alias-spec lint: cannot read")


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


@pytest.mark.parametrize(
    "name", ["flagtree_alias.mlir", "stock_views.mlir", "index_overflow.ttgir"]
)
@pytest.mark.parametrize("profile", ["safe", "triton-3.9"])
def test_sarif_is_valid_2_1_0(name: str, profile: str) -> None:
    report = _lint(name, profile)
    log = to_sarif(report)
    validate_sarif(json.loads(json.dumps(log)))
    results = log["runs"][0]["results"]
    assert len(results) == len(report.findings)
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == [
        r.id for r in rules_for(profile)
    ]
    for res, f in zip(results, report.findings, strict=True):
        region = res["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (f.line, f.column)


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
