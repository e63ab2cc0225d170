"""`alias-spec gen`: generated files are current, and staleness is detected."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from alias_spec import gen
from alias_spec.backends import gen_cpp, gen_mlir
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, compiled, rules_for
from alias_spec.model.facts import FACTS
from alias_spec.model.interp import violated
from tests.paths import ROOT

# What `alias-spec gen` reads under its root besides the catalogue: the hand-written guide its
# recipes section goes into, the solved examples and the prover's results.
INPUTS = ("docs/guides/lowering-recipes.md", "docs/data/examples.json", "docs/data/theorems.json",
          "tests/compat/requests.json")  # fmt: skip
# ... and the stored cases compiler_patch/'s lit tests are written from.
CASES = "tests/cases"
HEADER_LINE = "Generated from the tle-alias-spec rule catalogue by `alias-spec gen`."
MINE = (
    "alias_spec/generated/alias_rules.h",
    "alias_spec/generated/MemDescAliasOpVerify.cpp",
)


def test_check_passes_on_the_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen.run(check=True, root=ROOT) == 0, capsys.readouterr().err


def test_targets_include_the_cpp_files() -> None:
    rels = [rel for rel, _ in gen._targets(ROOT)]
    assert set(MINE) <= set(rels)
    for rel in MINE:
        assert (ROOT / rel).read_text().startswith(f"// {HEADER_LINE} Do not edit.\n"), rel


def _inputs(root: Path) -> Path:
    """A bare root holding only what gen reads there."""
    for rel in INPUTS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, root / rel)
    shutil.copytree(ROOT / CASES, root / CASES)
    return root


def _copy(copy: Path) -> None:
    """Every generated folder and what gen reads, under ``copy``."""
    for rel in ("docs", "alias_spec/generated", "solver", "compiler_patch", CASES, "tests/compat"):
        shutil.copytree(ROOT / rel, copy / rel)


# Seconds per gen run (the theorems' SMT-LIB text): the fast tier checks the tree once
# (test_check_passes_on_the_tree); the full tier what staleness and --root mean.
@pytest.mark.slow
def test_a_modified_or_missing_file_is_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _inputs(tmp_path)
    assert gen.run(check=True, root=tmp_path) == 1  # nothing written yet
    capsys.readouterr()
    assert gen.run(check=False, root=tmp_path) == 0
    assert gen.run(check=True, root=tmp_path) == 0
    # Both files edited at once, then both removed: each is named, and gen restores both
    # (one check per state: each gen run costs seconds).
    originals = {rel: (tmp_path / rel).read_text() for rel in MINE}
    for rel, original in originals.items():
        (tmp_path / rel).write_text(original.replace("tle_alias", "tle_alias_edited", 1))
    capsys.readouterr()
    assert gen.run(check=True, root=tmp_path) == 1
    err = capsys.readouterr().err
    assert all(rel in err for rel in MINE), err
    for rel in MINE:
        (tmp_path / rel).unlink()
    assert gen.run(check=True, root=tmp_path) == 1
    err = capsys.readouterr().err
    assert all(rel in err for rel in MINE), err
    assert gen.run(check=False, root=tmp_path) == 0
    assert {rel: (tmp_path / rel).read_text() for rel in MINE} == originals


def _gen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "alias_spec", "gen", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_file_left_under_solver_is_stale(tmp_path: Path) -> None:
    # solver/ is generated whole: a file gen no longer writes (a removed rule's) is reported,
    # and a plain gen removes it.
    copy = tmp_path / "copy"
    _copy(copy)
    left = copy / "solver" / "rules" / "alias.removed.smt2"
    left.write_text("(check-sat)\n")
    assert gen.run(check=True, root=copy) == 1
    assert gen.run(check=False, root=copy) == 0 and not left.exists()
    assert gen.run(check=True, root=copy) == 0


@pytest.mark.slow
def test_check_runs_on_a_copy_from_another_directory(tmp_path: Path) -> None:
    # Generated files are compared under --root, wherever the command runs: nothing is read
    # from the package's own location (an installed package has no docs/ beside it).
    copy, elsewhere = tmp_path / "copy", tmp_path / "elsewhere"
    _copy(copy)
    elsewhere.mkdir()
    r = _gen(elsewhere, "--check", "--root", "../copy")
    assert r.returncode == 0, r.stderr
    page = copy / "docs" / "profiles.md"
    page.write_text(page.read_text() + "edited\n")
    r = _gen(elsewhere, "--check", "--root", str(copy))
    assert r.returncode == 1 and "docs/profiles.md" in r.stderr, r.stderr
    assert not (elsewhere / "docs").exists() and not (elsewhere / "alias_spec").exists()


@pytest.mark.parametrize("broken", ["no root", "no guide", "bad examples", "no cases"])
def test_an_unreadable_root_is_one_line_and_exit_2(tmp_path: Path, broken: str) -> None:
    root = _inputs(tmp_path / "root")
    if broken == "no root":
        shutil.rmtree(root)
    elif broken == "no guide":
        (root / INPUTS[0]).unlink()
    elif broken == "no cases":
        shutil.rmtree(root / CASES)
    else:
        (root / INPUTS[1]).write_text("[1, 2")
    r = _gen(tmp_path, "--check", "--root", str(root))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("alias-spec: error: ")
        and "Traceback" not in r.stderr
    )
    assert ("--root" if broken == "no root" else str(root)) in lines[0]


def test_generation_is_deterministic() -> None:
    assert gen_cpp.generate() == gen_cpp.generate()
    assert gen_mlir.generate() == gen_mlir.generate()


def test_masks_follow_profiles() -> None:
    masks = gen_cpp.masks()
    assert set(masks) == set(PROFILES)
    for p, mask in masks.items():
        ids = {r.id for r in rules_for(p)}
        assert {r.id for i, r in enumerate(RULES) if mask >> i & 1} == ids


def test_nnf_trees_fire_exactly_when_the_rule_does() -> None:
    # The C++ trees (negation pushed to the leaves) against the interpreter, in Python.
    rng = random.Random(5)
    edges = [0, 1, -1, 7, 8, 16, 1024, 2**31 - 1, 2**31, 2**63 - 1, -(2**63)]
    for r in RULES:
        guard, fire = gen_cpp.cpp_trees(r.id)
        assert "not" not in _non_leaf_nots(guard) | _non_leaf_nots(fire)
        for _ in range(300):
            f = {}
            for name in dsl.free_vars(compiled(r.id)[0]) | dsl.free_vars(compiled(r.id)[1]):
                f[name] = rng.random() < 0.7 if name in _BOOLS else rng.choice(edges)
            try:
                want = violated(r, f)
            except ZeroDivisionError:
                continue
            assert (bool(dsl.evaluate(guard, f)) and bool(dsl.evaluate(fire, f))) == want


def _non_leaf_nots(e: dsl.Expr) -> set[str]:
    out = set()
    if e.op == "not" and e.args[0].op not in ("var", "const"):
        out.add("not")
    for a in e.args:
        out |= _non_leaf_nots(a)
    return out


_BOOLS = {f.name for f in FACTS if f.sort == dsl.BOOL}


def test_cpp_rendering_parenthesises_negation() -> None:
    # C++'s ! binds tighter than ==, so a negated comparison must not print as !a == b.
    e = dsl.parse("not (off == res_bits) and not src_static")
    text = dsl.render(gen_cpp.nnf(e), gen_cpp.CPP)
    assert text == "I(f.off) != I(f.res_bits) && !f.src_static"


def test_cstr_escapes() -> None:
    assert gen_cpp.cstr('a"b\\c') == '"a\\"b\\\\c"'
    assert gen_cpp.cstr("é1") == '"\\303\\2511"'
