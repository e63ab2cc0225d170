"""The examples the pages show, solved once and kept in ``docs/data/examples.json``.

Each example is keyed by a digest of everything it depends on (its rules, the spec's facts,
definitions and invariants, the solver code), so ``alias-spec gen`` re-solves only what a
catalogue change touched; the file is itself a generated target. Which file is read is the
caller's choice (``Examples.load``), never a path inside the installed package.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import z3

from alias_spec.difftest import view_examples
from alias_spec.docgen.blocks import (
    VIEW_PROFILES,
    InputError,
    baseline_facts,
    home_profile,
    readable,
    rule_vars,
)

# _pin's source is part of every example's key: it keeps its name so stored keys stay valid.
from alias_spec.docgen.canonical import _pin, canonical
from alias_spec.model.catalogue import PROFILES, RULES, rules_for
from alias_spec.model.facts import CONSTANTS, DEFINITIONS, FACTS, INVARIANTS, Facts
from alias_spec.semantics.witness import family
from alias_spec.semantics.z3expr import fires, holds, valid

EXAMPLES_JSON = "docs/data/examples.json"  # relative to the docs root the caller gives


@cache
def _spec_text() -> str:
    """The parts of the spec every example depends on, whatever rules it involves."""
    return json.dumps(
        {
            "facts": [(f.name, f.sort) for f in FACTS],
            "definitions": DEFINITIONS,
            "invariants": INVARIANTS,
            "constants": CONSTANTS,
            "baseline": baseline_facts(),
            "family": inspect.getsource(family),
            "canonical": inspect.getsource(canonical) + inspect.getsource(_pin),
        },
        sort_keys=True,
    )


@cache
def _view_digest() -> str:
    return hashlib.sha256(view_examples.digest_text().encode()).hexdigest()[:20]


class Examples:
    """Solved examples: those stored in a previous run, and those solved (or reused) in this
    one, which are what ``to_json`` writes."""

    def __init__(self, stored: dict[str, Any] | None = None) -> None:
        self.stored: dict[str, Any] = stored or {}
        self.solved: dict[str, dict[str, Any]] = {}

    @classmethod
    def load(cls, path: Path) -> Examples:
        """The examples stored at ``path``; none (everything is solved afresh) if it is
        missing."""
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text())
            stored = data["examples"]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}: cannot read the stored examples ({exc})") from None
        if not isinstance(stored, dict):
            raise InputError(f"{path}: 'examples' is not an object")
        return cls(stored)

    def _solve(
        self, what: str, profiles: tuple[str, ...], extra: Any, solve: Callable[[], Any]
    ) -> Any:
        rules = [(r.id, r.guard, r.formula) for p in profiles for r in rules_for(p)]
        text = json.dumps([what, profiles, rules, extra, _spec_text()], sort_keys=True, default=str)
        key = hashlib.sha256(text.encode()).hexdigest()[:20]
        hit = self.solved.get(key) or self.stored.get(key)
        if not isinstance(hit, dict) or hit.get("what") != what or "value" not in hit:
            hit = {"what": what, "value": solve()}
        self.solved[key] = hit
        return hit["value"]

    def to_json(self) -> str:
        """Every example the pages use, solved (or reused) for today's catalogue."""
        for r in RULES:
            ex = self.view(r.id)
            if ex is None or ex.fails is None:
                self.passing(r.id)
        for a in PROFILES:
            for b in PROFILES:
                if a != b:
                    self.separating_request(a, b)
        items = dict(sorted(self.solved.items(), key=lambda kv: kv[1]["what"]))
        return json.dumps({"examples": items}, indent=1) + "\n"

    def failing(self, rule_id: str) -> tuple[Facts | None, bool]:
        """(facts violating the rule, whether no other rule of its home profile fires)."""
        r = next(x for x in RULES if x.id == rule_id)
        p = home_profile(r)
        others = [x for x in rules_for(p) if x.id != r.id]

        def alone(env: dict[str, z3.ExprRef]) -> z3.BoolRef:
            return z3.And(fires(r, env), *[holds(x, env) for x in others])

        def solve() -> tuple[Facts | None, bool]:
            facts = canonical(alone, baseline_facts())
            if facts is not None:
                return facts, True
            return canonical(lambda env: fires(r, env), baseline_facts()), False

        facts, is_alone = self._solve(f"fails {r.id}", (p,), r.id, solve)
        return facts, is_alone

    def passing(self, rule_id: str) -> Facts | None:
        """The valid request (home profile) nearest the failing one, the rule's own facts
        last."""
        r = next(x for x in RULES if x.id == rule_id)
        bad, _ = self.failing(rule_id)
        if bad is None:
            return None
        p = home_profile(r)
        return self._solve(
            f"passes {r.id}",
            (p,),
            [r.id, bad],
            lambda: canonical(lambda env: valid(p, env), bad, last=rule_vars(r)),
        )

    def separating(self, a: str, b: str) -> Facts | None:
        """A request profile ``a`` accepts and ``b`` rejects, nearest the baseline."""
        return self._solve(
            f"separates {a} {b}",
            (a, b),
            None,
            lambda: canonical(
                lambda env: z3.And(valid(a, env), z3.Not(valid(b, env))), baseline_facts()
            ),
        )

    def view(self, rule_id: str) -> view_examples.Example | None:
        """Real requests violating the rule and passing its home profile, for a rule whose
        home profile judges view ops (None for the others)."""
        r = next(x for x in RULES if x.id == rule_id)
        p = home_profile(r)
        if p not in VIEW_PROFILES:
            return None
        value = self._solve(
            f"view {r.id}",
            (p,),
            [r.id, _view_digest()],
            lambda: dataclasses.asdict(view_examples.rule_example(r.id, p)),
        )
        return view_examples.Example(**value)

    def separating_request(self, a: str, b: str) -> dict[str, Any] | None:
        """A real request that tells ``a`` from ``b`` when z3's separating facts are not one
        (a pair involving a stock Triton profile), from the view search; None when the facts
        are a request, or none separates."""
        facts = self.separating(a, b)
        if facts is None or readable(facts, (a, b))[0] == "request":
            return None
        if a not in VIEW_PROFILES and b not in VIEW_PROFILES:
            return None
        return self._solve(
            f"view separates {a} {b}",
            (a, b),
            _view_digest(),
            lambda: view_examples.separating(a, b),
        )
