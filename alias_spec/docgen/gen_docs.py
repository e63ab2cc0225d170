"""Generator: the docs site's reference pages, from the catalogue, the solver and the theorems.

One page per rule (``rules``), the rules index, the profile matrix with requests that tell
each pair of profiles apart (``profiles``), the theorems page (``theorems``, from
``docs/data/theorems.json``), the lowering guide's generated section (``guides``) and the
solved examples they show (``examples``, ``docs/data/examples.json``). Every page iterates
whatever the catalogue holds when it runs.

Requests shown are made deterministic by construction (``canonical``): the page shows the
unique request z3's sat/unsat answers pin down, not whatever model a solver version happens to
return; the view search takes the least request in a fixed order.

The stored inputs (examples, theorems, the hand-written guide) are read under the docs root the
caller gives (``alias-spec gen --root DIR``), never from the installed package's location.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alias_spec.docgen.blocks import InputError
from alias_spec.docgen.examples import EXAMPLES_JSON, Examples
from alias_spec.docgen.guides import LOWERING_GUIDE, lowering_guide, read_guide
from alias_spec.docgen.profiles import profiles_page
from alias_spec.docgen.rules import rule_page, rules_index
from alias_spec.docgen.theorems import THEOREMS_JSON, load_measured, load_theorems, theorems_page
from alias_spec.model.catalogue import RULES, Rule
from alias_spec.model.schema import SCHEMA_JSON, SCHEMA_PAGE, schema_page, schema_text

__all__ = ["InputError", "rule_pages", "targets"]


def targets(root: Path) -> list[tuple[str, Callable[[], str]]]:
    """(path relative to ``root``, generator) for every generated docs page. The hand-written
    guide and the stored examples are read now (InputError if unreadable: ``root`` is not a
    checkout), the theorems when their page is generated. The examples file comes first:
    generating it solves every example the pages then reuse."""
    guide = read_guide(root / LOWERING_GUIDE)
    examples = Examples.load(root / EXAMPLES_JSON)
    out: list[tuple[str, Callable[[], str]]] = [
        (EXAMPLES_JSON, examples.to_json),
        ("docs/rules/index.md", rules_index),
        ("docs/profiles.md", lambda: profiles_page(examples)),
        (
            "docs/theorems.md",
            lambda: theorems_page(
                load_theorems(root / THEOREMS_JSON), load_measured(root / THEOREMS_JSON)
            ),
        ),
        (LOWERING_GUIDE, lambda: lowering_guide(guide)),
        (SCHEMA_JSON, schema_text),  # the request schema, published on the site
        (SCHEMA_PAGE, schema_page),
    ]
    out += rule_pages(examples)
    return out


def rule_pages(examples: Examples) -> list[tuple[str, Callable[[], str]]]:
    """(path, generator) of every rule's page."""
    return [(f"docs/rules/{r.id}.md", _page_of(r, examples)) for r in RULES]


def _page_of(r: Rule, examples: Examples) -> Callable[[], str]:
    return lambda: rule_page(r, examples)
