"""The interpreter engine: the reference interpreter (``alias_spec.model.interp``).

Its verdict is ``interp.check_facts``. Its outcome (what the differential tester compares by
the million) is the interpreter rule by rule, memoised per rule on the facts that rule reads
(its guard's and formula's free variables); ``dsl.evaluate`` reads nothing else, so the memo is
exact. The rules are read from the catalogue when the engine is made (the mutation tester
makes one under a mutated catalogue).
"""

from __future__ import annotations

from alias_spec.engines.base import ZERO_DIVISION, Engine, Outcome, enabled_rules
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import compiled
from alias_spec.model.facts import Facts
from alias_spec.model.interp import check_facts, violated
from alias_spec.model.verdict import Verdict


class InterpEngine(Engine):
    """The interpreter; its outcome rule by rule, memoised on each rule's free variables."""

    name = "interp"
    MEMO_LIMIT = 200_000

    def __init__(self) -> None:
        self._enabled = enabled_rules()
        self._rules = []
        for r in catalogue.RULES:
            guard, formula = compiled(r.id)
            names = tuple(sorted(dsl.free_vars(guard) | dsl.free_vars(formula)))
            self._rules.append((r, names, {}))

    def judge(self, facts: Facts, profile: str) -> Verdict:
        return check_facts(facts, profile)

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        enabled = self._enabled[profile]
        out = []
        for r, names, memo in self._rules:
            if r.id not in enabled:
                continue
            key = tuple(facts[n] for n in names)
            hit = memo.get(key)
            if hit is None:
                if len(memo) > self.MEMO_LIMIT:
                    memo.clear()
                try:
                    hit = violated(r, facts)
                except ZeroDivisionError:
                    hit = ZERO_DIVISION
                memo[key] = hit
            if hit == ZERO_DIVISION:
                return ZERO_DIVISION
            if hit:
                out.append(r.id)
        return tuple(out)
