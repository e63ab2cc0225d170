"""Generator: the catalogue as a pure-Python check module (no z3, no pydantic)."""

from __future__ import annotations

from alias_spec.backends.syntax import PY
from alias_spec.model import dsl
from alias_spec.model.catalogue import Rule, Spec, spec
from alias_spec.model.facts import FACTS, expand

HEADER = (
    "# Generated from the tle-alias-spec rule catalogue by `alias-spec gen`.\n"
    "# Do not edit: change alias_spec/model/catalogue.py and regenerate.\n"
)


def _fn_name(rule_id: str) -> str:
    return "_rule_" + rule_id.replace(".", "_")


def _reads(sp: Spec, profile: str) -> tuple[str, ...]:
    """The facts the profile's rules read (guards, formulas and reported values), in FACTS
    order: what ``check`` validates before judging."""
    names: set[str] = set()
    for r in sp.rules_for(profile):
        guard, formula = sp.compiled(r)
        names |= dsl.free_vars(guard) | dsl.free_vars(formula)
        for n in r.values:
            names |= dsl.free_vars(expand(n))
    return tuple(f.name for f in FACTS if f.name in names)


def rule_function(sp: Spec, r: Rule) -> list[str]:
    """The rule's function, line by line, as the generated module holds it (the docs show it)."""
    guard, formula = sp.compiled(r)
    values = ", ".join(f"{n!r}: {dsl.render(expand(n), PY)}" for n in r.values)
    return [
        f"def {_fn_name(r.id)}(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:",
        f'    """{r.id}: {r.title}."""',
        f"    if not ({dsl.render(guard, PY)}):",
        "        return None",
        f"    if {dsl.render(formula, PY)}:",
        "        return None",
        f"    return {{{values}}}",
    ]


def generate(sp: Spec | None = None) -> str:
    """The check module of ``sp`` (default: the catalogue)."""
    sp = sp or spec()
    out = [HEADER, '"""Alias rule checks for tle.gpu.alloc, one function per rule."""', ""]
    out += ["from __future__ import annotations", "", "from collections.abc import Mapping"]
    out += ["from typing import NamedTuple", "", ""]
    out += [
        "class Violation(NamedTuple):",
        "    rule: str",
        "    message: str",
        "    values: dict[str, int | bool]",
        "",
        "",
        "class AliasError(ValueError):",
        '    """Raised by raise_if_invalid; its text names every violated rule."""',
        "",
        "    def __init__(self, violations: list[Violation]) -> None:",
        "        self.violations = violations",
        "        super().__init__('; '.join(f'[{v.rule}] {v.message}' for v in violations))",
        "",
        "",
        "class FactsError(ValueError):",
        '    """Raised by check for a fact dict it cannot judge: names the fact."""',
        "",
        "    def __init__(self, fact: str, problem: str) -> None:",
        "        self.fact = fact",
        "        super().__init__(f'facts.{fact}: {problem}')",
        "",
        "",
        f"FACTS = {tuple(f.name for f in FACTS)!r}",
        f"BOOL_FACTS = frozenset({tuple(f.name for f in FACTS if f.sort == dsl.BOOL)!r})",
        "# The facts each profile's rules read: check validates exactly these.",
        "READS = {",
        *(f"    {p!r}: {_reads(sp, p)!r}," for p in sp.profiles),
        "}",
        "",
    ]
    for r in sp.rules:
        out += ["", *rule_function(sp, r), ""]
    out += ["", "RULES = ("]
    out += [f"    ({r.id!r}, {r.message!r}, {_fn_name(r.id)})," for r in sp.rules]
    out += [")", "PROFILES = {"]
    for p in sp.profiles:
        out.append(f"    {p!r}: frozenset({tuple(r.id for r in sp.rules_for(p))!r}),")
    out += [
        "}",
        "",
        "",
        "def validate(f: Mapping[str, int | bool], profile: str = 'safe') -> None:",
        '    """Raise FactsError unless every fact the profile reads (READS) is present, a bool',
        "    fact is True or False (or 0 or 1) and an int fact is an int (not a bool; any size).",
        '    Facts the profile does not read may be absent or anything."""',
        "    if not isinstance(profile, str) or profile not in READS:",
        "        names = ', '.join(READS)",
        "        raise KeyError(f'unknown profile {profile!r}; choose one of {names}')",
        "    if not isinstance(f, Mapping):",
        "        raise TypeError(f'facts must be a mapping of fact names, got {type(f).__name__}')",
        "    for name in READS[profile]:",
        "        if name not in f:",
        "            raise FactsError(name, 'missing')",
        "        v = f[name]",
        "        if name in BOOL_FACTS:",
        "            if not (isinstance(v, int) and v in (0, 1)):",
        "                raise FactsError(name, f'must be True or False, got {type(v).__name__}')",
        "        elif isinstance(v, bool) or not isinstance(v, int):",
        "            raise FactsError(name, f'must be an int, got {type(v).__name__}')",
        "",
        "",
        "def check(f: Mapping[str, int | bool], profile: str = 'safe') -> list[Violation]:",
        '    """Every violated rule of the profile, in catalogue order. A fact dict it cannot',
        "    judge raises FactsError (see validate), an unknown profile KeyError: never a verdict",
        '    on a guess."""',
        "    validate(f, profile)",
        "    enabled = PROFILES[profile]",
        "    out = []",
        "    for rule_id, message, fn in RULES:",
        "        if rule_id in enabled:",
        "            values = fn(f)",
        "            if values is not None:",
        "                out.append(Violation(rule_id, message, values))",
        "    return out",
        "",
        "",
        "def raise_if_invalid(f: Mapping[str, int | bool], profile: str = 'safe') -> None:",
        "    violations = check(f, profile)",
        "    if violations:",
        "        raise AliasError(violations)",
        "",
    ]
    return "\n".join(out)
