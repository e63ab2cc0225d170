"""The lint and plan guides show what their commands really print, and every Python snippet of
the plan guide runs (issue 19).

``tests/docgen/test_docs.py`` runs every example block of the docs; this file makes sure the guides
give it something to compare: each command of a console block in these guides shows its
expected output (a block with none passed whatever the command printed), each Python block is
a ``run`` example, and the exit statuses the lint guide states are lint's.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docgen import test_docs
from tests.docgen.test_docs import ALL, Block, _commands
from tests.paths import ROOT

LINT = "docs/guides/lint-in-ci.md"
PLAN = "docs/guides/plan.md"
GUIDES = (LINT, PLAN)
CONSOLE = [b for b in ALL if b.page in GUIDES and b.lang == "console"]
PYTHON = [b for b in ALL if b.page in GUIDES and b.lang == "python"]


def test_the_guides_have_examples() -> None:
    assert {b.page for b in CONSOLE} == set(GUIDES)
    assert len([b for b in PYTHON if b.page == PLAN]) >= 2


@pytest.mark.parametrize("b", CONSOLE, ids=str)
def test_every_command_shows_its_output(b: Block) -> None:
    for command, expected in _commands(b.text):
        assert expected, f"{b}: `{command}` shows no output to compare with"


@pytest.mark.parametrize("b", CONSOLE, ids=str)
def test_guide_commands_print_what_the_guide_shows(b: Block, tmp_path: Path) -> None:
    test_docs.test_console_examples(b, tmp_path)


@pytest.mark.parametrize("b", PYTHON, ids=str)
def test_every_python_block_runs(b: Block, tmp_path: Path) -> None:
    """On the CPU: the plan guide compiles for sm_90 and launches nothing."""
    assert b.note.split()[:1] == ["run"], f"{b}: a Python block that is not run"
    test_docs.test_python_examples_run(b, tmp_path)


def test_lint_guide_states_the_exit_statuses_lint_has() -> None:
    """The table names 0-3 as check's; 0, 1 and 3 are shown by a real dump, 2 is run here."""
    text = (ROOT / LINT).read_text()
    table = re.findall(r"^\| ([0-9]) \| ", text, re.M)
    assert table == ["0", "1", "2", "3"], table
    assert "exit status is `alias-spec check`'s" in text
    shown = {next((w[5:] for w in b.note.split() if w.startswith("exit=")), "0") for b in CONSOLE}
    assert {"0", "1", "3"} <= shown, shown
    r = subprocess.run(
        [sys.executable, "-m", "alias_spec", "lint", "tests/lint/cases/not_mlir.txt"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "alias-spec: error: tests/lint/cases/not_mlir.txt: no module found\n"


def test_lint_guide_example_dumps_keep_their_view() -> None:
    """Both dumps hold the reinterpret (a folded one would leave lint nothing to judge)."""
    for name in ("reinterpret-ok", "reinterpret-too-large"):
        dump = (ROOT / "docs" / "examples" / f"{name}.ttgir").read_text()
        assert dump.count("= ttg.memdesc_reinterpret %buf") == 1, name


def test_plan_guide_needs_no_dash_p_for_the_plugin() -> None:
    """The plugin is a pytest11 entry point: the guide's pytest commands do not load it by hand."""
    text = (ROOT / PLAN).read_text()
    commands = re.findall(r"^.*python -m pytest.*$", text, re.M)
    assert commands and not [c for c in commands if "-p alias_spec.plan.hook" in c], commands
    assert "pytest11" in text


FRONTEND = "docs/guides/gluon-frontend.md"


def test_the_frontend_guide_shows_the_error_the_frontend_prints(tmp_path: Path) -> None:
    """The guide's compile-time error is what the frontend prints for the kernel shown above
    it (it showed a form of the values the code no longer printed)."""
    pytest.importorskip("triton")
    page = [b for b in ALL if b.page == FRONTEND]
    i = next(i for i, b in enumerate(page) if b.lang == "python" and "print(exc)" in b.text)
    shown = page[i + 1]
    assert shown.lang == "text", shown
    script = tmp_path / "example.py"
    script.write_text(page[i].text)
    r = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.rstrip("\n") == shown.text.rstrip("\n")
