"""Shared test fixtures and skips, and the fast tier's lighter property tests.

Two tiers: ``python -m pytest -q`` (CI) runs everything; ``python -m pytest -q -m "not slow"``
(any mark expression with ``not slow``) leaves out the tests marked slow and runs each
Hypothesis test on a fifth of its examples.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Triton's compile cache keys a kernel by its jit sources, not by the frontend's builtins
# (tle.gpu.alloc and the lowering), so a cached compile could hide a change to them: every
# test session compiles into a cache of its own.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tle-alias-triton-cache-")
CASES = sorted((ROOT / "tests" / "cases").glob("*.json"))


# The fast tier runs each property test on this share of its examples (at least FAST_MIN).
FAST_SHARE = 5
FAST_MIN = 20


def _fast_tier(config: pytest.Config) -> bool:
    return "not slow" in " ".join(str(config.getoption("markexpr") or "").split())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the fast tier, lower each Hypothesis test's example count. Its own ``@settings`` fix
    the count (a settings profile cannot override them), so the settings Hypothesis reads when
    the test runs are replaced by a child with fewer examples."""
    if not _fast_tier(config):
        return
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


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
