"""``alias-spec dev campaigns`` (alias_spec/difftest/campaigns.py) as a command: its bad
arguments, tiny runs of each campaign and the entry ``--write`` records, a broken engine and a
failed check reported with status 1, and the committed full-size results.

The campaigns themselves, at their sample sizes, are the differential tests
(tests/difftest/test_differential.py, test_request_diff.py, test_triton_random.py); these stay
at tiny sizes (seconds).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.difftest import campaigns
from alias_spec.engines import cpp_engine, py_engine
from tests.paths import ROOT

RECORD = ROOT / "docs" / "data" / "campaigns.json"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
needs_cxx = pytest.mark.skipif(cpp_engine.compiler() is None, reason="no C++ compiler (g++)")
needs_triton = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="triton is not importable here"
)


@pytest.fixture(autouse=True)
def _in_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    # The command reads the case files and the boundary corpus relative to the checkout.
    monkeypatch.chdir(ROOT)


def _run(argv: list[str]) -> int:
    """``main``'s status, whether it returns one or argparse exits with it."""
    try:
        return campaigns.main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--size", "-1"], "--size: -1 is not a positive number"),
        (["--size", "abc"], "--size: 'abc' is not a whole number"),
        (["--size", "0"], "--size: 0 is not a positive number"),
        (["nope"], "unknown campaign 'nope'"),
        (["engines", "--full", "--size", "3"], "not allowed with argument --full"),
        (["engines", "--size", "1001"], "scale is 1 to 1000"),
        (["--seed", "x"], "--seed: invalid int value"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith("alias-spec: error: dev campaigns: ") and says in err, err


def test_bad_arguments_through_the_entry_point() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "alias_spec", "dev", "campaigns", "--size", "-1"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert (p.returncode, p.stdout, p.stderr.count("\n")) == (2, "", 1), p.stderr
    assert "Traceback" not in p.stderr


def test_a_bad_record_is_refused_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "campaigns.json"
    out.write_text("[1, 2")
    assert _run(["requests", "--size", "1", "--write", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err, err
    assert out.read_text() == "[1, 2"


def test_an_interpreter_that_is_not_there_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["triton", "--size", "1", "--python", "/nonexistent/bin/python"]) == 2
    err = capsys.readouterr().err
    assert err == "alias-spec: error: triton: --python /nonexistent/bin/python does not exist\n"


def test_sizes() -> None:
    # The full sizes are what CI ran on every push before; the samples are smaller.
    assert {k: s.full for k, s in campaigns.SIZES.items()} == {
        "engines": 1000, "requests": 100_000, "triton": 10_000,
    }  # fmt: skip
    for name, s in campaigns.SIZES.items():
        assert 0 < s.sample < s.full, name


def _entry_is_well_formed(entry: dict[str, Any], name: str, size: int) -> None:
    assert entry["name"] == name and entry["size"] == size and not entry["full"]
    assert DATE.fullmatch(entry["date"]) and entry["seconds"] >= 0 and entry["cpus"] >= 1
    assert entry["seed"] == campaigns.SIZES[name].seed
    assert entry["divergences"] == [] and entry["failed"] == []
    assert set(entry["tools"]) >= ({"triton"} if name == "triton" else {"z3"})


@needs_cxx
def test_tiny_runs_write_their_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "campaigns.json"
    if RECORD.exists():  # into a copy of the committed record: other entries stay as they are
        shutil.copy(RECORD, out)
    before = campaigns.read_record(out)["campaigns"]
    argv = ["engines", "requests", "--size", "2", "--write", "--out", str(out), "--json",
            "--regressions", str(tmp_path / "regressions")]  # fmt: skip
    assert _run(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    text = out.read_text()
    data = json.loads(text)
    assert text == json.dumps(data, indent=1, sort_keys=True) + "\n"  # sorted, stable
    got = data["campaigns"]
    assert [e["name"] for e in printed] == ["engines", "requests"]
    for entry in printed:
        assert got[entry["name"]] == entry
    _entry_is_well_formed(got["engines"], "engines", 2)
    _entry_is_well_formed(got["requests"], "requests", 2)
    assert got["engines"]["counts"]["cases"] > 2000  # the boundary cases and the rest
    assert got["requests"]["counts"]["requests"] == 2
    assert "both sides of every rule (from 3000)" in got["requests"]["not_checked"]
    for name in set(before) - {"engines", "requests"}:
        assert got[name] == before[name], name
    assert not (tmp_path / "regressions").exists()  # nothing diverged, nothing saved


@needs_triton
def test_a_tiny_triton_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "campaigns.json"
    assert _run(["triton", "--size", "3", "--write", "--out", str(out)]) == 0
    entry = json.loads(out.read_text())["campaigns"]["triton"]
    _entry_is_well_formed(entry, "triton", 3)
    assert entry["counts"]["cases"] == 3
    assert "triton (size 3, seed 2026)" in capsys.readouterr().out


@needs_cxx
def test_a_broken_engine_is_reported(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = py_engine.PythonEngine.outcome

    def broken(self: py_engine.PythonEngine, f: Any, p: str) -> Any:
        o = real(self, f, p)  # drops the last fired rule: a typical generator slip
        return o[:-1] if isinstance(o, tuple) and o else o

    monkeypatch.setattr(py_engine.PythonEngine, "outcome", broken)
    out = tmp_path / "campaigns.json"
    saves = tmp_path / "regressions"
    argv = ["engines", "requests", "--size", "1", "--write", "--out", str(out),
            "--regressions", str(saves)]  # fmt: skip
    assert _run(argv) == 1
    printed = capsys.readouterr().out
    assert "DIVERGENCE" in printed and "python: []" in printed  # engines, shrunk
    assert "interp vs python (engine)" in printed  # requests
    got = json.loads(out.read_text())["campaigns"]
    assert got["engines"]["divergences"] and got["requests"]["divergences"]
    saved = sorted(saves.glob("*.json"))
    assert saved and all(str(p) in printed for p in saved)
    body = json.loads(saved[0].read_text())
    assert body["outcomes"]["interp"] != body["outcomes"]["python"]


def test_explained_divergences_are_counted_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the tests' KNOWN recognises is no failure: counted, not reported.
    real = py_engine.PythonEngine.outcome
    monkeypatch.setattr(py_engine.PythonEngine, "outcome",
                        lambda self, f, p: (*real(self, f, p), "alias.range.fits"))  # fmt: skip
    broken = campaigns.requests(50)
    assert not broken.ok and broken.divergences
    out = campaigns.requests(50, explained=lambda d: "known" if d.right == "python" else None)
    assert out.ok, out.report()
    assert out.counts["explained"] >= 50 and out.divergences == []


@needs_cxx
def test_a_failed_check_is_status_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(campaigns, "min_z3", lambda scale: 10**9)  # a floor no run reaches
    assert _run(["engines", "--size", "1"]) == 1
    printed = capsys.readouterr().out
    assert "1 failed checks" in printed and "FAILED: z3 judged" in printed


def test_snapshot_committed_full_campaigns() -> None:
    """A snapshot of the committed full-size results (``alias-spec dev campaigns --full
    --write``), not a run: the independent truth is the sampled campaigns run by the
    differential tests on every CI run."""
    got = json.loads(RECORD.read_text())["campaigns"]
    for name in ("engines", "requests", *(("triton",) if "triton" in got else ())):
        entry = got[name]
        assert entry["full"] and entry["size"] >= campaigns.SIZES[name].full, name
        assert DATE.fullmatch(entry["date"]), name
        assert entry["divergences"] == [] and entry["failed"] == [], name
        assert entry["not_checked"] == [], name
    assert got["engines"]["counts"]["cases"] >= 1_000_000
    assert got["requests"]["counts"]["requests"] >= 100_000
