"""Differential tests: the interpreter, the generated Python, the sanitized C++ header and z3
judge the same cases and must return the same list of fired rule ids.

The campaign (every fact tuple of the small-scope sweep, valid-by-construction, raw and perturbed
random facts, parsed JSON requests, z3 boundary cases; z3 on every boundary case and a random
sample) runs here at a seeded sample size (``alias_spec.difftest.campaigns.SIZES``: about a
quarter of a million cases in CI, ten thousand in the fast tier); its full size, over one million
cases, is ``alias-spec dev campaigns engines --full --write``, whose dated result is committed in
docs/data/campaigns.json.
A divergence is shrunk, saved under tests/regressions/ and fails the test; every saved one is
replayed below.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_spec.difftest import (
    campaigns,
    fuzz,
    outcomes,
    random_cases,
    request_cases,
    shrink,
    z3_boundary,
)
from alias_spec.difftest.sweep import Sweep
from alias_spec.engines import base, cpp_engine, py_engine, registry
from alias_spec.model.catalogue import PROFILES, RULES, rules_for
from alias_spec.model.facts import INT32_MAX, INT64_MAX
from alias_spec.model.interp import check_facts as interp_check
from alias_spec.semantics.check import check_facts as z3_check
from tests.paths import CASES, TESTS

needs_cxx = pytest.mark.skipif(cpp_engine.compiler() is None, reason="no C++ compiler (g++)")
ALL = list(registry.FAST)
REGRESSIONS = TESTS / "regressions"  # saved divergences, replayed below
REGRESSION_FILES = sorted(REGRESSIONS.glob("*.json"))


def _fail_with_repros(rep: fuzz.Report, found_by: str) -> None:
    """Shrink, save and print every divergence; then fail."""
    texts = campaigns.repros(rep, REGRESSIONS, found_by)
    if texts:
        pytest.fail(f"{len(rep.divergences)} divergences:\n" + "\n".join(texts))


# --- boundary cases ------------------------------------------------------------------------------


def test_boundary_cases_reach_both_sides_of_every_rule() -> None:
    cases = z3_boundary.boundary_cases()
    interp = registry.engine("interp")
    alone, valid = Counter(), Counter()
    for c in cases:
        got = interp.outcome(c.facts, c.profile)
        rule_id = c.note.split(" ")[0]
        if got == (rule_id,):
            alone[rule_id] += 1
        if got == ():
            valid[rule_id] += 1
    for r in RULES:
        if any(r in rules_for(p) for p in PROFILES):
            assert alone[r.id] >= 1, f"no case where {r.id} alone fires"
            assert valid[r.id] >= 1, f"no valid case beside {r.id}'s edge"


def test_boundary_cases_sit_on_the_edges() -> None:
    # The exact edges of the int64 and i32 limits are reached, on both sides.
    def pairs(note: str, value) -> set[int]:
        return {value(c.facts) for c in z3_boundary.boundary_cases() if note in c.note}

    def src_bytes(f: dict) -> int:
        return f["src_elems"] * ((f["src_bits"] + 7) // 8) - INT64_MAX

    def off(f: dict) -> int:
        return f["off"] - INT32_MAX

    assert {0, 1} <= pairs("alias.size.static at src_elems", src_bytes)
    assert {0, 1} <= pairs("alias.offset.i32 at off", off)


@needs_cxx
@pytest.mark.parametrize(
    "step", [pytest.param(10, id="sample"), pytest.param(1, id="all", marks=pytest.mark.slow)]
)
def test_boundary_cases_all_engines_and_the_z3_solver(step: int) -> None:
    # Every boundary case (the fast tier: every tenth) through every engine, z3 twice: its
    # term evaluation and the real solver engine (one satisfiability query per rule),
    # sanitized C++.
    cases = list(z3_boundary.boundary_cases())[::step]
    rep = fuzz.run(cases, [*ALL, registry.SOLVER], sanitize=True)
    assert rep.compared[registry.SOLVER] == len(cases)  # every boundary case is in z3's domain
    assert rep.compared["cpp"] == len(cases)
    _fail_with_repros(rep, "tests/difftest/test_differential.py (boundary cases)")


# --- the campaign: every source through every engine --------------------------------------------


@needs_cxx
@pytest.mark.parametrize(
    "scale", [pytest.param(5, id="dev"), pytest.param(campaigns.SIZES["engines"].sample, id="ci")]
)
def test_campaign_sample(scale: int) -> None:
    # A seeded sample of the million-case campaign (``alias-spec dev campaigns engines --full``
    # runs that; its result is committed in docs/data/campaigns.json): every case source and
    # every engine, every check the full run makes.
    found_by = f"tests/difftest/test_differential.py::test_campaign_sample[{scale}]"
    out = campaigns.engines(scale, regressions=REGRESSIONS, found_by=found_by)
    assert out.ok, out.report()


@pytest.mark.parametrize(
    "share", [pytest.param(10, id="sample"), pytest.param(1, id="all", marks=pytest.mark.slow)]
)
def test_the_sweep_is_exhaustive_and_in_domain(share: int) -> None:
    sweep = Sweep()
    assert len(sweep) == sweep.size_a + sweep.size_b > 750_000
    rng = random.Random(1)
    # Part A is a product of distinct values: distinct indices give distinct fact tuples.
    idx = rng.sample(range(sweep.size_a), 20_000 // share)
    tuples = {tuple(sweep[i][n] for n in outcomes.NAMES) for i in idx}
    assert len(tuples) == len(idx)
    picks = [sweep[rng.randrange(len(sweep))] for _ in range(5000 // share)]
    assert all(outcomes.satisfies_invariants(f) for f in picks)
    assert {sweep[i]["off"] for i in range(0, sweep.size_a, len(sweep.geos) * 64)} == set(
        Sweep.OFFSETS
    )
    # Part B: every combination of the control flags, scope and memory spaces.
    part_b = [sweep[sweep.size_a + i] for i in range(sweep.size_b)]
    flags = ("src_buffered", "init_given", "src_mutable", "res_mutable", "off_int",
             "src_static", "res_static", "scope", "src_space", "res_space")  # fmt: skip
    assert len({tuple(f[n] for n in flags) for f in part_b}) == 2**7 * 2 * 3 * 3


def test_valid_by_construction_is_valid() -> None:
    # The construction is an oracle of its own: checked by the big run too (expect=()).
    rng = random.Random(3)
    for _ in range(3000):
        f = random_cases.valid_facts(rng)
        assert outcomes.satisfies_invariants(f)
        for p in outcomes.ALIAS_PROFILES:
            assert interp_check(f, p).valid


# --- hypothesis: raw facts, int64 extremes, outside the invariants and int64 --------------------


@needs_cxx
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(random_cases.facts_strategy(), min_size=1, max_size=120),
    st.sampled_from(list(PROFILES)),
)
def test_hypothesis_facts(batch: list[dict], profile: str) -> None:
    cases = [outcomes.Case(f, profile, "hypothesis") for f in batch]
    rep = fuzz.run(cases, ALL, sanitize=True)
    _fail_with_repros(rep, "tests/difftest/test_differential.py::test_hypothesis_facts")


# --- full verdicts: messages and reported values, not only rule ids ----------------------------


@needs_cxx
@pytest.mark.parametrize(
    "share", [pytest.param(10, id="sample"), pytest.param(1, id="all", marks=pytest.mark.slow)]
)
def test_full_verdicts_agree(share: int) -> None:
    # Rule ids, messages and reported values, through each engine's check_facts (the fast
    # tier: a tenth of the cases).
    rng = random.Random(5)
    cases = list(z3_boundary.boundary_cases())[::share]
    cases += list(random_cases.valid_cases(rng, 200 // share))
    cases += [c for c in random_cases.random_cases(rng, 600 // share) if outcomes.in_int64(c.facts)]
    judged = 0
    for k, c in enumerate(cases):
        try:
            want = interp_check(c.facts, c.profile)
        except ZeroDivisionError:
            continue
        got = py_engine.check_facts(c.facts, c.profile)
        assert (got.valid, got.violations) == (want.valid, want.violations)
        if k % 4 == 0:  # one harness run per call: a sample
            got = cpp_engine.check_facts(c.facts, c.profile)
            assert (got.valid, got.violations) == (want.valid, want.violations)
        if c.source == "boundary":
            got = z3_check(c.facts, c.profile, with_fixes=False)
            assert got.valid == want.valid
            assert [(v.rule, v.message, v.values) for v in got.violations] == [
                (v.rule, v.message, v.values) for v in want.violations
            ]
        judged += 1
    assert judged > 700 // share


# --- saved regressions ---------------------------------------------------------------------------


@needs_cxx
@pytest.mark.parametrize("path", REGRESSION_FILES, ids=[p.name for p in REGRESSION_FILES])
def test_regression_replays(path: Path) -> None:
    body = json.loads(path.read_text())
    assert "unexplained" not in body["cause"], "explain the divergence before committing it"
    d = fuzz.replay(path, sanitize=True)
    assert not outcomes.disagree(d.outcomes), shrink.repro_text(d)
    for engine, outcome in body.get("expect", {}).items():
        got = d.outcomes[engine]
        assert (list(got) if isinstance(got, tuple) else got) == outcome, engine


def test_there_are_regressions_to_replay() -> None:
    assert REGRESSION_FILES


# --- the machinery can fail: shrinking, saving, the campaign's exit status ---------------------


def test_shrink_reaches_a_minimal_case() -> None:
    base = outcomes.base_facts()
    start = dict(random_cases.raw_facts(random.Random(9)), off=123_456_789, off_int=True)
    case = outcomes.Case(start, "safe", "random")

    def diverges(c: outcomes.Case) -> bool:  # a stand-in bug: "wrong whenever off > 100"
        return c.facts["off"] > 100

    small = shrink.shrink(case, diverges)
    assert small.facts == {**base, "off": 101}


def test_divergences_are_saved_and_loaded(tmp_path: Path) -> None:
    case = outcomes.Case(outcomes.base_facts(), "safe", "random", "a note")
    d = outcomes.Divergence(case, {"interp": (), "python": ("alias.range.fits",)})
    path = shrink.save_regression(d, tmp_path, "a test")
    again = shrink.regression_cases(tmp_path)
    assert [c.facts for c in again] == [case.facts]
    assert json.loads(path.read_text())["outcomes"]["python"] == ["alias.range.fits"]


@needs_cxx
def test_campaign_passes_and_reports_rates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert fuzz.main(3000, 1, list(registry.FUZZ), save_dir=tmp_path) == 0
    out = capsys.readouterr()
    assert "interp: 3000 cases judged" in out.out
    assert "python: 3000 cases judged" in out.out
    assert out.out.count("cases/s") == 3
    assert "divergences: 0" in out.out
    assert "3000/3000" in out.err  # the progress bar
    assert not list(tmp_path.iterdir())


def test_campaign_reports_a_broken_engine(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = py_engine.PythonEngine.outcome

    def broken(self, f, p):  # drops the last fired rule: a typical generator slip
        o = real(self, f, p)
        return o[:-1] if isinstance(o, tuple) and o else o

    monkeypatch.setattr(py_engine.PythonEngine, "outcome", broken)
    # The two engines that never need a compiler.
    assert fuzz.main(2000, 2, ["interp", "python"], save_dir=tmp_path) == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE" in out and "python" in out
    saved = list(tmp_path.glob("*.json"))
    assert saved
    body = json.loads(saved[0].read_text())
    assert body["outcomes"]["interp"] != body["outcomes"]["python"]


# --- the engine registry and the inputs a campaign is given ---------------------------------------


@needs_cxx
def test_every_registry_engine_agrees_with_its_fast_form() -> None:
    # The campaign's fast forms are the registry's engines: through their Verdicts they agree.
    rng = random.Random(3)
    cases = (
        list(random_cases.valid_cases(rng, 40))
        + [
            c
            for c in random_cases.random_cases(rng, 200)
            if outcomes.in_int64(c.facts) and outcomes.satisfies_invariants(c.facts)
        ][:40]
    )
    assert len(cases) > 60
    for name in registry.NAMES:
        fast = fuzz.Engines([name])
        full = registry.get(name)
        for c in cases:
            got = fast.one(name, c)
            want = base.verdict_outcome(full, c.facts, c.profile)
            assert got is not None and got == want, (name, c.facts)
        verdicts = full.judge_batch([c.facts for c in cases[:5]], cases[0].profile)
        assert verdicts == [full.judge(c.facts, cases[0].profile) for c in cases[:5]], name


def test_every_registry_engine_is_fuzzed() -> None:
    # The campaigns' engines are the registry's, each once (FAST is NAMES in report order).
    assert sorted(registry.FAST) == sorted(registry.NAMES)
    assert set(registry.FUZZ) | {"z3"} == set(registry.FAST)
    assert registry.CAMPAIGN == (*registry.NAMES, registry.SOLVER)
    with pytest.raises(ValueError, match="unknown engines"):
        fuzz.Engines(["interp", "nope"])


def test_request_seeds_come_only_from_the_folder_given() -> None:
    names = {p.name for p in CASES.glob("*.json")}
    seeded = [c.note for c in request_cases.request_cases(random.Random(0), 150, cases_dir=CASES)]
    assert names & set(seeded)
    bare = [c.note for c in request_cases.request_cases(random.Random(0), 150)]
    assert not names & set(bare)
