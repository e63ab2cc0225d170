"""An engine that cannot run here is one line on stderr naming it and what to install, exit 2,
never a traceback (``--engine cpp`` without a working C++ compiler)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

REQUEST = ROOT / "examples" / "request.json"


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "alias_spec", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CXX"}
    # An empty cache: a harness built earlier must not stand in for the missing compiler.
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.update(extra)
    return env


def _no_gxx_path(tmp_path: Path) -> str:
    """A PATH holding only this interpreter (no g++ or c++ on it)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    return str(bin_dir)


def _assert_one_line(run: subprocess.CompletedProcess[str], *words: str) -> None:
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    for word in ("engine cpp", "install a C++17 compiler", *words):
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    "how",
    ["CXX names no file", "CXX fails to compile", "no g++ on PATH"],
)
def test_check_with_cpp_and_no_working_compiler(how: str, tmp_path: Path) -> None:
    if how == "CXX names no file":
        env, word = _env(tmp_path, CXX=str(tmp_path / "nonexistent")), "is not an executable"
    elif how == "CXX fails to compile":
        false = "/bin/false" if Path("/bin/false").exists() else "/usr/bin/false"
        env, word = _env(tmp_path, CXX=false), "failed"
    else:
        env, word = _env(tmp_path, PATH=_no_gxx_path(tmp_path)), "g++ is not on PATH"
    _assert_one_line(_cli(["check", "--engine", "cpp", str(REQUEST)], env), word)


def test_fuzz_with_cpp_and_no_compiler(tmp_path: Path) -> None:
    env = _env(tmp_path, CXX=str(tmp_path / "nonexistent"))
    run = _cli(["fuzz", "--cases", "10", "--engines", "interp,cpp"], env)
    assert run.returncode == 2, run.stderr[-2000:]
    errors = [ln for ln in run.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and "engine cpp" in errors[0], run.stderr[-2000:]
    assert "Traceback" not in run.stderr


def test_the_registry_says_why_before_building(tmp_path: Path, monkeypatch) -> None:
    from alias_spec.engines import registry

    monkeypatch.setenv("CXX", str(tmp_path / "nonexistent"))
    why = registry.unavailable("cpp")
    assert why is not None and "nonexistent" in why
    assert registry.unavailable("python") is None


# --- lint and the solver: only a missing z3 falls back to advice --------------------------------

_LAYOUT = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
_SRC = f"!ttg.memdesc<64xi8, {_LAYOUT}, #ttg.shared_memory, mutable>"
_RES = f"!ttg.memdesc<16xi8, {_LAYOUT}, #ttg.shared_memory, mutable>"
# An alias 56 bytes into a 64-byte buffer: 16 bytes do not fit (alias.range.fits, fix 48).
OVERRUN = (
    "module {\n  tt.func @f() {\n"
    f"    %a = ttg.local_alloc : () -> {_SRC}\n"
    f'    %o = "tle.memdesc_alias"(%a) {{offset_bytes = 56 : i64}} : ({_SRC}) -> {_RES}\n'
    "    tt.return\n  }\n}\n"
)


def _fits_fix() -> str:
    from alias_spec.lint import lint

    report = lint.lint_text(OVERRUN, "t.ttgir", "safe")
    return next(f.fix for f in report.findings if f.rule == "alias.range.fits")


def test_lint_fix_comes_from_the_solver() -> None:
    assert _fits_fix() == "use offset_bytes = 48"


def test_lint_without_z3_gives_the_rules_advice(monkeypatch: pytest.MonkeyPatch) -> None:
    from alias_spec.model.catalogue import rule

    # A module set to None in sys.modules cannot be imported (ImportError), as without z3.
    monkeypatch.setitem(sys.modules, "alias_spec.semantics.fix", None)
    assert _fits_fix() == rule("alias.range.fits").hint


def test_lint_does_not_hide_a_solver_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from alias_spec.semantics import fix

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("solver broke")

    monkeypatch.setattr(fix, "suggest", broken)
    with pytest.raises(RuntimeError, match="solver broke"):
        _fits_fix()
