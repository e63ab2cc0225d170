"""``alias-spec plan`` never proves clean a module that corrupts memory, however its TTGIR is
spelled.

Each case under ``tests/plan/cases/soundness/ttgir/`` is a small FlagTree-style module (offsets in
``allocation.offset`` attributes, ``ttg.shared`` on the module) whose plan places two live
buffers on the same bytes. Its first lines state what ``alias-spec plan`` must say of it, in
the format of ``tests/plan/expect.py`` (read and compared there): the finding and the two
buffers it names (``// EXPECT: RULE @ LINE``, ``// EXPECT-PARTIES: ...``), or ``partial`` and
its note (the reader cannot follow something and says so), or ``clean``; and where the plan
comes from (``// EXPECT-PLAN-FROM:``). A ``*_plain`` case is the variation written plainly;
every other case spells one thing the way MLIR allows but a text reader may misread: a
hexadecimal offset, a quoted attribute key, a comment that contains ``allocation.offset``, a
type glued to ``:``, a callee whose name looks like a location, a shared pointer sent through
``tt.ptr_to_int`` / ``tt.int_to_ptr``. One case (``unplanned_comment``) has no attributes,
only a comment that names them: its plan must come from Triton (``EXPECT-PLAN-FROM:
triton``), which places it apart. The command's exit status is checked against the verdict.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from alias_spec.api import run as cli_main
from tests.paths import PLAN_CASES
from tests.plan import expect

CASES = PLAN_CASES / "soundness" / "ttgir"
PATHS = sorted(CASES.glob("*.ttgir"))
EXIT = {"clean": 0, "findings": 1, "partial": 3}

# Cases the reader gets right but the plan does not judge yet: what in alias_spec/plan/ has
# to change (the reader already gives what is needed: Op.callee, Module.planned).
PLAN_GAPS: dict[str, str] = {}  # cases plan/ cannot judge yet (strict xfails), with why


def exit_status(path: Path) -> int:
    """What ``alias-spec plan PATH`` exits with (its report is ``expect.check``'s to compare)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return cli_main(["plan", str(path), "--format", "json"])


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
    want = expect.read(path)
    assert want.verdict in EXIT and want.plan_from is not None, path.name
    expect.check(path)
    assert exit_status(path) == EXIT[want.verdict]


@pytest.mark.parametrize("path", [p for p in PATHS if p.stem.endswith("_plain")], ids=str)
def test_plain_cases_are_never_clean(path: Path) -> None:
    # The base of each family must itself be a bug the plan finds, else its variations prove
    # nothing: stated so, and so judged (whatever PLAN_GAPS says of it).
    want = expect.read(path)
    report = expect.judge(path, want).report
    assert want.verdict == "findings" and report is not None and report.status == "findings"
