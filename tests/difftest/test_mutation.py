"""Mutation check: every rule deleted or its top comparison flipped, in every backend (the
interpreter's trees, the generated Python, the generated C++ header), must be caught by the
differential suite. About 40 seconds on two cores, half of it compiling the C++ mutants
(one program, two translation units built in parallel), so the fast tier mutates a sample of
the rules and the slow tier all of them."""

from __future__ import annotations

import random

import pytest

from alias_spec.backends import gen_cpp, gen_python
from alias_spec.difftest import fuzz, mutate
from alias_spec.difftest.outcomes import ALIAS_PROFILES
from alias_spec.difftest.random_cases import valid_cases
from alias_spec.difftest.z3_boundary import boundary_cases
from alias_spec.engines import cpp_engine
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import RULES, compiled, rules_for
from tests.paths import ROOT

needs_cxx = pytest.mark.skipif(cpp_engine.compiler() is None, reason="no C++ compiler (g++)")


# The fast tier mutates a few rules of different shapes (an alias rule over the physical
# footprint, an i32 limit, a stock-Triton view rule) and judges a tenth of the suite's random
# cases (the boundary cases, which kill every mutant, all come first); the slow tier mutates
# every rule against the whole suite.
SAMPLE_SUITE = 400
SAMPLE_RULES = ("alias.range.physical", "alias.offset.i32", "triton.reinterpret.fits")


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(SAMPLE_RULES, id="sample"),
        pytest.param(tuple(r.id for r in RULES), id="all", marks=pytest.mark.slow),
    ],
)
def mutated_rules(request: pytest.FixtureRequest) -> tuple[str, ...]:
    return request.param


@pytest.fixture(scope="module")
def results(mutated_rules: tuple[str, ...]) -> list[mutate.Result]:
    n = SAMPLE_SUITE if mutated_rules == SAMPLE_RULES else 4000
    return mutate.run_mutants(fuzz.suite(seed=0, n=n), mutate.mutations(only=mutated_rules))


@needs_cxx
def test_mutation_score_is_100_percent(
    results: list[mutate.Result], mutated_rules: tuple[str, ...]
) -> None:
    print(mutate.report(results))
    killed, total = mutate.score(results)
    assert total == len(mutated_rules) * len(mutate.KINDS) * len(mutate.BACKENDS)
    survivors = [f"{r.backend} {r.mutation.name}" for r in results if not r.killed]
    survivors = [s for s in survivors if not s.endswith("none:none")]
    assert killed == total, survivors


@needs_cxx
def test_the_unchanged_catalogue_survives(results: list[mutate.Result]) -> None:
    # The control: generated and run exactly like a mutant, so a kill is the mutation's doing.
    controls = [r for r in results if r.mutation.kind == "none"]
    assert sorted(r.backend for r in controls) == sorted(mutate.BACKENDS)
    assert not any(r.killed for r in controls)


@needs_cxx
def test_boundary_cases_alone_kill_every_mutant(results: list[mutate.Result]) -> None:
    # The suite puts the z3 boundary cases first; each mutant dies on one of them.
    n = len(boundary_cases())
    late = [f"{r.backend} {r.mutation.name}" for r in results
            if r.mutation.kind != "none" and (r.index is None or r.index >= n)]  # fmt: skip
    assert not late


@needs_cxx
def test_a_weak_suite_scores_below_100() -> None:
    # Valid requests only: a deleted rule never fires on them, so those mutants survive.
    cases = list(valid_cases(random.Random(1), 300))
    ms = [m for m in mutate.mutations() if m.rule in ("alias.range.fits", "alias.offset.i32")]
    killed, total = mutate.score(mutate.run_mutants(cases, ms, backends=("python", "cpp")))
    assert 0 < total - killed < total


def test_flip_top() -> None:
    def flip(text: str) -> str:
        return dsl.to_text(mutate.flip_top(dsl.parse(text)))

    assert flip("off <= INT32_MAX") == "off < INT32_MAX"
    assert flip("scope == SMEM and src_space == SMEM") == "scope != SMEM and src_space == SMEM"
    # An ``and`` under an ``or`` keeps its parentheses in every rendering (see dsl.render).
    assert flip("res_bytes == 0 or (run_b >= res_bytes and off < 1)") == (
        "res_bytes != 0 or (run_b >= res_bytes and off < 1)"
    )
    assert flip("src_buffered") == "not src_buffered"
    assert flip("src_mutable or not res_mutable") == "not src_mutable or not res_mutable"


def test_every_mutation_changes_the_generated_code() -> None:
    py_ref, cpp_ref = gen_python.generate(), gen_cpp.generate()
    for m in mutate.mutations():
        with mutate.catalogue_as(m.rules):
            py, cpp = gen_python.generate(), gen_cpp.generate()
            trees = [compiled(r.id) for r in catalogue.RULES]
        assert py != py_ref and cpp != cpp_ref, m.name
        assert len(trees) == len(RULES) - (m.kind == "deleted")


def test_catalogue_as_generates_the_committed_files_and_restores() -> None:
    # Unchanged rules through the patch reproduce the committed outputs byte for byte...
    gen = ROOT / "alias_spec" / "generated"
    with mutate.catalogue_as(catalogue.RULES):
        assert gen_python.generate() == (gen / "alias_checks.py").read_text()
        assert gen_cpp.generate() == (gen / "alias_rules.h").read_text()
    # ... and after a mutation the real catalogue is back, caches included.
    m = next(m for m in mutate.mutations() if m.kind == "flipped")
    before = compiled(m.rule)
    with mutate.catalogue_as(m.rules):
        assert compiled(m.rule) != before
    assert catalogue.RULES is RULES
    assert compiled(m.rule) == before
    assert gen_python.generate() == (gen / "alias_checks.py").read_text()


@needs_cxx
def test_every_comparison_flipped_is_caught_in_cpp() -> None:
    # The extended set for the alias rules: each comparison, not just the first, flipped in
    # the C++ header (the one-batch build keeps it cheap: both tiers run all of it).
    alias_rules = {r.id for p in ALIAS_PROFILES for r in rules_for(p)}
    ms = [m for m in mutate.mutations(True, alias_rules) if m.kind != "deleted"]
    assert len(ms) > len(alias_rules)
    results = mutate.run_mutants(fuzz.suite(seed=0), ms, backends=("cpp",))
    killed, total = mutate.score(results)
    assert killed == total, [r.mutation.detail for r in results if not r.killed]
