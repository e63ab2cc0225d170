"""The checkout's paths, for the tests and the tools (``from tests.paths import ROOT``): one place
instead of arithmetic on each file's own location."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "alias_spec"
BENCHMARKS = ROOT / "benchmarks"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
TOOLS = ROOT / "tools"

TESTS = ROOT / "tests"
CASES = TESTS / "cases"  # hand-written requests, each with its expected verdicts
BOUNDARY = TESTS / "corpus" / "boundary.jsonl"  # the z3 boundary corpus
COMPAT = TESTS / "compat"
GOLDEN = TESTS / "golden"
GPU = TESTS / "gpu"
GPU_CORPUS = GPU / "corpus.json"
LINT_CASES = TESTS / "lint" / "cases"
PHYSICAL_GPU = TESTS / "physical_gpu"
PLAN_CASES = TESTS / "plan" / "cases"
REGRESSIONS = TESTS / "regressions"
REUSE_SIZES = TESTS / "reuse_sizes"


def child_env(*paths: Path) -> dict[str, str]:
    """This process's environment with ``paths`` first on a child interpreter's PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), *filter(None, [env.get("PYTHONPATH")])])
    return env
