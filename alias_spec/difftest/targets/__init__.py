"""The targets of the request-level differential (``difftest/request_diff.py``): each module
here writes a request one more way a user can write it, reads it back, and says how what it
read compares with the reference (the request as given, through ``model.request``).

Every target module has the same few names (``Target``), so that the runner is one loop over
its list (``request_diff.TARGETS``) and a new way of writing a request is one new module:

- ``NAME``: the path's name in coverage counts, skip notes and divergences.
- ``status()``: why the target cannot run here (a missing compiler, no Gluon), or None.
- ``prepare()``: build what forked workers will share, before they fork; why the target cannot
  run after all, or None.
- ``outcomes(batch)``: what the target made of each request of a ``Batch``, or None where it
  cannot express the request (counted as not covered).
- ``labels(batch, i)``: the coverage counts request ``i`` adds to when it was covered.
- ``compare(ref, got, judges)``: where ``got`` disagrees with the reference (``outcomes.Diff``),
  None where it agrees, or a short reason (a ``str``) where the difference is not the target's
  to judge (the request is then counted under ``"NAME (reason)"``). Targets compare through
  ``difftest.outcomes``' comparators only, so that every path is held to the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from alias_spec.difftest.outcomes import Diff, Judge, compare_outcomes
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.requests import ALIAS
from alias_spec.frontend.tle.args import is_int
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.errors import RequestError
from alias_spec.model.layouts import Layout, parse_layout
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.physical import base_alignment
from alias_spec.model.request import Request, parse_request


@dataclass(frozen=True)
class Batch:
    """A chunk of the corpus, as every target sees it."""

    requests: Sequence[Any]  # as the corpus gives them
    canonical: Sequence[dict[str, Any] | None]  # see ``canonical``
    start: int = 0  # the first request's place in the corpus: targets take turns by it
    # Where a target notes a part of it that did not run, and why (the run's ``skipped``).
    skipped: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls, requests: Sequence[Any], start: int = 0, skipped: dict[str, str] | None = None
    ) -> Batch:
        canon = [canonical(r) for r in requests]
        return cls(requests, canon, start, {} if skipped is None else skipped)


class Judges(NamedTuple):
    """The engines a target's reading is held against, on the reference's facts."""

    interp: Judge  # the reference verdict
    python: Judge  # the generated Python (what a frontend call runs)


@runtime_checkable
class Target(Protocol):
    """A target module's names (see the module docstring)."""

    NAME: str

    def status(self) -> str | None: ...
    def prepare(self) -> str | None: ...
    def outcomes(self, batch: Batch) -> list[Outcome | None]: ...
    def labels(self, batch: Batch, i: int) -> tuple[str, ...]: ...
    def compare(self, ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None: ...


class Skipped(Exception):
    """A target cannot judge one profile's requests here (the message says why)."""


# --- what targets share -----------------------------------------------------------------------


def nothing_missing() -> str | None:
    """``status`` and ``prepare`` of a target in plain Python: it runs wherever the package
    does, and has nothing to build."""
    return None


def compare_facts(ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None:
    """``compare`` of a target that reads facts back and nothing else."""
    return compare_outcomes(ref, got)


def parsed(req: Any) -> Outcome:
    """A request read by ``model.request`` (the reference, and how text paths read back)."""
    try:
        got: Request = parse_request(req)
    except RequestError as exc:
        return Outcome(error=str(exc))
    return Outcome(facts=got.facts, unknown=got.unknown)


def copy_json(obj: Any) -> Any:
    """A copy of a JSON value (much faster than copy.deepcopy on these small trees)."""
    if isinstance(obj, dict):
        return {k: copy_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy_json(v) for v in obj]
    return obj


def canonical(req: Any) -> dict[str, Any] | None:
    """The request with every side as a JSON object (MLIR text sides read by ``parse_memdesc``),
    deep-copied; None when it is no object or a side cannot be read."""
    if not isinstance(req, dict):
        return None
    out = copy_json(req)
    # A memory-space alias resolves by the request's own definitions (never by its name).
    aliases = out.get("attributes")
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        aliases = None
    for who in ("source", "result"):
        side = out.get(who)
        if isinstance(side, str):
            try:
                out[who] = parse_memdesc(side, who, aliases)
            except RequestError:
                return None
        elif not isinstance(out.get(who), dict):
            return None
    return out


def attributes(req: dict[str, Any]) -> dict[str, Any]:
    """The request's own attribute aliases (none when it defines none)."""
    attrs = req.get("attributes")
    return attrs if isinstance(attrs, dict) else {}


def by_op(name: str, batch: Batch, i: int) -> tuple[str, ...]:
    """``labels`` of a target that writes IR: its count and its count for the request's op."""
    c = batch.canonical[i]
    return (name,) if c is None else (name, f"{name} {c.get('op', ALIAS)}")


def static(dims: Any) -> bool:
    """A non-empty list of non-negative ints (a shape every path can write)."""
    return isinstance(dims, list) and bool(dims) and all(is_int(d) and d >= 0 for d in dims)


def default_alignment(src: dict[str, Any], attrs: dict[str, str]) -> int | None:
    """The allocation alignment a source's layout gives when the request names none."""
    try:
        lay = parse_layout(src.get("layout"), "source.layout", attrs)
    except RequestError:
        return None
    return base_alignment((lay or Layout("other")).swizzle_repeat)


# --- generated verifiers, built per profile (glue, verifier) -----------------------------------


def builds(built_for: Sequence[str]) -> list[str]:
    """The profiles a verifier was built for, in catalogue order."""
    return [p for p in PROFILES if p in built_for]


def build_of(built_for: Sequence[str], batch: Batch, i: int) -> str:
    """The build request ``i`` goes through: the builds take turns."""
    built = builds(built_for)
    return built[(batch.start + i) % len(built)]


def through_builds(
    name: str,
    built_for: Sequence[str],
    judge: Callable[[list[Any], str], list[Outcome | None]],
    batch: Batch,
) -> list[Outcome | None]:
    """Each request through one build of a generated verifier (one driver run per build),
    each outcome's ``verdicts`` keyed by the build's profile. A profile with no build, or one
    whose ``judge`` raises ``Skipped``, is noted in ``batch.skipped``."""
    built = builds(built_for)
    for profile in PROFILES:
        if profile not in built:
            batch.skipped[f"{name} {profile}"] = "built for " + ", ".join(built_for) + " only"
    out: list[Outcome | None] = [None] * len(batch.requests)
    for profile in built:
        mine = [i for i in range(len(out)) if build_of(built_for, batch, i) == profile]
        try:
            got = judge([batch.requests[i] for i in mine], profile)
        except Skipped as exc:
            batch.skipped[f"{name} {profile}"] = str(exc)
            continue
        for i, o in zip(mine, got, strict=True):
            out[i] = o
    return out
