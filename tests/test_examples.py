"""Every file in examples/ works under the test install: a Python example runs, or says in one
line what it needs (``examples/NAME.py: needs ...``, exit 77) and nothing else; a JSON request
is judged by ``alias-spec check`` (valid or invalid, never malformed).

Without a CUDA GPU each example takes its CPU path (compile for sm_90, lint, plan check, a last
line saying the GPU part was skipped, exit 0), and prints exactly what the getting-started
guide shows for it (with the Triton release the guide names)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import EXAMPLES, ROOT, child_env

GUIDE = ROOT / "docs" / "guides" / "getting-started.md"
MISSING = 77  # examples/_requires.py
NEEDS = re.compile(r"examples/[\w.-]+\.py: needs \S.*")
SHOWN = re.compile(
    r"<!-- example: output examples/(?P<name>[\w.-]+\.py) -->\n```text\n(?P<body>.*?)^```$",
    re.S | re.M,
)
# The release the guide's outputs were made with (their plan lines name it).
SHOWN_WITH = "3.6.0"

HELPERS = ("_requires.py", "_cpu.py")  # imported by the examples, not examples themselves
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if p.name not in HELPERS)
REQUESTS = sorted(EXAMPLES.glob("*.json"))


def _gpu() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def _triton() -> str | None:
    if importlib.util.find_spec("triton") is None:
        return None
    import triton

    return str(triton.__version__)


def shown_outputs() -> dict[str, list[str]]:
    """Script name -> the lines the guide shows it printing (after its ``$ python`` line)."""
    out: dict[str, list[str]] = {}
    for m in SHOWN.finditer(GUIDE.read_text()):
        lines = m.group("body").rstrip("\n").splitlines()
        assert lines[0] == f"$ python examples/{m.group('name')}", lines[0]
        out[m.group("name")] = lines[1:]
    return out


def test_there_are_examples_of_both_kinds() -> None:
    assert len(SCRIPTS) >= 3 and len(REQUESTS) >= 2
    assert {p.suffix for p in EXAMPLES.iterdir() if p.is_file()} <= {".py", ".json"}


def test_the_guide_shows_every_example_s_cpu_output() -> None:
    shown = shown_outputs()
    assert sorted(shown) == [p.name for p in SCRIPTS]
    for name, lines in shown.items():
        assert lines[-1].startswith(f"examples/{name}: no CUDA GPU here: "), name
        assert lines[-1].endswith(" skipped"), name


def _verdicts(lines: list[str]) -> list[str]:
    """What each line decides, without the sizes and counts a release changes."""
    out = []
    for s in lines:
        m = re.match(r"(.+?): (compiled for sm_90|rejected at compile time)", s)
        m = m or re.match(r"  (lint: \d+ findings?|plan: [a-z ]+:)", s)
        if m:
            out.append(" ".join(g for g in m.groups() if g))
    return out


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_runs_or_says_what_it_needs(script: Path, tmp_path: Path) -> None:
    """Run once: without Triton, one line and 77; without a GPU, the CPU path's output as the
    guide shows it; with one, exit 0."""
    # From an empty folder: an example must not rely on the current directory.
    r = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    version = _triton()
    if r.returncode == MISSING:
        assert version is None, "only Triton's absence stops an example"
        assert r.stdout == "", r.stdout
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and NEEDS.fullmatch(lines[0]), r.stderr
        assert lines[0].startswith(f"examples/{script.name}: ")
        return
    assert r.returncode == 0, r.stderr[-3000:]
    if version is None or _gpu():
        return
    assert r.stderr == "", r.stderr[-3000:]
    got = r.stdout.rstrip("\n").splitlines()
    want = shown_outputs()[script.name]
    assert got[-1] == want[-1]  # the GPU part was skipped, said last
    if version != SHOWN_WITH:
        # Another release sizes and lowers differently: the verdicts must be the same.
        assert _verdicts(got) == _verdicts(want), "\n".join(got)
    else:
        assert got == want, "\n".join(got)


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
        "from _requires import require\n"
        "require(__file__, ('no_such_module_for_this_test',), gpu=True)\n"
        "print('ran')\n"
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                       env=child_env(EXAMPLES))  # fmt: skip
    assert r.returncode == MISSING and r.stdout == ""
    assert r.stderr == (
        "examples/needs_nothing_real.py: needs no_such_module_for_this_test and a CUDA GPU "
        "(pip install no_such_module_for_this_test)\n"
    )


@pytest.mark.parametrize("hidden", ["pydantic", "llvmlite", "z3"])
def test_cpu_path_names_the_plan_extra_when_a_module_is_missing(
    hidden: str, tmp_path: Path
) -> None:
    """The path without a GPU needs the plan extra's modules: without one, one line naming
    the extra (it used to end in a ModuleNotFoundError or LlirError traceback)."""
    if _triton() is None or _gpu():
        pytest.skip("the path without a GPU runs only with Triton and without a GPU")
    script = EXAMPLES / "flagtree_alias.py"
    code = (f"import runpy, sys\nsys.modules[{hidden!r}] = None\n"
            f"sys.argv = [{str(script)!r}]\nrunpy.run_path({str(script)!r}, run_name='__main__')\n")  # fmt: skip
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600, env=child_env(EXAMPLES))  # fmt: skip
    assert r.returncode == MISSING and r.stdout == "", r.stderr[-3000:]
    assert r.stderr == f"examples/flagtree_alias.py: needs {hidden} (pip install -e '.[plan]')\n"
