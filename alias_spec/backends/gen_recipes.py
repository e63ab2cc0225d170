"""Generator: the Gluon lowering's recipe choice as a pure-Python predicate module.

Which Gluon op sequence can express an alias on the installed Triton is a question of the same
kind as the alias rules, so it is written the same way: formulas in the spec's DSL over the
spec's facts plus a few recipe facts that only the lowering needs. Rendering them here keeps the
choice data (reviewable, solvable with z3 on this side) and the GPU side free of z3.
"""

from __future__ import annotations

from alias_spec.backends.syntax import PY
from alias_spec.model import dsl
from alias_spec.model.catalogue import Spec, spec
from alias_spec.model.recipes import RECIPE_FACTS, RECIPES, SUPPORT, expand

HEADER = (
    "# Generated from alias_spec/backends/gen_recipes.py by `alias-spec gen`.\n"
    "# Do not edit: change the formulas there and regenerate.\n"
)


def _fn(prefix: str, name: str) -> str:
    return f"_{prefix}_" + name.replace(".", "_")


def generate(sp: Spec | None = None) -> str:
    """The recipe module; the fixes and hints of ``sp``'s rules (default: the catalogue)."""
    rules = (sp or spec()).rules
    out = [HEADER, '"""Recipe choice for lowering tle.gpu.alloc(alias=...) onto Gluon ops."""', ""]
    out += ["from __future__ import annotations", "", "from collections.abc import Mapping", ""]
    out += [f"RECIPE_FACTS = {tuple(f.name for f in RECIPE_FACTS)!r}"]
    offset_fix = tuple(r.id for r in rules if r.fix == "offset")
    size_fix = tuple(r.id for r in rules if r.fix == "size")
    out += [f"OFFSET_FIXABLE = frozenset({offset_fix!r})"]
    out += [f"SIZE_FIXABLE = frozenset({size_fix!r})"]
    # Each rule's advice (the catalogue's hint), for a violation no offset or size fix mends:
    # the frontend reads it here, where neither pydantic nor z3 is needed.
    out += ["HINTS = {", *(f"    {r.id!r}: {r.hint!r}," for r in rules if r.hint), "}", ""]
    for s in SUPPORT:
        values = ", ".join(f"{n!r}: {dsl.render(expand(n), PY)}" for n in s.values)
        out += [
            "",
            f"def {_fn('support', s.check)}(f: Mapping[str, int | bool]) -> dict | None:",
            f'    """{s.check}: {s.formula}"""',
            f"    if {dsl.render(expand(s.formula), PY)}:",
            "        return None",
            f"    return {{{values}}}",
            "",
        ]
    for r in RECIPES:
        out += [
            "",
            f"def {_fn('recipe', r.name)}(f: Mapping[str, int | bool]) -> bool:",
            f'    """{r.ops}"""',
            f"    return bool({dsl.render(expand(r.formula), PY)})",
            "",
        ]
    out += ["", "SUPPORT = ("]
    out += [
        f"    ({s.check!r}, {s.reason!r}, {s.fix!r}, {_fn('support', s.check)})," for s in SUPPORT
    ]
    out += [")", "RECIPES = ("]
    out += [f"    ({r.name!r}, {r.ops!r}, {_fn('recipe', r.name)})," for r in RECIPES]
    out += [
        ")",
        "",
        "",
        "def unsupported(f: Mapping[str, int | bool]) -> list[tuple[str, str, str, dict]]:",
        '    """(check, reason, fix, values) for every condition the installed Triton lacks."""',
        "    out = []",
        "    for check, reason, fix, fn in SUPPORT:",
        "        values = fn(f)",
        "        if values is not None:",
        "            out.append((check, reason, fix, values))",
        "    return out",
        "",
        "",
        "def choose(f: Mapping[str, int | bool]) -> str | None:",
        '    """The first recipe whose predicate holds, or None."""',
        "    for name, _, fn in RECIPES:",
        "        if fn(f):",
        "            return name",
        "    return None",
        "",
    ]
    return "\n".join(out)
