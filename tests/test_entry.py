"""The console script without the `spec` extra says what to install, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("blocked", ["pydantic", "z3"])
def test_missing_spec_extra_is_one_line(blocked: str) -> None:
    code = (
        "import sys\n"
        f"sys.modules[{blocked!r}] = None\n"
        "from alias_spec.entry import main\n"
        "sys.exit(main(['prove', '--solver', 'z3', '--only', 'satisfiable.safe']))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and blocked in lines[0] and "[spec]" in lines[0], run.stderr


def test_other_import_errors_are_not_hidden() -> None:
    """Only the spec extra's modules are explained away; a real bug still surfaces."""
    code = (
        "import sys\n"
        "sys.modules['alias_spec.model.catalogue'] = None\n"
        "from alias_spec.entry import main\n"
        "sys.exit(main(['rules']))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert run.returncode != 0 and "Traceback" in run.stderr
