"""Shared test fixtures and skips, and the fast tier's lighter property tests.

Two tiers: ``python -m pytest -q`` (CI) runs everything; ``python -m pytest -q -m "not slow"``
(any mark expression with ``not slow``) leaves out the tests marked slow, runs the first case
of each parametrized test, and each Hypothesis test on a fifth of its examples.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.paths import CASES as CASE_DIR
from tests.paths import ROOT, TESTS

# Triton's compile cache keys a kernel by its jit sources, not by the frontend's builtins
# (tle.gpu.alloc and the lowering), so a cached compile could hide a change to them: every
# test session compiles into a cache of its own.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tle-alias-triton-cache-")
CASES = sorted(CASE_DIR.glob("*.json"))


# The fast tier runs each property test on this share of its examples (at least FAST_MIN).
FAST_SHARE = 5
FAST_MIN = 20


def _fast_tier(config: pytest.Config) -> bool:
    return "not slow" in " ".join(str(config.getoption("markexpr") or "").split())


# Files whose every parametrized case stays in the fast tier: the coverage claim itself, and
# the theorems (one case per theorem: the slow ones are marked so, the others all stay).
FAST_WHOLE = {
    "tests/test_fast_tier.py",
    "tests/compat/lint/test_lint_compat.py",
    "tests/plan/test_plan_cases.py",
    "tests/semantics/test_theorems.py",
}
# Run by the full tier only: seconds each, and what they check has a cheaper test in the fast
# tier (the docs pages' text in test_docs.py, the C++ engine in test_fast_tier.py).
FULL_ONLY = (
    "tests/docgen/test_docs_site.py::",  # builds the site, opens every page in Chromium
    "tests/test_cli_usability.py::test_stopping_docs_serve_stops_mkdocs",
    "tests/difftest/test_mutation.py::test_every_comparison_flipped_is_caught_in_cpp",
    "tests/plan/test_plan_hook.py::test_pytest_plugin",
    "tests/plan/test_plan_hook.py::test_installed_plugin_needs_no_dash_p",
    # Seconds each; the fast tier judges the plan soundness cases, whose mutants these are.
    "tests/plan/test_plan_corpus.py::test_mutation_score_is_100_percent",
    "tests/plan/test_plan_corpus.py::test_cut_mutant_needs_liveness_through_views",
    # Seconds each, waiting out a deliberate time limit or a killed process; the fast tier
    # keeps one of each kind (ir/test_procs.py's group kill, plan_dir's dead worker).
    "tests/plan/test_plan_dir.py::test_a_kernel_past_its_timeout_is_an_error_and_its_processes",
    "tests/plan/test_plan_runner.py::test_past_its_time_the_worker_is_killed",
    "tests/ir/test_procs.py::test_the_scratch_of_a_killed_process_is_swept",
    "tests/ir/test_procs.py::test_a_served_worker_past_its_time_is_killed",
    "tests/ir/test_procs.py::test_endless_stderr_does_not_hold_off_the_time_limit",
    # Each collects the whole suite or runs gen in a subprocess for one bad input; the fast
    # tier keeps the good path (test_counts_are_what_pytest_collects, test_gen's bad roots).
    "tests/docgen/test_tiers.py::test_a_readme_without_the_block_is_exit_2",
    "tests/docgen/test_tiers.py::test_a_broken_test_tree_is_one_line_exit_2",
    "tests/backends/test_compiler_patch.py::test_an_unreadable_case_is_one_line",
    "tests/benchmarks/test_benchmark_outputs.py::test_price_benchmark_leaves_the_committed",
    "tests/plan/test_plan_triton_lit.py::test_runner_leaves_no_temporary_files",
    # Seconds each; a cheaper test of the same verdict stays: a planted generator slip
    # (test_mutation.py's sample), a missing proxy fence (test_plan_async_truth.py), a partial
    # verdict with its reason (test_plan_async_truth.py's protocol that does not add up).
    "tests/difftest/test_campaigns_cmd.py::test_a_broken_engine_is_reported",
    "tests/plan/test_plan_races.py::test_deleting_a_proxy_fence_is_a_proxy_race",
    "tests/plan/test_plan_hopper.py::test_hopper_kernel_partial_for_its_named_reason",
    # Tests of the test harnesses and of the benchmarks' printing, and more tile shapes of one
    # frontend path: the harness's verdict itself (the mutation sample's score, the planned
    # attention kernel) stays in the fast tier.
    "tests/difftest/test_mutation.py::test_every_mutation_changes_the_generated_code",
    "tests/difftest/test_mutation.py::test_a_weak_suite_scores_below_100",
    "tests/benchmarks/test_bench_plan.py::test_races_time_the_race_check_apart_with_its_verdict",
    "tests/frontend/test_reuse_attention.py::test_other_tile_shape",
    "tests/frontend/test_reuse_attention.py::test_late_matches_planned",
    # Seconds each, a second look at what a cheaper fast test shows: the real-world snapshot's
    # totals (its sampled kernels stay), one fla shape (the races partial verdicts of
    # test_plan_async_truth stay), each fence alone (the kernel without its fence stays), the
    # mutants against the boundary cases alone (the mutation score stays), explained
    # divergences (the campaign command's other tests stay), Ctrl-C during prove (the other
    # interrupt tests stay), the bit-vector proof of every rule (the z3 theorems stay).
    "tests/plan/test_plan_realworld.py::test_snapshot_is_complete_and_mostly_clean",
    "tests/plan/test_plan_fla1241.py::test_failing_shape_is_partial_for_races_alone",
    "tests/plan/test_plan_async_truth.py::test_each_fence_alone_is_needed",
    "tests/difftest/test_mutation.py::test_boundary_cases_alone_kill_every_mutant",
    "tests/difftest/test_campaigns_cmd.py::test_explained_divergences_are_counted_apart",
    "tests/test_interrupt.py::test_ctrl_c_stops_prove_at_once",
    "tests/backends/test_bv_proof.py::test_every_rule_is_proved",
)


def _sample(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the first case of each parametrized test (cases of one test exercise one code
    path with other data: the full tier runs them all); ``FAST_WHOLE`` files keep all."""
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    seen: set[str] = set()
    for item in items:
        test = item.nodeid.split("[", 1)[0]
        if item.nodeid.startswith(FULL_ONLY):
            dropped.append(item)
            continue
        if "[" in item.nodeid and test in seen and test.split("::")[0] not in FAST_WHOLE:
            dropped.append(item)
            continue
        seen.add(test)
        keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(trylast=True)  # after ``-m`` dropped the slow tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the fast tier, run one case of each parametrized test and lower each Hypothesis
    test's example count. Its own ``@settings`` fix the count (a settings profile cannot
    override them), so the settings Hypothesis reads when the test runs are replaced by a
    child with fewer examples. In the full tier, start the slowest tests first."""
    if not _fast_tier(config):
        _slowest_first(items)
        return
    _sample(config, items)
    from hypothesis import settings

    done: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in done:
            continue
        done.add(id(test))
        fewer = max(FAST_MIN, current.max_examples // FAST_SHARE)
        if fewer < current.max_examples:
            test._hypothesis_internal_use_settings = settings(current, max_examples=fewer)


def _slowest_first(items: list[pytest.Item]) -> None:
    """Order the tests by their recorded seconds (tests/durations.json, written by ``python -m
    tools.durations``), slowest first, the others after them in collection order: pytest-xdist
    hands tests out in this order, so no worker is left alone with a long test at the end. Only
    the order changes; every worker sorts the same collection the same way."""
    path = TESTS / "durations.json"
    try:
        seconds = json.loads(path.read_text())["seconds"]
    except (OSError, ValueError, KeyError):
        return
    rank = {node: -float(s) for node, s in seconds.items()}
    items.sort(key=lambda item: rank.get(item.nodeid, 0.0))  # stable: the rest keep their order


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


# The docs site's browser tests skip without Chromium or mkdocs-material (skip reasons naming
# either): the run says so last, each time, with what to install, so that a run without them
# is never taken for one that rendered the pages.
BROWSER_TESTS = "tests/docgen/test_docs_site.py"
BROWSER_NEEDS = ("chromium", "mkdocs-material")


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if any(n in _skip_reason(r).lower() for n in BROWSER_NEEDS)]  # fmt: skip
    if not skipped:
        return
    reasons = "; ".join(sorted({_skip_reason(r) for r in skipped}))
    terminalreporter.write_line(
        f"{len(skipped)} browser test{'s' * (len(skipped) != 1)} of the docs site skipped "
        f"({reasons}): install Chromium (Debian: apt-get install chromium) and pip install -e "
        f"'.[docs]', then run python -m pytest {BROWSER_TESTS}",
        yellow=True,
    )
