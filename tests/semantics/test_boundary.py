"""The z3 boundary corpus: both sides of every rule's edge, replayed through every engine.

Snapshot: ``tests/corpus/boundary.jsonl`` is written by ``alias-spec dev boundary``
(the requests found by z3, each case's ``expect`` judged by z3); regenerate with that command.
The ``test_snapshot_*`` tests compare the engines with it. The independent truths beside it:
``test_fixed_edges_by_hand`` (the plain fixed edges' verdicts worked out here from each
request's own numbers) and ``test_generated_cases_are_what_their_names_claim`` (each z3 case's
name says which rule it must violate alone or hold, judged by the interpreter, not z3).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

from alias_spec import parse_request, rules_for
from alias_spec.engines import registry
from alias_spec.model.interp import check_facts as interp_check
from alias_spec.semantics.check import check_facts as z3_check
from tests.paths import BOUNDARY

CORPUS = BOUNDARY
CASES = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
PROFILES = ("flagtree", "safe")


@pytest.mark.parametrize("engine", registry.NAMES)
def test_snapshot_replays(engine: str) -> None:
    judge = registry.get(engine)
    # Each engine on the cases of its domain (the C++ engine's is int64 facts; the corpus also
    # holds the edges past it, which the others judge).
    cases = [c for c in CASES if judge.in_domain(parse_request(c["request"]).facts)]
    assert len(cases) > len(CASES) // 2
    facts = [parse_request(case["request"]).facts for case in cases]
    for profile in PROFILES:
        for case, verdict in zip(cases, judge.judge_batch(facts, profile), strict=True):
            got = verdict.rule_ids()
            assert got == case["expect"][profile], f"{case['name']} under {profile}"


@pytest.mark.parametrize("profile", PROFILES)
def test_snapshot_has_both_sides_of_every_rule(profile: str) -> None:
    fired = {i for c in CASES for i in c["expect"][profile]}
    for r in rules_for(profile):
        assert r.id in fired, f"no corpus case violates {r.id}"
        near = [c for c in CASES if c["name"].startswith(f"{r.id} nearest valid ({profile})")]
        assert near and near[0]["expect"][profile] == [], f"no valid neighbour for {r.id}"


def test_snapshot_has_the_fixed_edges() -> None:
    names = {c["name"] for c in CASES}
    for name in ("offset INT32_MAX", "offset INT32_MAX + 1", "source of INT64_MAX bytes",
                 "source of 2^63 bytes", "offset = source bytes - result bytes"):  # fmt: skip
        assert name in names


# --- independent truths ----------------------------------------------------------------------

# Typed here, not imported: the limits the rules speak of (i32 shared-memory addresses, int64
# byte sizes) and each dtype's bytes per element, ceil(bits / 8) (an i1 takes a whole byte).
I32_MAX = 2**31 - 1
I64_MAX = 2**63 - 1
BYTES = {"i1": 1, "i8": 1, "fp16": 2, "fp32": 4}
PLAIN_SIDE = {"shape", "dtype", "base_offset_bytes"}


def _plain(request: dict[str, Any]) -> bool:
    """A request whose verdict is arithmetic on its offset and sizes: only shapes, named dtypes
    and a base offset (the fixed edges; z3's cases set layouts, spaces, scopes, ...)."""
    if set(request) != {"source", "result", "alias_offset_bytes"}:
        return False
    sides = (request["source"], request["result"])
    return all(set(s) <= PLAIN_SIDE and s["dtype"] in BYTES for s in sides)


def _bytes(side: dict[str, Any]) -> int | None:
    """A side's byte size, None when a dim is not a static non-negative int."""
    shape = side["shape"]
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        return None
    return math.prod(shape) * BYTES[side["dtype"]]


def _by_hand(request: dict[str, Any]) -> dict[str, set[str]]:
    """The rules a plain request violates, from the rules' prose: the result's bytes
    [off, off + result bytes) must lie in the source's [0, source bytes), the offset must be a
    non-negative int of at most 2^31 - 1 and a multiple of the result's element bytes; the safe
    profile also wants the start (base + off) element-aligned and the end within i32."""
    off = request["alias_offset_bytes"]
    if not isinstance(off, int) or isinstance(off, bool):
        # Every other rule reads the offset's value, so only this one can judge it.
        return {p: {"alias.offset.constexpr"} for p in PROFILES}
    src, res = request["source"], request["result"]
    src_b, res_b = _bytes(src), _bytes(res)
    eb, base = BYTES[res["dtype"]], src.get("base_offset_bytes", 0)
    fired = set()
    if off < 0:
        fired.add("alias.offset.nonneg")
    if off > I32_MAX:
        fired.add("alias.offset.i32")
    if off % eb:
        fired.add("alias.offset.aligned")
    if src_b is None or res_b is None or src_b > I64_MAX or res_b > I64_MAX:
        fired.add("alias.size.static")
    safe = set(fired)
    if (base + off) % eb and src_b is not None:
        safe.add("alias.address.aligned")
    if src_b is not None and res_b is not None:  # the sizes are numbers: the range is judged
        if off + res_b > src_b:
            fired.add("alias.range.fits")
            safe.add("alias.range.fits")
            # A plain source is dense: its footprint is [0, source bytes) too.
            if off >= 0 and res_b > 0:
                safe.add("alias.range.physical")
        # An offset past i32 is alias.offset.i32's alone (the rule's prose says so).
        if off <= I32_MAX and base + off + res_b > I32_MAX:
            safe.add("alias.address.i32")
    return {"flagtree": fired, "safe": safe}


def test_fixed_edges_by_hand() -> None:
    """The snapshot's verdicts on the plain cases, and z3's now, are the arithmetic above."""
    plain = [c for c in CASES if _plain(c["request"])]
    assert len(plain) >= 20, "the fixed edges are gone from the snapshot"
    fired_somewhere = set()
    for case in plain:
        want = _by_hand(case["request"])
        facts = parse_request(case["request"]).facts
        for profile in PROFILES:
            assert set(case["expect"][profile]) == want[profile], (case["name"], profile)
            assert set(z3_check(facts, profile).rule_ids()) == want[profile], case["name"]
            fired_somewhere |= want[profile]
    # Each piece of the arithmetic is exercised (the check cannot pass by judging nothing).
    assert fired_somewhere >= {"alias.offset.constexpr", "alias.offset.nonneg",
                               "alias.offset.i32", "alias.size.static", "alias.range.fits",
                               "alias.range.physical", "alias.address.aligned",
                               "alias.address.i32"}  # fmt: skip


NAMED = re.compile(r"^(\S+) (violated alone|nearest valid|at its edge) \((\w+)\)$")


def test_generated_cases_are_what_their_names_claim() -> None:
    """z3 searched each case to be one side of a rule's edge; the interpreter (another engine,
    no solver) must see that side: the rule alone fires, or nothing does."""
    named = [(NAMED.match(c["name"]), c) for c in CASES]
    named = [(m, c) for m, c in named if m]
    assert len(named) >= 60
    for m, case in named:
        rule_id, side, profile = m.groups()
        got = interp_check(parse_request(case["request"]).facts, profile).rule_ids()
        assert got == ([] if side == "nearest valid" else [rule_id]), case["name"]
