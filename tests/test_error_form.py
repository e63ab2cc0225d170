"""Every command says an error in one form, ``alias-spec: error: ...`` on one line, and names
stdin ``input``. Before, plan said ``alias-spec plan:`` and ``stdin``, gen and docs their own
prefixes; and plan on an install without Triton blamed a ``--python`` nobody gave."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import PLAN_CASES, ROOT

PLAN_CASE = PLAN_CASES / "call_frame.ttgir"  # no allocation.offset: needs Triton


def _cli(args: list[str], stdin: str = "", **env: str) -> tuple[int, list[str]]:
    run = subprocess.run([sys.executable, "-m", "alias_spec", *args], input=stdin, cwd=ROOT,
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, **env})  # fmt: skip
    return run.returncode, run.stderr.strip().splitlines()


@pytest.mark.parametrize(
    "args",
    [["check", "-"], ["lint", "-"], ["plan", "-"], ["gen", "--root", "no/such/dir"],
     ["docs", "build", "--root", "no/such/dir"]],
)  # fmt: skip
def test_one_error_form(args: list[str]) -> None:
    code, err = _cli(args, stdin="")
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("alias-spec: error: "), err


@pytest.mark.parametrize("command", ["check", "lint", "plan"])
def test_stdin_is_named_input(command: str) -> None:
    code, err = _cli([command, "-"], stdin="\xff not what the command reads {")
    assert code == 2 and len(err) == 1, err
    assert "input" in err[0] and " -:" not in err[0], err


def test_plan_without_triton_says_to_install_it(tmp_path: Path) -> None:
    fake = tmp_path / "triton"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'triton'\", "
                                      "name='triton')\n")  # fmt: skip
    code, err = _cli(["plan", str(PLAN_CASE)], PYTHONPATH=str(tmp_path))
    assert code == 2 and len(err) == 1, err
    assert "needs Triton" in err[0] and "pip install" in err[0], err
    assert "--python:" not in err[0] and "that interpreter" not in err[0], err


@pytest.mark.parametrize(
    "content",
    [None, b"\xff\xfe", b'module {\n  %0 = "broken\n'],
    ids=["missing", "not-utf8", "garbled"],
)
def test_lint_and_plan_name_a_bad_file_alike(tmp_path: Path, content: bytes | None) -> None:
    """Both commands put the file's name first (``FILE: ...``); plan used to say ``cannot read
    FILE:`` where lint said ``FILE: cannot read:``."""
    path = tmp_path / "kernel.ttgir"
    if content is not None:
        path.write_bytes(content)
    said = {}
    for command in ("lint", "plan"):
        code, err = _cli([command, str(path)])
        assert code == 2 and len(err) == 1, err
        assert err[0].startswith(f"alias-spec: error: {path}: "), err
        said[command] = err[0]
    if content is None:
        assert said["lint"] == said["plan"]


def test_triton_diff_without_triton_says_to_install_it(tmp_path: Path) -> None:
    """As plan: no --python was given, so none is blamed (nor its path on this machine)."""
    fake = tmp_path / "triton"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'triton'\", "
                                      "name='triton')\n")  # fmt: skip
    code, err = _cli(["triton-diff", "--limit", "5"], PYTHONPATH=str(tmp_path))
    assert code == 2 and len(err) == 1, err
    assert "pip install 'tle-alias-spec[triton]'" in err[0], err
    assert "--python /" not in err[0] and sys.executable not in err[0], err
