"""Shared test fixtures and skips."""

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


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
