"""The lowering guide's generated section; the guide itself is hand-written around it."""

from __future__ import annotations

from pathlib import Path

from alias_spec.docgen.blocks import InputError
from alias_spec.docgen.mathml import math_div
from alias_spec.model import dsl

LOWERING_GUIDE = "docs/guides/lowering-recipes.md"
_BEGIN = "<!-- begin generated: recipes (alias_spec/docgen/gen_docs.py) -->"
_END = "<!-- end generated: recipes -->"


def recipes_section() -> str:
    from alias_spec.model import recipes as recipe_model

    out = [_BEGIN, "", "### Recipes, in the order the lowering tries them", ""]
    for rec in recipe_model.RECIPES:
        out += [f"**`{rec.name}`**: `{rec.ops}`, when", ""]
        out += [math_div(dsl.parse(rec.formula)), ""]
    out += ["### What the installed Triton must support", ""]
    out += ["Each failing condition is a `lowering.unsupported` error with its reason and fix.", ""]
    for s in recipe_model.SUPPORT:
        out += [f"**`{s.check}`**: {s.reason}. Fix: {s.fix}.", ""]
        out += [math_div(dsl.parse(s.formula)), ""]
    out += ["Recipe facts (besides the spec's):", "", "| fact | meaning |", "| --- | --- |"]
    out += [f"| `{f.name}` | {f.doc} |" for f in recipe_model.RECIPE_FACTS]
    out += [f"| `{n}` | `{t}` |" for n, t in recipe_model.LOCAL_DEFINITIONS]
    return "\n".join(out + ["", _END])


def read_guide(path: Path) -> str:
    """The hand-written guide at ``path``, checked to hold its generated section."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise InputError(f"{path}: cannot read the hand-written guide ({why})") from None
    if _BEGIN not in text or _END not in text.split(_BEGIN, 1)[1]:
        raise InputError(f"{path}: no generated section ({_BEGIN} ... {_END})")
    return text


def lowering_guide(text: str) -> str:
    """The hand-written guide (``read_guide``) with its generated section brought up to date."""
    head, rest = text.split(_BEGIN, 1)
    tail = rest.split(_END, 1)[1]
    return head + recipes_section() + tail
