"""Lint cases users wrote that lint once got wrong (issue 18), each judged through the public
entry point ``alias_spec.api.run(["lint", ...])``: two ops on one line, a ``tle.offset_bytes``
attribute before the real ``offset_bytes``, a view not judged (exit 3, as ``check``), a quoted
attribute name, a region written on one line.

Each file states its result inside, in the ``// EXPECT:`` lines of tests/lint/cases
(``tests/lint/test_lint_expect.py`` describes them: the findings and notices per profile, by rule
and line), plus, per profile, the exit status and the number of views judged:

    // EXPECT-STATUS: PROFILES: exit=N views=K
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from alias_spec.api import run
from alias_spec.model.catalogue import PROFILES
from tests.lint.test_lint_expect import Item, parse_expect
from tests.paths import COMPAT

HERE = COMPAT / "lint"
FILES = sorted([*HERE.glob("*.mlir"), *HERE.glob("*.ttgir")])
_STATUS = re.compile(r"^//\s*EXPECT-STATUS:\s*(?P<profiles>[^:]+):\s*exit=(\d)\s+views=(\d+)\s*$")
CASES = ("two_ops_one_line", "tle_offset_bytes_first", "not_judged", "quoted_attribute_name",
         "region_on_one_line")  # fmt: skip


def parse_status(text: str) -> dict[str, tuple[int, int]]:
    """Profile -> (exit status, views) from the ``// EXPECT-STATUS:`` lines."""
    out: dict[str, tuple[int, int]] = {}
    for line in text.splitlines():
        if not line.startswith("// EXPECT-STATUS:"):
            continue
        m = _STATUS.match(line)
        assert m, f"cannot read {line!r}"
        names = [p.strip() for p in m.group("profiles").split(",")]
        for p in list(PROFILES) if names == ["*"] else names:
            assert p in PROFILES and p not in out, f"{line!r}: profile {p!r}"
            out[p] = (int(m.group(2)), int(m.group(3)))
    return out


def _findings_part(text: str) -> str:
    """The text with the status lines blanked (same line numbers), for ``parse_expect``."""
    return "\n".join("" if s.startswith("// EXPECT-STATUS:") else s for s in text.split("\n"))


def test_every_issue_case_has_its_file() -> None:
    assert sorted(p.stem for p in FILES) == sorted(CASES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_lint_judges_the_case_as_the_file_says(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = path.read_text()
    expected, status = parse_expect(_findings_part(text)), parse_status(text)
    assert set(expected) == set(status) == set(PROFILES), path.name
    for profile in PROFILES:
        code = run(["lint", str(path), "--profile", profile, "--format", "json"])
        out = capsys.readouterr()
        assert out.err == "", (path.name, profile, out.err)
        data = json.loads(out.out)
        got: Counter[Item] = Counter((f["rule"], f["line"], f["level"]) for f in data["findings"])
        got.update((n["kind"], n["line"], "note") for n in data["notices"])
        assert got == expected[profile], (path.name, profile, sorted(got.elements()))
        assert (code, data["views"]) == status[profile], (path.name, profile)


def test_text_output_has_the_same_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    """The text report of a view not judged: a note, no finding, exit 3 (never 0)."""
    path = HERE / "not_judged.mlir"
    assert run(["lint", str(path)]) == 3
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "0 findings in 1 view (profile safe), 1 note"
    assert ": note: " in out and "[lint.unmodelled]" in out
