"""Shared test fixtures and skips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "tests" / "cases").glob("*.json"))


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
