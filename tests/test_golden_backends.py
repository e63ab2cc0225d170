"""Golden tests per backend on a small fixed catalogue (as SpecTec's backends have).

Each backend renders a three-rule, two-profile catalogue defined here, so the expected text
changes only when a backend's rendering changes, never when the real catalogue does. The
Python rendering is also executed and compared with the interpreter, so a golden file that was
accepted wrongly still fails. ``GOLDEN_UPDATE=1 python -m pytest tests/test_golden_backends.py``
rewrites the files (review the diff before committing).
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from alias_spec.backends import gen_cpp, gen_mlir, gen_python, gen_recipes
from alias_spec.docgen import mathml
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import Rule
from alias_spec.model.facts import FACTS

GOLDEN = Path(__file__).resolve().parent / "golden"
PROFILES = {"flagtree": "the first two rules", "safe": "all three"}
MINI: tuple[Rule, ...] = (
    Rule(
        id="alias.offset.nonneg",
        title="Offset is non-negative",
        prose="A golden-test rule over one fact.",
        guard="off_int",
        formula="off >= 0",
        message="expects non-negative offset_bytes",
        values=("off",),
        provenance="golden test",
        profiles=("flagtree", "safe"),
        fix="offset",
    ),
    Rule(
        id="alias.offset.aligned",
        title="Offset is element-aligned",
        prose="A golden-test rule through a definition (bytes per element).",
        guard="off_int and res_eb >= 1",
        formula="off % res_eb == 0",
        message="expects offset_bytes aligned to the element width",
        values=("off", "res_eb"),
        provenance="golden test",
        profiles=("flagtree", "safe"),
    ),
    Rule(
        id="alias.range.fits",
        title="Result fits the source",
        prose="A golden-test rule with arithmetic, a conjunction and a disjunction.",
        guard="src_static and res_static",
        formula="res_bytes <= src_bytes and (off <= src_bytes - res_bytes or res_bytes == 0)",
        message="result byte range must fit within the source view",
        values=("off", "src_bytes", "res_bytes"),
        provenance="golden test",
        profiles=("safe",),
        fix="size",
        hint="make the result smaller",
    ),
)


@pytest.fixture()
def mini(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The backends see the mini catalogue, wherever they read the catalogue from."""

    def rules_for(profile: str) -> tuple[Rule, ...]:
        if profile not in PROFILES:
            raise KeyError(profile)
        return tuple(r for r in MINI if profile in r.profiles)

    modules = (catalogue, gen_cpp, gen_python, gen_recipes, gen_mlir)
    # Results cached per rule id (compiled formulas, C++ trees) must not leak in or out.
    caches = [
        f for m in modules for f in vars(m).values() if callable(getattr(f, "cache_clear", None))
    ]
    for f in caches:
        f.cache_clear()
    for module in modules:
        for name, value in (("RULES", MINI), ("PROFILES", PROFILES), ("rules_for", rules_for)):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
    monkeypatch.setattr(gen_mlir, "VERIFIER_ORDER", tuple(r.id for r in MINI))
    yield
    for f in caches:
        f.cache_clear()


def _mathml() -> str:
    return "\n".join(f"{r.id}: {mathml.mathml_inline(r.display_formula())}" for r in MINI) + "\n"


BACKENDS: dict[str, Callable[[], str]] = {
    "alias_checks.py": gen_python.generate,
    "alias_rules.h": gen_cpp.generate,
    "MemDescAliasOpVerify.cpp": gen_mlir.generate,
    "recipes.py": gen_recipes.generate,
    "formulas.mathml": _mathml,
}


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_backend_matches_its_golden_file(mini: None, name: str) -> None:
    text = BACKENDS[name]()
    path = GOLDEN / name
    if os.environ.get("GOLDEN_UPDATE") == "1":
        path.write_text(text)
    assert path.is_file(), f"no golden file {path.name}: run with GOLDEN_UPDATE=1"
    assert text == path.read_text(), f"{name} differs from tests/golden/{name}"


def test_golden_python_judges_like_the_interpreter(mini: None) -> None:
    """The golden Python module, executed, agrees with the interpreter on the mini catalogue."""
    from alias_spec.model.interp import check_facts

    module = types.ModuleType("golden_alias_checks")
    exec(compile((GOLDEN / "alias_checks.py").read_text(), "golden", "exec"), module.__dict__)
    base: dict[str, int | bool] = {f.name: (False if f.sort == dsl.BOOL else 0) for f in FACTS}
    base.update(off_int=True, src_static=True, res_static=True, src_bits=16, res_bits=16)
    seen: set[str] = set()
    for off in (-2, 0, 1, 2, 30, 32):
        for src_elems, res_elems in ((16, 8), (8, 16), (16, 0)):
            facts = {**base, "off": off, "src_elems": src_elems, "res_elems": res_elems}
            for profile in PROFILES:
                want = [v.rule for v in check_facts(facts, profile).violations]
                got = [v.rule for v in module.check(facts, profile)]
                assert got == want, (facts, profile)
                seen.update(want)
    assert seen == {r.id for r in MINI}, "every mini rule fires somewhere"
