"""The fast tier's coverage claim: ``python -m pytest -q -m "not slow"`` still judges every rule
of the catalogue, on both sides of it, through every engine, and still runs every entry point.

The probes: the z3 boundary corpus (``tests/corpus/boundary.jsonl``, verdicts committed with
it) for the alias rules, and for the stock-Triton rules the Triton differential test's view
requests (the reference interpreter's verdict is the expectation there, so this is a
differential check) plus two hand-built fact tuples for the rules no request can reach. A rule
"holds" in a probe only where its guard applies: a vacuous pass does not count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cache

import pytest

from alias_spec.difftest import outcomes
from alias_spec.difftest.triton import cases as triton_cases
from alias_spec.engines import cpp_engine, registry
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, compiled, rules_for
from alias_spec.model.facts import CONSTANTS, Facts
from alias_spec.model.interp import check_facts as interp_check
from alias_spec.model.request import parse_request
from tests.paths import BOUNDARY, ROOT

CORPUS = BOUNDARY
ALIAS_PROFILES = ("flagtree", "safe")
TRITON_PROFILES = sorted(p for p in PROFILES if p.startswith("triton-"))


@dataclass(frozen=True)
class Probe:
    """One fact tuple judged under one profile, with the rule ids it must fire."""

    name: str
    profile: str
    facts: Facts
    expect: tuple[str, ...]


def _guard_applies(rule_id: str, facts: Facts) -> bool:
    return bool(dsl.evaluate(compiled(rule_id)[0], facts))


@cache
def _corpus() -> tuple[tuple[str, Facts, dict[str, list[str]]], ...]:
    """The boundary corpus's cases in the C++ engine's domain (int64 facts; z3 and the
    interpreter judge the three beyond it in tests/semantics/test_boundary.py)."""
    out = []
    for line in CORPUS.read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            facts = parse_request(case["request"]).facts
            if outcomes.in_int64(facts):
                out.append((case["name"], facts, case["expect"]))
    return tuple(out)


def _alias_probes() -> list[Probe]:
    return [
        Probe(name, profile, facts, tuple(expect[profile]))
        for name, facts, expect in _corpus()
        for profile in ALIAS_PROFILES
    ]


def _triton_probes() -> list[Probe]:
    """For each stock-Triton rule, under the first profile that has it: the first request where
    it fires and the first where its guard applies and it holds."""
    views = [(c["id"], parse_request(c["request"]).facts) for c in triton_cases.all_cases()]
    # No request reaches these two (a rank-0 memdesc cannot be written; a reinterpret across
    # memory spaces is not in the generator): the same reinterpret, edited at the fact level.
    base = next(
        f
        for _, f in views
        if f["op"] == CONSTANTS["OP_REINTERPRET"] and interp_check(f, "triton-3.8").valid
    )
    rank0 = {**base, "res_rank": 0, "res_alloc_rank": 0, "res_lay_rank": 0}
    spaces = {**base, "res_space": CONSTANTS["TMEM"] if base["src_space"] != CONSTANTS["TMEM"]
              else CONSTANTS["SMEM"]}  # fmt: skip
    edited = [("rank-0 result", rank0), ("reinterpret across spaces", spaces)]
    assert all(outcomes.satisfies_invariants(f) for _, f in edited)
    # The alias requests make triton.op.stock fire (tle.memdesc_alias is not a stock op).
    pool = views + edited + [(name, facts) for name, facts, _ in _corpus()]
    out = []
    for r in RULES:
        profiles = [p for p in TRITON_PROFILES if r in rules_for(p)]
        if not r.id.startswith("triton.") or not profiles:
            continue
        profile = profiles[0]
        fired = next(
            ((n, f, v) for n, f in pool if r.id in (v := interp_check(f, profile).rule_ids())),
            None,
        )
        held = next(
            (
                (n, f, v)
                for n, f in pool
                if _guard_applies(r.id, f)
                and r.id not in (v := interp_check(f, profile).rule_ids())
            ),
            None,
        )
        for found in (fired, held):
            if found is not None:
                name, facts, verdict = found
                out.append(Probe(f"{r.id}: {name}", profile, facts, tuple(verdict)))
    return out


@cache
def probes() -> tuple[Probe, ...]:
    return tuple(_alias_probes() + _triton_probes())


def _judge(engine: str, group: list[Probe]) -> list[tuple[str, ...]]:
    """The fired rule ids for every probe of one profile (the C++ engine's judge_batch: one
    harness run)."""
    verdicts = registry.get(engine).judge_batch([p.facts for p in group], group[0].profile)
    return [tuple(v.rule_ids()) for v in verdicts]


def test_probes_reach_both_sides_of_every_rule() -> None:
    fires, holds = set(), set()
    for p in probes():
        for r in rules_for(p.profile):
            if r.id in p.expect:
                fires.add(r.id)
            elif _guard_applies(r.id, p.facts):
                holds.add(r.id)
    every = {r.id for r in RULES}
    assert every - fires == set(), "rules no probe makes fire"
    assert every - holds == set(), "rules no probe shows holding (guard applying)"


@pytest.mark.parametrize("engine", registry.NAMES)
def test_every_engine_judges_every_probe(engine: str) -> None:
    if engine == "cpp" and cpp_engine.compiler() is None:
        pytest.skip("no C++ compiler (g++)")
    by_profile: dict[str, list[Probe]] = {}
    for p in probes():
        by_profile.setdefault(p.profile, []).append(p)
    fires, holds = set(), set()
    for group in by_profile.values():
        for p, got in zip(group, _judge(engine, group), strict=True):
            assert got == p.expect, f"{engine} on {p.name} under {p.profile}"
            fires.update(got)
            holds.update(
                r.id
                for r in rules_for(p.profile)
                if r.id not in got and _guard_applies(r.id, p.facts)
            )
    # Every rule seen by this engine on both sides of its edge.
    assert {r.id for r in RULES} <= fires & holds


# One test per entry point that must stay in the fast tier: each must exist and not be slow.
ENTRY_POINTS = {
    "check": "tests/test_cli.py::test_example_is_valid",
    "check --engine (all four)": "tests/test_cli.py::test_engines_agree_on_example",
    "lint": "tests/lint/test_lint.py::test_exit_codes_and_formats",
    "plan": "tests/plan/test_plan.py::test_cli_exit_codes",
    "frontend (CPU)": "tests/frontend/test_frontend_cpu.py::test_corpus_sample_compiles_through_the_frontend",
    "gen --check": "tests/backends/test_gen.py::test_check_passes_on_the_tree",
    "boundary corpus, all engines": "tests/semantics/test_boundary.py::test_snapshot_replays",
}


def test_entry_points_stay_in_the_fast_tier() -> None:
    files = sorted({node.split("::")[0] for node in ENTRY_POINTS.values()})
    fast = ["--collect-only", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *fast, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    selected = proc.stdout.splitlines()
    for what, node in ENTRY_POINTS.items():
        assert any(line == node or line.startswith(node + "[") for line in selected), (
            f"{what}: {node} is not in the fast tier\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
