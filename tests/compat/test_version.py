"""One version: pyproject.toml's, the package's ``__version__`` and the changelog's newest
release agree, and the changelog keeps an ``[Unreleased]`` section above it."""

from __future__ import annotations

import re

import alias_spec
from tests.paths import ROOT


def _pyproject_version() -> str:
    m = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert m, "no version in pyproject.toml"
    return m.group(1)


def test_the_package_version_is_pyprojects() -> None:
    assert alias_spec.__version__ == _pyproject_version() == "0.2.0"


def test_the_changelog_names_the_version_under_unreleased() -> None:
    heads = re.findall(r"^## \[([^\]]+)\](.*)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert heads[0] == ("Unreleased", "")
    assert heads[1][0] == _pyproject_version()
    assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", heads[1][1])
