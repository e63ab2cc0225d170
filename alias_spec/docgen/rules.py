"""The rule pages (one per rule) and the rules index.

A rule page shows the formula as MathML, its SMT-LIB, the generated Python and C++ exactly as
the backends write them, and a failing and a passing request: found by z3, or for a stock
Triton rule by a search over concrete view requests (alias_spec/difftest/view_examples.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from alias_spec.backends import gen_cpp, gen_python
from alias_spec.difftest import view_examples
from alias_spec.docgen.blocks import (
    GENERATED,
    example_block,
    home_profile,
    view_block,
)
from alias_spec.docgen.examples import Examples
from alias_spec.docgen.mathml import math_div, mathml, mi
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, Rule, compiled, spec
from alias_spec.model.facts import DEFINITIONS, FACTS, INVARIANTS, parse_checked
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.semantics.z3expr import fact_vars, to_z3


def _definitions_used(exprs: list[dsl.Expr]) -> list[tuple[str, str, str]]:
    names: set[str] = set()
    todo = [e for e in exprs]
    defs = {n: (t, d) for n, t, d in DEFINITIONS}
    while todo:
        for v in dsl.free_vars(todo.pop()):
            if v in defs and v not in names:
                names.add(v)
                todo.append(dsl.parse(defs[v][0]))
    return [(n, t, d) for n, t, d in DEFINITIONS if n in names]


def _definitions_table(defs: list[tuple[str, str, str]]) -> list[str]:
    out = ["| definition | meaning |", "| --- | --- |"]
    for name, text, doc in defs:
        out.append(f"| {mathml(parse_checked(text), mi(name), block=False)} | {doc} |")
    return out + [""]


def _facts_used(exprs: list[dsl.Expr]) -> list[tuple[str, str, str]]:
    used: set[str] = set()
    for e in exprs:
        used |= dsl.free_vars(e)
    for _, text, _ in _definitions_used(exprs):
        used |= dsl.free_vars(dsl.parse(text))
    return [(f.name, f.sort, f.doc) for f in FACTS if f.name in used]


def python_snippet(r: Rule) -> str:
    """The rule's function as alias_spec/backends/gen_python.py writes it (its own lines)."""
    return "\n".join(gen_python.rule_function(spec(), r))


def cpp_snippet(r: Rule) -> str:
    """The rule's function as alias_spec/backends/gen_cpp.py writes it (its own lines)."""
    return "\n".join(gen_cpp.rule_function(spec(), r))


def smtlib(e: dsl.Expr) -> str:
    return to_z3(e, fact_vars()).sexpr()


def _profile_cells(r: Rule) -> str:
    return ", ".join(f"[`{p}`](../profiles.md#{anchor(p)})" for p in r.profiles)


def anchor(profile: str) -> str:
    return "profile-" + re.sub(r"[^a-z0-9]+", "-", profile.lower()).strip("-")


def rule_page(r: Rule, examples: Examples) -> str:
    guard, formula = r.display_guard(), r.display_formula()
    shown = [formula] + ([] if r.guard == "True" else [guard])
    out = [GENERATED, f"# `{r.id}`", "", f"**{r.title}.** {r.prose}", ""]
    out += ["| | |", "| --- | --- |"]
    out += [f"| Rule ID | `{r.id}` |", f"| Profiles | {_profile_cells(r)} |"]
    out += [f"| Diagnostic | `{r.message}` |", f"| Provenance | {r.provenance} |"]
    if r.values:
        out.append(f"| Reported values | {', '.join(f'`{v}`' for v in r.values)} |")
    fix = {"offset": "the nearest alias offset", "size": "the result's leading dimension"}
    if r.fix:
        out.append(f"| Fix proposed by the solver | {fix.get(r.fix, r.fix)} |")
    out += ["", "## Formula", "", "The rule **holds** when", "", math_div(formula), ""]
    if r.guard != "True":
        out += ["It is only evaluated when", "", math_div(guard), ""]
        out += ["(otherwise the inputs are ill-formed for it and an earlier rule judges them).", ""]
    out += ["It **fires** (the request is rejected) when it is evaluated and does not hold.", ""]
    defs = _definitions_used(shown)
    if defs:
        out += ["where", ""] + _definitions_table(defs)
    out += ["Facts it reads:", "", "| fact | sort | meaning |", "| --- | --- | --- |"]
    out += [f"| `{n}` | {s} | {d} |" for n, s, d in _facts_used(shown)]
    out += ["", f"In the catalogue: formula `{r.formula}`"]
    out[-1] += "." if r.guard == "True" else f", guard `{r.guard}`."
    g, f = compiled(r.id)
    out += ["", "## SMT-LIB", ""]
    out += ["Definitions and constants inlined, as the solvers see them (z3's printer).", ""]
    out += ["```lisp", "; guard", smtlib(g), "; formula", smtlib(f), "```", ""]
    out += ["## Generated checks", ""]
    out += ["From `alias_spec/generated/alias_checks.py` (returns the reported values when "]
    out[-1] += "the rule fires):"
    out += ["", "<!-- example: excerpt alias_spec/generated/alias_checks.py -->"]
    out += ["```python", python_snippet(r), "```", ""]
    out += ["From `alias_spec/generated/alias_rules.h` (exact `__int128` arithmetic):", ""]
    out += ["<!-- example: excerpt alias_spec/generated/alias_rules.h -->"]
    out += ["```cpp", cpp_snippet(r), "```", ""]
    out += _examples_section(r, examples)
    return "\n".join(out)


def _examples_section(r: Rule, examples: Examples) -> list[str]:
    view = examples.view(r.id)
    if view is not None and view.fails is not None:
        return _view_examples_section(r, view)
    p = home_profile(r)
    bad, alone = examples.failing(r.id)
    out = ["## Examples", ""]
    if bad is None:
        return out + ["z3 found no request that violates this rule: it can never fire.", ""]
    if view is not None:
        out += ["No request of the searched family of view requests "]
        out[-1] += "(`alias_spec/difftest/view_examples.py`) violates this rule, so these examples "
        out[-1] += "are z3's facts, not requests."
        out += [""]
    out += ["Found by z3, starting from a 64-element fp32 source aliased by 16 elements at byte "]
    out[-1] += "64 and moving only the facts it must. Each is checked by "
    out[-1] += "`tests/docgen/test_docs.py`."
    out += ["", f"### A failing request ({p})", ""]
    if alone:
        out += [f"It violates `{r.id}` and no other `{p}` rule (the rule's witness for the "]
        out[-1] += "independence theorem):"
    else:
        out += [f"No request violates `{r.id}` alone under `{p}`; this one violates it with "]
        out[-1] += "others:"
    out += ["", example_block(bad, "fails", must_match=(p,))]
    good = examples.passing(r.id)
    out += [f"### A passing request ({p})", ""]
    if good is None:
        return out + [f"No request is valid under `{p}`.", ""]
    changed = [k for k in good if good[k] != bad[k]]
    out += ["The nearest request the profile accepts; it differs in "]
    out[-1] += ", ".join(f"`{k}` ({bad[k]} → {good[k]})" for k in changed) + ":"
    out += ["", example_block(good, "passes", must_match=(p,))]
    return out


def _view_examples_section(r: Rule, ex: view_examples.Example) -> list[str]:
    p = home_profile(r)
    assert ex.fails is not None
    out = ["## Examples", ""]
    out += ["Real requests, found by a search over small requests "]
    out[-1] += "(`alias_spec/difftest/view_examples.py`): a few seeds (views every profile accepts "
    out[-1] += "and one `tle.memdesc_alias`) and what one or two edits make of them (a dim, the "
    out[-1] += "element type, the layout, mutability, the alloc shape, the memory space, an "
    out[-1] += "offset, the index, the op); the least in a fixed order is shown. Each is checked "
    out[-1] += "by `tests/docgen/test_docs.py`, the JSON through the engines of `alias-spec check` "
    out[-1] += "and "
    out[-1] += "the module through `alias-spec lint`."
    out += ["", f"### A failing request ({p})", ""]
    if ex.alone:
        out += [f"It violates `{r.id}` and no other `{p}` rule:"]
    else:
        out += [f"No request of the searched family violates `{r.id}` alone under `{p}`; this "]
        out[-1] += "one violates it with others:"
    out += ["", view_block(ex.fails, "fails")]
    out += [f"### A passing request ({p})", ""]
    if ex.passes is None:
        return out + [f"No request of the searched family near it is valid under `{p}`.", ""]
    out += ["The nearest request the profile accepts; it differs in "]
    out[-1] += _changes(ex.fails, ex.passes) + ":"
    out += ["", view_block(ex.passes, "passes")]
    return out


def rules_index() -> str:
    out = [
        GENERATED,
        "# Rules",
        "",
        "Every rule of the catalogue (`alias_spec/model/catalogue.py`), in ",
    ]
    out[-1] += "catalogue order: the order in which a verdict lists violations."
    # One profiles column (the full matrix is on the profiles page): eight columns beside the
    # titles would not fit the content column.
    out[-1] += " The [profiles page](../profiles.md) has the rule matrix."
    out += ["", "| rule | title | profiles |", "| --- | --- | --- |"]
    for r in RULES:
        names = ", ".join(f"`{p}`" for p in PROFILES if p in r.profiles)
        out.append(f"| [`{r.id}`]({r.id}.md) | {r.title} | {names} |")
    out += ["", "Facts every formula is written over (`alias_spec/model/facts.py`):", ""]
    out += ["| fact | sort | meaning |", "| --- | --- | --- |"]
    out += [f"| `{f.name}` | {f.sort} | {f.doc} |" for f in FACTS]
    out += ["", "Definitions (abbreviations, inlined wherever they are used):", ""]
    out += _definitions_table(list(DEFINITIONS))
    out += ["Invariants every request's facts satisfy (the solver assumes them):", ""]
    # Block formulas: each scrolls on its own where it is wider than the column.
    out += [line for text in INVARIANTS for line in (math_div(parse_checked(text)), "")]
    return "\n".join(out)


def _changes(old: dict[str, Any], new: dict[str, Any]) -> str:
    """How two requests differ, field by field (memdesc text part by part)."""
    out = []
    for k in [*old, *(k for k in new if k not in old)]:
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        if isinstance(a, str) and isinstance(b, str) and a.startswith("!ttg.memdesc"):
            da, db = parse_memdesc(a, k), parse_memdesc(b, k)
            for part in dict.fromkeys([*da, *db]):
                x, y = da.get(part), db.get(part)
                if x != y:
                    out.append(f"`{k}` {part.replace('_', ' ')} ({_part(x)} → {_part(y)})")
        else:
            out.append(f"`{k}` ({_part(a)} → {_part(b)})")
    return ", ".join(out)


def _part(v: Any) -> str:
    if v is None:
        return "none"
    return f"`{v}`" if isinstance(v, str) else f"`{json.dumps(v)}`"
