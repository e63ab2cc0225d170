"""`alias-spec triton-diff`: a short run on the installed Triton, bad input, the --write merge.

The runs judge a few dozen cases spread over the case set (``--limit``), so each takes seconds;
the full comparison and the committed table are checked in test_triton_profiles.py. Tests that
run Triton's verifiers skip when triton is not importable or has no profile.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.api import run as main
from alias_spec.difftest.triton import diff, report, worker
from tests.paths import ROOT

COMMITTED = ROOT / "docs" / "triton-agreement.json"
OPS = {"ttg.memdesc_index", "ttg.memdesc_reinterpret", "ttg.memdesc_subslice"}


def _installed_triton() -> str | None:
    if importlib.util.find_spec("triton") is None:
        return None
    import triton

    return str(triton.__version__)


def _has_profile(version: str | None) -> bool:
    return version is not None and ".".join(version.split(".")[:2]) in diff.PROFILE_OF


needs_triton = pytest.mark.skipif(
    not _has_profile(_installed_triton()), reason="needs an importable triton with a profile"
)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["triton-diff", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def _wrapper(tmp_path: Path, body: str) -> str:
    """An executable that runs this interpreter in a changed environment."""
    path = tmp_path / "py"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# --- the installed Triton -------------------------------------------------------------------


@needs_triton
def test_short_run_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "--limit", "60", "--json")
    result: dict[str, Any] = json.loads(out)
    s = result["summary"]
    assert rc == 0, (err, result["unexplained"][:3])
    assert result["version"] == _installed_triton()
    assert result["profile"] == diff.profile_for(result["version"])
    assert s["cases"] == 60 and s["agree"] == s["cases"]
    assert set(s["by_op"]) == OPS  # the limit spreads over the set, not only its head
    assert result["unexplained"] == [] and result["written"] == []


@needs_triton
def test_text_output_names_release_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "--limit", "12")
    assert rc == 0
    first = out.splitlines()[0]
    assert f"Triton {_installed_triton()}" in first and "12 cases, 12 agree" in first


# --- bad input: exit 2, one line naming the option -------------------------------------------


def _one_line_error(err: str, option: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("alias-spec: error: ") and option in lines[0], err
    assert "Traceback" not in err


def test_missing_python(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, err = _run(capsys, "--python", str(tmp_path / "nope" / "python"))
    assert rc == 2 and out == ""
    _one_line_error(err, "--python")
    assert "no such file" in err


def test_python_not_executable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "python"
    path.write_text("not a program\n")
    rc, _, err = _run(capsys, "--python", str(path))
    assert rc == 2
    _one_line_error(err, "--python")


def test_python_without_triton(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # -S: no site-packages, so this very interpreter cannot import triton.
    py = _wrapper(tmp_path, f'exec "{sys.executable}" -I -S "$@"')
    rc, _, err = _run(capsys, "--python", py)
    assert rc == 2
    _one_line_error(err, "--python")
    assert "cannot import triton" in err


def test_release_without_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fake = tmp_path / "site" / "triton"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "3.5.1"\n')
    py = _wrapper(tmp_path, f'PYTHONPATH="{fake.parent}" exec "{sys.executable}" -S "$@"')
    rc, _, err = _run(capsys, "--python", py)
    assert rc == 2
    _one_line_error(err, "--python")
    assert "3.5.1 has no profile" in err


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--limit", "0"], "--limit"),
        (["--near", "-1"], "--near"),
        (["--write", "--limit", "5"], "--limit"),  # a partial run never lands in docs/
        (["--write", "--seed", "3"], "--seed"),
        (["--write", "--docs-dir", "no/such/dir"], "--docs-dir"),
    ],
)
def test_bad_options(capsys: pytest.CaptureFixture[str], args: list[str], option: str) -> None:
    rc, out, err = _run(capsys, *args)
    assert rc == 2 and out == ""
    _one_line_error(err, option)


def test_unreadable_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / report.JSON_NAME).write_text("{not json")
    rc, _, err = _run(capsys, "--write", "--docs-dir", str(tmp_path))
    assert rc == 2
    _one_line_error(err, "--docs-dir")


# --- --write keeps the other releases' rows --------------------------------------------------


@needs_triton
def test_write_replaces_one_row_and_keeps_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    committed = COMMITTED.read_text()
    before = json.loads(committed)["releases"]
    version = _installed_triton()
    assert version is not None
    # A release the installed one cannot be (it has no profile): the merge carries it through
    # untouched and sorts it after 3.9 (by version, not as text).
    before["3.10.0"] = dict(next(iter(before.values())), profile="triton-3.10")
    (tmp_path / report.JSON_NAME).write_text(json.dumps({"releases": before}))

    rc, out, _ = _run(capsys, "--limit", "40", "--write", "--docs-dir", str(tmp_path), "--json")
    assert rc == 0
    assert sorted(Path(p).name for p in json.loads(out)["written"]) == sorted(
        [report.JSON_NAME, report.MD_NAME]
    )
    after = json.loads((tmp_path / report.JSON_NAME).read_text())
    releases = after["releases"]
    assert set(releases) == set(before) | {version}
    for other, row in before.items():
        if other != version:
            assert releases[other] == row, other
    assert releases[version]["summary"]["cases"] == 40
    assert releases[version]["profile"] == diff.profile_for(version)
    keys = [tuple(int(p) for p in v.split(".")) for v in releases]
    assert keys == sorted(keys) and list(releases)[-1] == "3.10.0"
    assert (tmp_path / report.MD_NAME).read_text() == report.render(after)
    assert COMMITTED.read_text() == committed  # the committed table is not written


@needs_triton
def test_write_into_an_empty_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, _ = _run(capsys, "--limit", "10", "--write", "--docs-dir", str(tmp_path))
    assert rc == 0
    table = json.loads((tmp_path / report.JSON_NAME).read_text())
    assert list(table["releases"]) == [_installed_triton()]


# --- the worker runs in a venv without this project ------------------------------------------


def test_worker_imports_only_the_standard_library_and_triton() -> None:
    tree = ast.parse(Path(worker.__file__).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import needs this package"
            names.add((node.module or "").split(".")[0])
    assert names - {"triton", "__future__"} <= set(sys.stdlib_module_names), names
