"""What the differential tests compare: cases, engine outcomes, path outcomes, divergences.

A case is a fact dict, a profile and where it came from. An engine's outcome
(``Engine.outcome``, ``alias_spec.engines.base``) is the tuple of fired rule ids in catalogue
order, ``"raises <Error>"``, or None where the case lies outside the engine's domain (``cpp``
judges int64 facts; ``z3`` facts that satisfy the spec's invariants). Where the interpreter
divides by zero (outside the invariants) the spec has no verdict: the Python engines must
raise the same error and the others are not compared (``restrict``). A
path's outcome (``PathOutcome``: how one way of writing a request reads it) is what the
request-level differential compares, against the reference path's, here (``compare_outcomes``,
``compare_verifier``), into a ``PathDivergence``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from alias_spec.engines import registry
from alias_spec.engines.base import INT64_MIN as INT64_MIN
from alias_spec.engines.base import ZERO_DIVISION as ZERO_DIVISION
from alias_spec.engines.base import Outcome as Outcome
from alias_spec.engines.base import in_int64 as in_int64
from alias_spec.engines.base import invariant_trees as invariant_trees
from alias_spec.engines.base import satisfies_invariants as satisfies_invariants
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.facts import FACTS, Facts
from alias_spec.model.request import parse_request
from alias_spec.model.unknown import unjudged_rules

NAMES = tuple(f.name for f in FACTS)
BOOLS = frozenset(f.name for f in FACTS if f.sort == dsl.BOOL)


@dataclass(frozen=True)
class PathOutcome:
    """What one path of the request-level differential (``request_diff``) made of a request:
    its facts and the facts it could not know, or the rejection (``error``, one line)."""

    facts: Facts | None = None
    unknown: frozenset[str] = frozenset()
    error: str | None = None
    # Rule ids judged per profile, for paths that report verdicts rather than facts.
    verdicts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    facts: Facts
    profile: str
    source: str  # boundary, valid, random, request, sweep, regression, ...
    note: str = ""
    expect: tuple[str, ...] | None = None  # known verdict (valid-by-construction: ())
    request: Any = None  # the JSON request the facts were parsed from, if any


def check_types(facts: Facts) -> None:
    """Facts respect their sorts: bools are bools, ints are ints (not bools)."""
    for name in NAMES:
        v = facts[name]
        if (name in BOOLS) != isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"fact {name} = {v!r} has the wrong sort")


# --- comparing ------------------------------------------------------------------------------


@dataclass
class Divergence:
    case: Case
    outcomes: dict[str, Outcome]

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.case.profile,
            "source": self.case.source,
            "note": self.case.note,
            "facts": self.case.facts,
            "outcomes": {e: jsonable(o) for e, o in self.outcomes.items()},
        }


def jsonable(o: Outcome) -> Any:
    return list(o) if isinstance(o, tuple) else o


def disagree(outcomes: Mapping[str, Outcome], expect: tuple[str, ...] | None = None) -> bool:
    seen = {o for o in outcomes.values() if o is not None}
    if expect is not None:
        seen.add(expect)
    return len(seen) > 1


def restrict(outcomes: dict[str, Outcome]) -> dict[str, Outcome]:
    """Where the spec has no verdict (zero divisor), only the engines computing in Python's
    integers (``registry.PYTHON_ARITHMETIC``) are compared."""
    if any(o == ZERO_DIVISION for o in outcomes.values()):
        for e in outcomes:
            if e not in registry.PYTHON_ARITHMETIC:
                outcomes[e] = None
    return outcomes


# --- comparing paths (the request-level differential) -----------------------------------------

# What a path disagrees with the reference on: its kind ("reject", "facts", "unknown",
# "verdict") and the details (fact name -> [reference, path], profile -> [rule ids, rule ids]).
Diff = tuple[str, dict[str, Any]]
# An engine's cheap outcome (``Engine.outcome``): the rule ids it fires on facts under a profile.
Judge = Callable[[Facts, str], Outcome]


@dataclass
class PathDivergence:
    """A request on which a path (or an engine) disagrees with the reference."""

    tag: str
    request: Any
    left: str  # the reference path or engine
    right: str
    what: str  # "reject", "facts", "unknown", "verdict", "engine"
    details: dict[str, Any]
    minimal: Any = None  # the request shrunk (``shrink.shrink_request``)

    def key(self) -> tuple[str, str, str, tuple[str, ...]]:
        """The same bug: the same two sides, the same kind, on the same facts or profiles."""
        return (self.left, self.right, self.what, tuple(sorted(self.details)))

    def text(self) -> str:
        req = self.minimal if self.minimal is not None else self.request
        return (
            f"{self.left} vs {self.right} ({self.what}) on {sorted(self.details)}: "
            f"{json.dumps(self.details, default=str)[:400]}\n  request: "
            f"{json.dumps(req, default=str)[:800]}"
        )


def compare_outcomes(
    ref: PathOutcome, other: PathOutcome, keys: Sequence[str] | None = None
) -> Diff | None:
    """Where ``other`` disagrees with the reference on rejecting, on the facts (``keys`` only,
    when given: then unknown facts are not compared) or on the unknown facts; else None."""
    if (ref.error is None) != (other.error is None):
        return "reject", {"json": ref.error or "accepted", "other": other.error or "accepted"}
    if ref.error is not None or ref.facts is None or other.facts is None:
        return None
    names = keys if keys is not None else NAMES
    diff = {
        n: [ref.facts.get(n), other.facts.get(n)]
        for n in names
        if ref.facts.get(n) != other.facts.get(n)
    }
    if diff:
        return "facts", diff
    if keys is None and ref.unknown != other.unknown:
        return "unknown", {
            "only json": sorted(ref.unknown - other.unknown),
            "only other": sorted(other.unknown - ref.unknown),
        }
    return None


def expected_rules(interp: Judge, ref: PathOutcome, profile: str) -> tuple[Any, set[str]]:
    """The reference's rule ids under ``profile`` less the rules its unknown facts leave
    unjudged (``Request.unknown``), and those rules."""
    assert ref.facts is not None
    skipped = set(unjudged_rules(ref.facts, profile, ref.unknown))
    return tuple(r for r in interp(ref.facts, profile) if r not in skipped), skipped


def compare_rules(profile: str, want: Any, have: Any) -> Diff | None:
    """Rule ids compared as sets (a path need not list them in catalogue order)."""
    if sorted(want) == sorted(have):
        return None
    return "verdict", {profile: [list(want), list(have)]}


def compare_verifier(name: str, ref: PathOutcome, other: PathOutcome, interp: Judge) -> Diff | None:
    """A generated verifier's reading (rule ids per profile, no facts) against the reference's
    facts judged by ``interp``: a rejection only one side makes, then the rule ids. Rules the
    spec does not judge are left out on both sides."""
    if (ref.error is None) != (other.error is None):
        return "reject", {"json": ref.error, name: other.error}
    if ref.facts is None:
        return None
    for profile, rules in other.verdicts.items():
        want, skipped = expected_rules(interp, ref, profile)
        got = compare_rules(profile, want, tuple(r for r in rules if r not in skipped))
        if got is not None:
            return got
    return None


def compare_engine(profile: str, want: Outcome, have: Outcome) -> Diff | None:
    """An engine's outcome on the reference facts against the interpreter's (``want``)."""
    return None if want == have else ("engine", {profile: [want, have]})


# --- the base request -------------------------------------------------------------------------

# A small valid request: 64 i8 elements, a 16-byte alias at offset 0. Its facts (whatever the
# vocabulary holds) fill every fact a generator does not set, and shrinking moves facts towards
# them, so a repro differs from a familiar request in as few facts as possible.
BASE_REQUEST = {
    "source": {"shape": [64], "dtype": "i8"},
    "result": {"shape": [16], "dtype": "i8"},
    "alias_offset_bytes": 0,
}


@cache
def _base() -> tuple[tuple[str, int | bool], ...]:
    return tuple(parse_request(BASE_REQUEST).facts.items())


def base_facts() -> Facts:
    return dict(_base())


# Profiles cases cycle through; valid-by-construction cases are judged by the alias profiles.
PROFILES_LIST = list(PROFILES)
ALIAS_PROFILES = [p for p in ("flagtree", "safe") if p in PROFILES]


def profile_of(i: int) -> str:
    """The profile the ``i``-th case of a source is judged under (they take turns)."""
    return PROFILES_LIST[i % len(PROFILES_LIST)]
