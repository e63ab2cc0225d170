"""Golden tests per backend on a small fixed catalogue (as SpecTec's backends have).

Each backend renders a three-rule, two-profile catalogue defined here, so the expected text
changes only when a backend's rendering changes, never when the real catalogue does.

Snapshot: ``tests/golden/*`` is what the backends rendered when it was written
(``GOLDEN_UPDATE=1 python -m pytest tests/backends/test_golden_backends.py`` rewrites the files; review
the diff before committing); ``test_snapshot_backend_matches_its_golden_file`` compares with it.
The independent truth beside it: the golden Python rendering, executed, judges like the DSL's
own evaluator (``test_golden_python_judges_like_the_dsl``), so a golden file that was accepted
wrongly still fails.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable

import pytest

from alias_spec.backends import gen_cpp, gen_mlir, gen_python, gen_recipes
from alias_spec.docgen import mathml
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import Rule
from alias_spec.model.facts import FACTS
from tests.paths import GOLDEN

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


SPEC = catalogue.Spec(MINI, PROFILES)


def _mathml() -> str:
    return "\n".join(f"{r.id}: {mathml.mathml_inline(r.display_formula())}" for r in MINI) + "\n"


# Each backend is a function of the catalogue it is given: no module global is patched.
BACKENDS: dict[str, Callable[[], str]] = {
    "alias_checks.py": lambda: gen_python.generate(SPEC),
    "alias_rules.h": lambda: gen_cpp.generate(SPEC),
    "MemDescAliasOpVerify.cpp": lambda: gen_mlir.generate(SPEC, tuple(r.id for r in MINI)),
    "recipes.py": lambda: gen_recipes.generate(SPEC),
    "formulas.mathml": _mathml,
}


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_snapshot_backend_matches_its_golden_file(name: str) -> None:
    text = BACKENDS[name]()
    path = GOLDEN / name
    if os.environ.get("GOLDEN_UPDATE") == "1":
        path.write_text(text)
    assert path.is_file(), f"no golden file {path.name}: run with GOLDEN_UPDATE=1"
    assert text == path.read_text(), f"{name} differs from tests/golden/{name}"


def _fires(facts: dict[str, int | bool], profile: str) -> list[str]:
    """The mini catalogue judged by the DSL's own evaluator: guard holds, formula does not."""
    out = []
    for r in MINI:
        if profile in r.profiles:
            guard, formula = SPEC.compiled(r)
            if dsl.evaluate(guard, facts) and not dsl.evaluate(formula, facts):
                out.append(r.id)
    return out


def test_golden_python_judges_like_the_dsl() -> None:
    """The golden Python module, executed, agrees with the DSL's evaluator on the mini
    catalogue."""
    module = types.ModuleType("golden_alias_checks")
    exec(compile((GOLDEN / "alias_checks.py").read_text(), "golden", "exec"), module.__dict__)
    base: dict[str, int | bool] = {f.name: (False if f.sort == dsl.BOOL else 0) for f in FACTS}
    base.update(off_int=True, src_static=True, res_static=True, src_bits=16, res_bits=16)
    seen: set[str] = set()
    for off in (-2, 0, 1, 2, 30, 32):
        for src_elems, res_elems in ((16, 8), (8, 16), (16, 0)):
            facts = {**base, "off": off, "src_elems": src_elems, "res_elems": res_elems}
            for profile in PROFILES:
                want = _fires(facts, profile)
                got = [v.rule for v in module.check(facts, profile)]
                assert got == want, (facts, profile)
                seen.update(want)
    assert seen == {r.id for r in MINI}, "every mini rule fires somewhere"
