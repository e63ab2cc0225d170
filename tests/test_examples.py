"""Every file in examples/ works under the test install: a Python example runs, or says in one
line what it needs (``examples/NAME.py: needs ...``, exit 77) and nothing else; a JSON request
is judged by ``alias-spec check`` (valid or invalid, never malformed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MISSING = 77  # examples/_requires.py
NEEDS = re.compile(r"examples/[\w.-]+\.py: needs \S.*")

SCRIPTS = sorted(EXAMPLES.glob("*.py"))
REQUESTS = sorted(EXAMPLES.glob("*.json"))


def test_there_are_examples_of_both_kinds() -> None:
    assert len(SCRIPTS) >= 3 and len(REQUESTS) >= 2
    assert {p.suffix for p in EXAMPLES.iterdir() if p.is_file()} <= {".py", ".json"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_runs_or_says_what_it_needs(script: Path, tmp_path: Path) -> None:
    # From an empty folder: an example must not rely on the current directory.
    r = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    if r.returncode == MISSING:
        assert r.stdout == "", r.stdout
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and NEEDS.fullmatch(lines[0]), r.stderr
        assert lines[0].startswith(f"examples/{script.name}: ")
    else:
        assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.parametrize("request_file", REQUESTS, ids=lambda p: p.name)
def test_request_is_judged(request_file: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "alias_spec", "check", str(request_file.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode in (0, 1), r.stderr[-2000:]  # 2 would be malformed input
    assert "Traceback" not in r.stderr and r.stdout.strip(), r.stderr[-2000:]


def test_a_missing_module_is_one_line(tmp_path: Path) -> None:
    """The helper's message when a module is absent (here: one that cannot exist)."""
    script = tmp_path / "needs_nothing_real.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(EXAMPLES)!r})\n"
        "from _requires import require\n"
        "require(__file__, ('no_such_module_for_this_test',), gpu=True)\n"
        "print('ran')\n"
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == MISSING and r.stdout == ""
    assert r.stderr == (
        "examples/needs_nothing_real.py: needs no_such_module_for_this_test and a CUDA GPU "
        "(pip install no_such_module_for_this_test)\n"
    )
