"""`alias-spec gen`: generated files are current, and staleness is detected."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from alias_spec import gen
from alias_spec.backends import gen_cpp, gen_mlir
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, compiled, rules_for
from alias_spec.model.facts import FACTS
from alias_spec.model.interp import violated

HEADER_LINE = "Generated from the tle-alias-spec rule catalogue by `alias-spec gen`."
MINE = (
    "alias_spec/generated/alias_rules.h",
    "alias_spec/generated/MemDescAliasOpVerify.cpp",
)


def test_check_passes_on_the_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen.run(check=True) == 0, capsys.readouterr().err


def test_targets_include_the_cpp_files() -> None:
    rels = [rel for rel, _ in gen._targets()]
    assert set(MINE) <= set(rels)
    for rel in MINE:
        assert (gen.ROOT / rel).read_text().startswith(f"// {HEADER_LINE} Do not edit.\n"), rel


def test_a_modified_or_missing_file_is_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gen.run(check=True, root=tmp_path) == 1  # nothing written yet
    capsys.readouterr()
    assert gen.run(check=False, root=tmp_path) == 0
    assert gen.run(check=True, root=tmp_path) == 0
    for rel in MINE:
        path = tmp_path / rel
        original = path.read_text()
        path.write_text(original.replace("tle_alias", "tle_alias_edited", 1))
        capsys.readouterr()
        assert gen.run(check=True, root=tmp_path) == 1
        assert rel in capsys.readouterr().err
        path.unlink()
        assert gen.run(check=True, root=tmp_path) == 1
        assert gen.run(check=False, root=tmp_path) == 0
        assert path.read_text() == original


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
