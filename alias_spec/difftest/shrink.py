"""Divergences made small and kept: the one greedy shrinker (``shrink_greedy``) and the one
regression store (``store``, ``stored``: one JSON file per divergence, named by its content,
replayed by the tests), used by every differential tester: the fact-level fuzzer (``shrink``
towards the base request, ``save_regression``, ``regression_cases``), the request-level
differential (``dedupe``, ``shrink_request``) and the random differential against Triton's
verifiers (``difftest.triton.random_diff``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from alias_spec.difftest.outcomes import (
    BOOLS,
    NAMES,
    Case,
    Divergence,
    PathDivergence,
    base_facts,
    check_types,
    jsonable,
)
from alias_spec.frontend.tle.args import is_int


def _towards(v: int, target: int) -> list[int]:
    """Candidate values from target towards v (exclusive): target, then ever larger steps."""
    d = abs(v - target)
    sign = 1 if v > target else -1
    halves = {d >> k for k in range(d.bit_length() + 1)}
    steps = sorted(halves | {d - h for h in halves})
    return [target + sign * s for s in steps if s < d]


T = TypeVar("T")


def shrink_greedy(
    start: T,
    candidates: Callable[[T], Iterable[T]],
    keeps: Callable[[T, Sequence[T]], Sequence[bool]],
    *,
    tries: int | None = None,
    rounds: int | None = None,
    batch: bool = False,
) -> T:
    """The one shrinking loop: from ``start``, move to the first of ``candidates(best)``
    (simplest first) that ``keeps(best, [candidate, ...])`` says still shows what is being
    shrunk, until none does or the budget is spent (``tries`` candidates judged, ``rounds``
    moves). With ``batch`` a step's candidates are judged in one call (one Triton process a
    step); otherwise one at a time, stopping at the first kept, since each may cost a run."""
    best, spent = start, 0
    for _ in itertools.count() if rounds is None else range(rounds):
        if tries is not None and spent >= tries:
            break
        found = False
        if batch:
            cands = list(candidates(best))
            if tries is not None:
                cands = cands[: tries - spent]
            spent += len(cands)
            verdicts = keeps(best, cands) if cands else []
            for cand, kept in zip(cands, verdicts, strict=True):
                if kept:
                    best, found = cand, True
                    break
        else:
            for cand in candidates(best):
                if tries is not None and spent >= tries:
                    break
                spent += 1
                if keeps(best, [cand])[0]:
                    best, found = cand, True
                    break
        if not found:
            break
    return best


def shrink(case: Case, diverges: Callable[[Case], bool], budget: int = 2000) -> Case:
    """Greedy: move facts one at a time towards the base request's while the case still diverges."""
    facts, tries, base = dict(case.facts), 0, base_facts()
    changed = True
    while changed and tries < budget:
        changed = False
        for name in NAMES:
            v, target = facts[name], base[name]
            if v == target:
                continue
            cands = [target] if name in BOOLS else _towards(int(v), int(target))
            for c in cands:
                tries += 1
                trial = Case({**facts, name: c}, case.profile, case.source, case.note)
                if diverges(trial):
                    facts[name] = c
                    changed = True
                    break
    return Case(facts, case.profile, case.source, case.note, case.expect)


def repro_text(d: Divergence) -> str:
    base = base_facts()
    diff = {k: v for k, v in d.case.facts.items() if base.get(k) != v}
    lines = [
        f"DIVERGENCE ({d.case.source}, profile {d.case.profile}) {d.case.note}".rstrip(),
        f"  facts differing from the base request: {json.dumps(diff)}",
        f"  all facts: {json.dumps(d.case.facts)}",
    ]
    if d.case.request is not None:
        lines.append(f"  parsed from the request: {json.dumps(d.case.request)}")
    if d.case.expect is not None:
        lines.append(f"  expected by construction: {list(d.case.expect)}")
    for e, o in d.outcomes.items():
        lines.append(f"  {e:>9}: {jsonable(o) if o is not None else '(not judged)'}")
    return "\n".join(lines)


def store(
    body: dict[str, Any], directory: Path, prefix: str, key: str, sort_keys: bool = True
) -> Path:
    """The one regression store: ``body`` as ``directory/PREFIX-HASH.json``, HASH the first
    ten hex digits of ``key``'s SHA-256 (what the regression is found by, so re-finding it
    overwrites it rather than adding a copy)."""
    name = f"{prefix}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.json"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(json.dumps(body, indent=1, sort_keys=sort_keys) + "\n")
    return path


def stored(directory: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every regression kept in ``directory`` (not its subfolders), in name order."""
    return [(p, json.loads(p.read_text())) for p in sorted(directory.glob("*.json"))]


def save_regression(d: Divergence, directory: Path, found_by: str) -> Path:
    """A fact-level divergence in the store, found by its profile and facts."""
    body = d.to_json()
    key = json.dumps({"p": body["profile"], "f": body["facts"]}, sort_keys=True)
    body["found_by"] = found_by
    body["cause"] = "unexplained: investigate, fix the engine or the spec, then explain here"
    return store(body, directory, d.case.source, key)


def _regression_case(body: dict[str, Any], name: str) -> Case:
    facts = {**base_facts(), **body["facts"]}
    check_types(facts)
    return Case(facts, body["profile"], "regression", name)


def regression_case(path: Path) -> Case:
    """A saved divergence as a case. Facts added to the vocabulary after it was saved take
    the base request's values."""
    return _regression_case(json.loads(path.read_text()), path.name)


def regression_cases(directory: Path) -> list[Case]:
    """Every divergence saved in ``directory`` (a checkout keeps them in tests/regressions)."""
    return [_regression_case(body, p.name) for p, body in stored(directory)]


# --- requests (the request-level differential) ------------------------------------------------


def dedupe(divs: Sequence[PathDivergence]) -> list[PathDivergence]:
    """One divergence per signature (``PathDivergence.key``): the first found."""
    seen: dict[tuple[str, str, str, tuple[str, ...]], PathDivergence] = {}
    for d in divs:
        seen.setdefault(d.key(), d)
    return list(seen.values())


def request_candidates(obj: Any) -> Iterator[Any]:
    """Simpler variants of a request, one change anywhere in it: a key dropped (not one a
    request or a side must have), an integer moved towards 0 or 1, a dtype made ``i8``."""
    if isinstance(obj, dict):
        for k in list(obj):
            if k not in ("source", "result", "shape", "dtype", "op"):
                yield {kk: v for kk, v in obj.items() if kk != k}
        for k, v in obj.items():
            for c in request_candidates(v):
                yield {**obj, k: c}
        if isinstance(obj.get("dtype"), (dict, str)) and obj.get("dtype") != "i8":
            yield {**obj, "dtype": "i8"}
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            for c in request_candidates(v):
                yield [*obj[:i], c, *obj[i + 1 :]]
    elif is_int(obj):
        for v in (0, 1, obj // 2, obj - 1):
            if abs(v) < abs(obj) or (v in (0, 1) and v != obj and abs(v) <= abs(obj)):
                yield v


def shrink_request(request: Any, same: Callable[[Any], bool], budget: int = 300) -> Any:
    """The smallest request (greedy, ``budget`` tries, no longer as JSON) on which ``same``
    still holds (the caller's: the same divergence, by its key)."""

    def keeps(best: Any, cands: Sequence[Any]) -> list[bool]:
        size = len(json.dumps(best, default=str))
        return [len(json.dumps(c, default=str)) <= size and same(c) for c in cands]

    return shrink_greedy(request, request_candidates, keeps, tries=budget)
