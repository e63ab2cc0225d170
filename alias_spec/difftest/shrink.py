"""Divergences made small and kept: shrinking towards the base request, repro text, and
saved regressions (one JSON file per divergence, replayed by the differential tests)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from alias_spec.difftest.outcomes import (
    BOOLS,
    NAMES,
    Case,
    Divergence,
    base_facts,
    check_types,
    jsonable,
)


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
