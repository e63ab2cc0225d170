"""Divergences made small and kept: shrinking towards the base request, repro text, and
saved regressions (one JSON file per divergence, replayed by the differential tests); for the
request-level differential, one divergence per signature (``dedupe``) and the request itself
made small (``shrink_request``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

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


def save_regression(d: Divergence, directory: Path, found_by: str) -> Path:
    """One JSON file per divergence, named by its content (re-finding it overwrites it)."""
    body = d.to_json()
    key = json.dumps({"p": body["profile"], "f": body["facts"]}, sort_keys=True)
    name = f"{d.case.source}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.json"
    body["found_by"] = found_by
    body["cause"] = "unexplained: investigate, fix the engine or the spec, then explain here"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
    return path


def regression_case(path: Path) -> Case:
    """A saved divergence as a case. Facts added to the vocabulary after it was saved take
    the base request's values."""
    body = json.loads(path.read_text())
    facts = {**base_facts(), **body["facts"]}
    check_types(facts)
    return Case(facts, body["profile"], "regression", path.name)


def regression_cases(directory: Path) -> list[Case]:
    """Every divergence saved in ``directory`` (a checkout keeps them in tests/regressions)."""
    return [regression_case(p) for p in sorted(directory.glob("*.json"))]


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
    best, tries = request, 0
    improved = True
    while improved and tries < budget:
        improved = False
        for cand in request_candidates(best):
            tries += 1
            if tries > budget:
                break
            size = len(json.dumps(best, default=str))
            if len(json.dumps(cand, default=str)) <= size and same(cand):
                best, improved = cand, True
                break
    return best
