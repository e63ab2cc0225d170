"""The z3 boundary corpus: both sides of every rule's edge, replayed through every engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alias_spec import parse_request, rules_for
from alias_spec.engines.py_engine import check_facts as py_check
from alias_spec.model.interp import check_facts as interp_check
from alias_spec.semantics.check import check_facts as z3_check

CORPUS = Path(__file__).resolve().parent / "corpus" / "boundary.jsonl"
CASES = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
PROFILES = ("flagtree", "safe")


@pytest.mark.parametrize("engine", ["interp", "python", "z3"])
def test_corpus_replays(engine: str) -> None:
    check = {"interp": interp_check, "python": py_check, "z3": z3_check}[engine]
    for case in CASES:
        facts = parse_request(case["request"]).facts
        for profile in PROFILES:
            got = check(facts, profile).rule_ids()
            assert got == case["expect"][profile], f"{case['name']} under {profile}"


@pytest.mark.parametrize("profile", PROFILES)
def test_every_rule_has_both_sides(profile: str) -> None:
    fired = {i for c in CASES for i in c["expect"][profile]}
    for r in rules_for(profile):
        assert r.id in fired, f"no corpus case violates {r.id}"
        near = [c for c in CASES if c["name"].startswith(f"{r.id} nearest valid ({profile})")]
        assert near and near[0]["expect"][profile] == [], f"no valid neighbour for {r.id}"


def test_fixed_edges_are_present() -> None:
    names = {c["name"] for c in CASES}
    for name in ("offset INT32_MAX", "offset INT32_MAX + 1", "source of INT64_MAX bytes",
                 "source of 2^63 bytes", "offset = source bytes - result bytes"):  # fmt: skip
        assert name in names
