"""The console script without the `spec` extra says what to install, in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT


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


EXTRAS_HIDDEN = "import sys\nfor m in ('pydantic', 'pydantic_core', 'z3', 'cvc5', 'llvmlite'):\n    sys.modules[m] = None\n"


def _base(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The console script as on the base install: every extra's modules hidden."""
    code = EXTRAS_HIDDEN + f"from alias_spec.entry import main\nsys.exit(main({args!r}))\n"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_help_and_version_work_on_the_base_install() -> None:
    from alias_spec import __version__
    from alias_spec.cli import build_parser

    run = _base(["--help"])
    assert run.returncode == 0 and run.stderr == "", run.stderr
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in sub.choices:  # every command the real parser has
        assert f"\n  {name} " in run.stdout, name
    assert "pip install 'tle-alias-spec[spec]'" in run.stdout
    for args in (["--version"], ["--version", "check"]):
        run = _base(args)
        assert (run.returncode, run.stdout, run.stderr) == (0, f"alias-spec {__version__}\n", "")


def test_version_is_the_same_with_every_extra() -> None:
    from alias_spec import __version__

    run = subprocess.run([sys.executable, "-m", "alias_spec", "--version"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert (run.returncode, run.stdout) == (0, f"alias-spec {__version__}\n")


@pytest.mark.parametrize(
    "args, extra",
    [(["plan", "k.ttgir"], "plan"), (["docs", "build"], "docs"), (["check", "r.json"], "spec"),
     (["lint", "k.ttgir"], "spec"), ([], "spec")],
)  # fmt: skip
def test_a_command_names_the_extra_that_installs_all_it_needs(args: list[str], extra: str) -> None:
    run = _base(args)
    lines = run.stderr.splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert lines[0].startswith("alias-spec: error: ") and "pydantic" in lines[0], lines
    assert lines[0].endswith(f"pip install 'tle-alias-spec[{extra}]'"), lines


def test_base_help_says_what_the_parser_says() -> None:
    """The base install's help lists each command with the real parser's own line."""
    from alias_spec.cli import build_parser
    from alias_spec.commands import SUMMARY

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert helps == SUMMARY


def test_every_extra_named_exists() -> None:
    """Each ``pip install '...[X]'`` a message or an example prints names an extra of
    pyproject.toml, and each extra a command needs installs the command's modules."""
    import re

    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    named = set()
    for path in [*(ROOT / "alias_spec").rglob("*.py"), *(ROOT / "examples").glob("*.py")]:
        named |= {
            (path.name, m) for m in re.findall(r"pip install [^\n]*?\[(\w+)\]", path.read_text())
        }
    assert named and {m for _, m in named} <= set(extras), named

    def closure(extra: str) -> str:
        deps = extras[extra]
        return " ".join(closure(d[d.index("[") + 1 : -1]) if d.startswith("tle-alias-spec[")
                        else d for d in deps)  # fmt: skip

    for extra, wanted in {"plan": ("pydantic", "z3-solver", "triton", "llvmlite"),
                          "docs": ("pydantic", "mkdocs-material"),
                          "spec": ("pydantic", "z3-solver", "cvc5")}.items():  # fmt: skip
        assert all(w in closure(extra) for w in wanted), (extra, closure(extra))


def test_plan_without_llvmlite_names_the_extra_not_the_file() -> None:
    """The LLVM IR is fine; what is missing is llvmlite: one line naming the plan extra, and
    neither "cannot read" nor the file's name (as if it were at fault)."""
    case = "tests/plan/cases/call_frame"
    code = ("import sys\nsys.modules['llvmlite'] = None\nfrom alias_spec.entry import main\n"
            f"sys.exit(main(['plan', '{case}.alloc.ttgir', '--llir', '{case}.llir']))\n")  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    lines = run.stderr.splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "llvmlite" in lines[0] and lines[0].endswith("pip install 'tle-alias-spec[plan]'")
    assert "cannot read" not in lines[0] and ".llir" not in lines[0], lines
