"""The one engine interface: what every engine of the registry (``registry.py``) implements.

An engine judges facts under a profile two ways:

- ``judge(facts, profile) -> Verdict`` (and ``judge_batch``): the full verdict, messages and
  reported values included; what ``alias-spec check``, ``alias-spec lint`` and the tests call
  (an engine is also callable: ``engine(facts, profile)`` is ``engine.judge(facts, profile)``).
- ``outcome(facts, profile) -> Outcome`` (and ``outcomes``): the cheap form the differential
  tester compares by the million: the fired rule ids in catalogue order, ``"raises <Error>"``,
  or None where the facts lie outside the engine's domain (``in_domain``). Its default is the
  verdict's rule ids (:func:`verdict_outcome`); an engine with a faster way overrides it (the
  interpreter memoised rule by rule, the generated Python without Verdicts, the C++ harness
  batched per profile, z3's terms evaluated on the concrete facts).

Two flags tell a campaign how to run an engine: ``sampled`` (slow: it judges the cases the
campaign samples, z3) and ``batched`` (one process per batch: the fuzzer runs its
``outcomes`` in a thread beside the others, the C++ harness).

An engine that judges whole requests, their types written out, implements
:class:`RequestEngine` instead (the same ``judge``/``judge_batch`` pair, over requests): the
generated verifier inside real MLIR (``mlir_engine``) reads IR, which a fact dict cannot be
turned back into (facts are derived quantities, most fact tuples have no request, and the op
it verifies is only ``tle.memdesc_alias``), and it reports rule ids, not a Verdict's values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, rules_for
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, INT64_MAX, INVARIANTS, Facts, expand
from alias_spec.model.verdict import Verdict

INT64_MIN = -(2**63)
ZERO_DIVISION = "raises ZeroDivisionError"

# The fired rule ids, or "raises <Error>"; None where the engine's domain excludes the case.
Outcome = tuple[str, ...] | str | None


def in_int64(facts: Facts) -> bool:
    """Every fact fits an int64 (the C++ engine's domain)."""
    return all(INT64_MIN <= facts[f.name] <= INT64_MAX for f in FACTS)


@cache
def invariant_trees() -> tuple[dsl.Expr, ...]:
    return tuple(expand(t) for t in INVARIANTS)


def satisfies_invariants(facts: Facts) -> bool:
    """The facts satisfy the spec's invariants (z3's domain: it reasons under them)."""
    return all(dsl.evaluate(t, facts) for t in invariant_trees())


def enabled_rules() -> dict[str, frozenset[str]]:
    """Profile -> the ids of its rules."""
    return {p: frozenset(r.id for r in rules_for(p)) for p in PROFILES}


def verdict_outcome(engine: Engine, facts: Facts, profile: str) -> Outcome:
    """An engine's outcome through its Verdict: the rule ids, or the error it raised."""
    try:
        return tuple(engine.judge(facts, profile).rule_ids())
    except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
        return f"raises {type(exc).__name__}"


class Engine:
    """A judge of facts under a profile (see the module's docstring)."""

    name: ClassVar[str] = ""
    sampled: ClassVar[bool] = False  # slow: a campaign judges only the cases it samples
    batched: ClassVar[bool] = False  # one process per batch: a campaign runs it in a thread

    def judge(self, facts: Facts, profile: str) -> Verdict:
        raise NotImplementedError

    def __call__(self, facts: Facts, profile: str) -> Verdict:
        return self.judge(facts, profile)

    def judge_batch(self, facts_list: Sequence[Facts], profile: str) -> list[Verdict]:
        """The verdict on each fact dict, in order."""
        return [self.judge(f, profile) for f in facts_list]

    def in_domain(self, facts: Facts) -> bool:
        """Whether the engine is defined on these facts (its outcome is None elsewhere)."""
        return True

    def prepare(self) -> None:
        """Set up what ``outcome`` needs (a campaign calls it before judging any case)."""

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        """The cheap form of the verdict: fired rule ids, ``"raises <Error>"``, or None."""
        return verdict_outcome(self, facts, profile)

    def outcomes(self, cases: Sequence[tuple[Facts, str]]) -> list[Outcome]:
        """The outcome on each (facts, profile) pair, in order."""
        return [self.outcome(f, p) for f, p in cases]


# Per request: the violated rule ids in catalogue order, or why it cannot be judged.
RequestOutcome = list[str] | RequestError


class RequestEngine:
    """A judge of whole JSON requests under a profile (see the module's docstring): per
    request, the violated rule ids, or the RequestError saying why it is malformed or outside
    the engine's domain. Batched by nature (one process for many requests): ``judge_batch`` is
    what an engine implements, and calling the engine is calling it."""

    name: ClassVar[str] = ""
    profiles: ClassVar[tuple[str, ...]] = ()  # the profiles it can judge under

    def judge_batch(
        self, requests: Sequence[Mapping[str, Any]], profile: str
    ) -> list[RequestOutcome]:
        raise NotImplementedError

    def judge(self, request: Mapping[str, Any], profile: str) -> RequestOutcome:
        return self.judge_batch([request], profile)[0]

    def __call__(self, requests: Sequence[Mapping[str, Any]], profile: str) -> list[RequestOutcome]:
        return self.judge_batch(requests, profile)
