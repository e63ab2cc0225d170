"""``alias-spec plan`` never proves clean a module that corrupts memory, however its TTGIR is
spelled.

Each case under ``tests/plan/cases/soundness/ttgir/`` is a small FlagTree-style module (offsets in
``allocation.offset`` attributes, ``ttg.shared`` on the module) whose plan places two live
buffers on the same bytes. Its first line states the verdict: ``// EXPECT: findings RULE...``
(those rules among the findings), ``// EXPECT: partial`` (the reader cannot follow something
and says so in a note) or ``// EXPECT: clean``. A ``*_plain`` case is the variation written plainly; every other case
spells one thing the way MLIR allows but a text reader may misread: a hexadecimal offset, a
quoted attribute key, a comment that contains ``allocation.offset``, a type glued to ``:``, a
callee whose name looks like a location, a shared pointer sent through ``tt.ptr_to_int`` /
``tt.int_to_ptr``. One case (``unplanned_comment``) has no attributes, only a comment that
names them: its plan must come from Triton (``// PLAN: triton``), which places it apart.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from alias_spec.api import run as cli_main
from tests.paths import PLAN_CASES

CASES = PLAN_CASES / "soundness" / "ttgir"
PATHS = sorted(CASES.glob("*.ttgir"))
EXIT = {"clean": 0, "findings": 1, "partial": 3}

# Cases the reader gets right but the plan does not judge yet: what in alias_spec/plan/ has
# to change (the reader already gives what is needed: Op.callee, Module.planned).
PLAN_GAPS: dict[str, str] = {}  # cases plan/ cannot judge yet (strict xfails), with why


def expected(path: Path) -> tuple[str, list[str], str | None]:
    """The verdict, the rules that must be among the findings, and where the plan must come
    from (``// PLAN: triton``), read from the case's own header."""
    lines = path.read_text().splitlines()
    words = lines[0].removeprefix("// EXPECT:").split()
    assert lines[0].startswith("// EXPECT:") and words and words[0] in EXIT, path.name
    plan = next((ln.removeprefix("// PLAN:").strip() for ln in lines[1:6]
                 if ln.startswith("// PLAN:")), None)  # fmt: skip
    return words[0], words[1:], plan


def run_plan(path: Path) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["plan", str(path), "--format", "json"])
    return code, json.loads(out.getvalue())


def test_every_variation_has_its_plain_case() -> None:
    names = {p.stem for p in PATHS}
    assert len(PATHS) >= 15
    for name in names:
        family = name.split("_", 1)[0]
        assert f"{family}_plain" in names or name == "unplanned_comment", name
    assert set(PLAN_GAPS) <= names


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=p.stem, marks=[pytest.mark.xfail(strict=True, reason=PLAN_GAPS[p.stem])]
                  if p.stem in PLAN_GAPS else []) for p in PATHS],
)  # fmt: skip
def test_plan_verdict_is_the_expected_one(path: Path) -> None:
    status, rules, plan_from = expected(path)
    code, report = run_plan(path)
    assert report["status"] == status, (path.name, report["findings"], report["notes"])
    assert code == EXIT[status]
    got = {f["rule"] for f in report["findings"]}
    assert set(rules) <= got, (path.name, got)
    if status == "partial":
        assert report["notes"], path.name
    if plan_from is not None:
        assert report["plan_from"].startswith(plan_from), report["plan_from"]
    else:
        assert report["plan_from"] == "the module's allocation.offset attributes"


@pytest.mark.parametrize("path", [p for p in PATHS if p.stem.endswith("_plain")], ids=str)
def test_plain_cases_are_never_clean(path: Path) -> None:
    # The base of each family must itself be a bug the plan finds, else its variations prove
    # nothing.
    assert run_plan(path)[1]["status"] == "findings"
