"""Every text case of the plan (``tests/plan/cases/text/TOPIC/NAME.ttgir``) judged and compared
with its ``// EXPECT:`` lines: one test per file, the format and its parser in
``tests/plan/expect.py``. Also the parser's own checks, and that the comparison fails where the
judgment changes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from alias_spec.plan import liveness
from tests.paths import PLAN_CASES
from tests.plan import expect
from tests.plan.expect import CASES, ExpectError, case_files, parse

FILES = case_files()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(CASES).as_posix())
def test_case(path: Path) -> None:
    expect.check(path)


def test_every_file_is_a_case_or_beside_one() -> None:
    cases = {p.with_suffix("") for p in FILES}
    topics = {p.parent for p in FILES}
    assert len(FILES) >= 60 and {CASES / "liveness", CASES / "tma_store"} <= topics
    for path in sorted(CASES.rglob("*")):
        if path.is_dir():
            assert path in topics, f"{path}: a folder with no case"
            continue
        if path.name == "README.md" and path.parent == CASES:
            continue
        stem = path.name.removesuffix(".alloc.ttgir").removesuffix(".llir")
        assert path.suffix in (".ttgir", ".llir") and path.with_name(stem).with_suffix(
            ""
        ) in cases | {path.with_suffix("")}, f"{path}: neither a case nor beside one"


# --- the format -------------------------------------------------------------------------------

_MODULE = "module {\n}\n"


@pytest.mark.parametrize(
    ("lines", "where", "problem"),
    [
        ("// EXPECT: clen", "1", "cannot read 'clen'"),
        ("// EXPECT: plan.overlap at 1", "1", "cannot read"),
        ("// EXPECT: plan.overlaps @ 1", "1", "not a rule of the plan"),
        ("// EXPECT: plan.overlap @ 99", "1", "line 99 is not a line of the file"),
        ("// EXPECT: plan.overlap @ 1 fatal", "1", "neither error nor warning"),
        ("// EXPECT: lowering.outside @ 1", "1", "there is none beside it"),
        ("// EXPECT: clean\n// EXPECT: plan.overlap @ 1", "2", "a second verdict"),
        ("// EXPECT: plan.overlap @ 1\n// EXPECT: partial", "2", "a second verdict"),
        ("// EXPECT: clean\n// EXPECT: clean", "2", "a second verdict"),
        ("// EXPECT: partial:", "1", "cannot read"),
        ("// EXPECT-NOTE: plan.unsize @ 1\n// EXPECT: partial", "1", "not a note kind"),
        ("// EXPECT: clean\n// EXPECT-NOTE: plan.unsized @ 1", "", "a clean verdict has no notes"),
        ("// EXPECT-BUFFER: alloc offset=0 size=4", "", "need a verdict"),
        ("// EXPECT: clean\n// EXPECT-BUFFER: allocs offset=0 size=4", "2", "buffer kind 'allocs'"),
        ("// EXPECT: clean\n// EXPECT-BUFFER: alloc offset=0", "2", "not one of the EXPECT lines"),
        ("// EXPECT: clean\n// EXPECT-SIZE: 4\n// EXPECT-SIZE: 8", "3", "a second EXPECT-SIZE"),
        ("// EXPECT-LIVE: %a 3..1", "1", "ends before it starts"),
        ("// EXPECT-LIVE: %a 1..99", "1", "line 99 is not a line of the file"),
        ("// EXPECT-LIVE: %a 1..2\n// EXPECT-LIVE: %a 1..2", "2", "a second EXPECT-LIVE"),
        ("// EXPECT-LIVE: a 1..2", "1", "not one of the EXPECT lines"),
        ("// EXPECT: clean\n// RUN-OPTIONS: prepass=none", "2", "unknown option 'prepass'"),
        ("// EXPECT: clean\n// RUN-OPTIONS: prepasses=some", "2", "not one of auto"),
        ("// EXPECTED: clean", "1", "not one of the EXPECT lines"),
        ("//EXPECT: clean", "1", "not one of the EXPECT lines"),
        ("  // EXPECT: clean", "1", "not one of the EXPECT lines"),
    ],
)
def test_malformed_lines_are_errors_naming_file_and_line(
    lines: str, where: str, problem: str
) -> None:
    """Each an error naming the file and the line (WHERE empty: the file as a whole)."""
    with pytest.raises(ExpectError, match=problem) as err:
        parse(lines + "\n" + _MODULE, "t/k.ttgir")
    assert str(err.value).startswith(f"t/k.ttgir:{where}: " if where else "t/k.ttgir: ")


def test_a_case_file_with_no_expect_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "quiet.ttgir"
    path.write_text("// a module that asserts nothing\n" + _MODULE)
    with pytest.raises(ExpectError, match="quiet.ttgir: no EXPECT line"):
        expect.read(path)
    with pytest.raises(ExpectError, match="no EXPECT line"):
        expect.check(path)


def test_the_lines_read() -> None:
    text = (
        "// EXPECT: plan.overlap @ 9\n// EXPECT: plan.overlap @ 9\n// EXPECT: plan.capacity @ 1 "
        "warning\n// EXPECT-NOTE: lowering.unbounded @ 2\n// EXPECT-BUFFER: offset=0 size=?\n"
        "// EXPECT-BUFFER: state offset=? size=4\n// EXPECT-SIZE: 16\n// EXPECT-LIVE: %a_1 8..9\n"
        "// RUN-OPTIONS: prepasses=none\n" + _MODULE
    )
    want = parse(text, "k.ttgir", llir_lines=3)
    assert want.verdict == "findings"
    assert want.findings == {("plan.overlap", 9, "error"): 2, ("plan.capacity", 1, "warning"): 1}
    assert want.notes == {("lowering.unbounded", 2): 1}
    assert want.buffers == {(None, 0, None): 1, ("state", None, 4): 1}
    assert (want.size, want.live, want.options) == (16, {"%a_1": (8, 9)}, {"prepasses": "none"})
    partial = parse("// EXPECT: partial: size unknown (not judged)\n" + _MODULE)
    assert (partial.verdict, partial.phrase) == ("partial", "size unknown (not judged)")


def test_triton_lit_files_read_as_their_own_lines_say() -> None:
    """The format is a superset of triton_lit's: every file there parses, to the verdict,
    buffers and total its own patterns read (``test_plan_triton_lit.py``)."""
    import re

    files = sorted((PLAN_CASES / "triton_lit").glob("*/*.ttgir"))
    assert len(files) >= 60
    for path in files:
        text = path.read_text()
        want = parse(text, str(path))
        verdict = re.search(r"^// EXPECT: (clean|partial|no-false-alarm)$", text, re.M)
        assert verdict and want.verdict == verdict.group(1)
        lit = re.findall(r"^// EXPECT-BUFFER: (?:\w+ )?offset=(\d+) size=(\d+)$", text, re.M)
        assert sorted((o, s) for _, o, s in (want.buffers or Counter()).elements()) == sorted(
            (int(o), int(s)) for o, s in lit
        )
        total = re.search(r"^// EXPECT-SIZE: (\d+)$", text, re.M)
        assert want.size == (int(total.group(1)) if total else None)


def test_allocated_module_round_trip() -> None:
    module = "module {\n}\n"
    debug = "-- buffer 0; value: %a = ttg.local_alloc\n\n-- 0 32 0 interval 1 5\nAllocated: 32"
    text = expect.allocated_text(module, debug, "3.6.0")
    assert text.startswith("// ALLOCATOR: 3.6.0\n// ALLOCATOR-DEBUG: -- buffer 0;")
    assert expect.read_allocated(text) == (module, debug, "3.6.0")
    with pytest.raises(ExpectError, match="not '// ALLOCATOR: VERSION'"):
        expect.read_allocated(module)


# --- the comparison fails where the judgment changes --------------------------------------------


def _differences(path: Path, text: str, tmp_path: Path) -> list[str]:
    """The runner's differences for ``text`` as the case ``path`` (its siblings copied)."""
    copy = tmp_path / path.name
    copy.write_text(text)
    for sibling in expect.siblings(path):
        if sibling is not None:
            (tmp_path / sibling.name).write_text(sibling.read_text())
    want = expect.read(copy)
    return expect.differences(want, expect.judge(copy, want))


def test_a_flipped_expect_line_fails_with_expected_and_got(tmp_path: Path) -> None:
    path = CASES / "tma_store" / "never_waited.ttgir"
    text = path.read_text()
    assert _differences(path, text, tmp_path) == []
    (line,) = [ln for ln in text.split("\n") if ln.startswith("// EXPECT: plan.overlap @ ")]
    flipped = text.replace(line, "// EXPECT: clean")
    got = _differences(path, flipped, tmp_path)
    assert got == ["  expected:", "    2: // EXPECT: clean", "  got:", f"    {line}"]
    moved = text.replace(line, line[:-1] + str(int(line[-1]) + 1))  # the next line
    assert _differences(path, moved, tmp_path)[-1] == f"    {line}"
    with pytest.raises(AssertionError, match=r"(?s)not as its EXPECT lines say.*expected:"):
        expect.check(tmp_path / path.name)


def test_each_part_is_compared(tmp_path: Path) -> None:
    sizes = CASES / "sizes" / "size_above_the_type.ttgir"
    text = sizes.read_text()
    assert _differences(sizes, text, tmp_path) == []
    for old, new in [("size=20480", "size=16384"), ("scratch offset", "alloc offset"),
                     ("// EXPECT: plan.overlap", "// EXPECT: plan.overlap @ 1\n// EXPECT: plan.overlap")]:  # fmt: skip
        changed = text.replace(old, new, 1)
        assert changed != text and _differences(sizes, changed, tmp_path), (old, new)
    live = CASES / "ranges" / "branches_in_sequence.ttgir"
    text = live.read_text()
    assert _differences(live, text, tmp_path) == []
    (line,) = [ln for ln in text.split("\n") if ln.startswith("// EXPECT-LIVE: %a ")]
    got = _differences(live, text.replace(line, "// EXPECT-LIVE: %a 9..9"), tmp_path)
    assert got[:3] == ["  expected:", "    4: // EXPECT-LIVE: %a 9..9", "  got:"]
    assert got[3:] == [f"    {line}"]
    callees = CASES / "sizes" / "callees_alike.ttgir"
    phrase = "// EXPECT: partial: the allocator's output does not say which"
    assert phrase in callees.read_text()
    assert expect.parse(callees.read_text()).phrase == phrase.split("partial: ")[1]


def test_a_liveness_bug_planted_fails_the_runner(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:  # fmt: skip
    """A TMA store taken as done where it is issued (its wait not modelled): a case whose
    store is pending at a reuse fails, saying what it expected and what it got."""
    path = CASES / "tma_store" / "reused_before_the_wait.ttgir"
    assert _differences(path, path.read_text(), tmp_path) == []
    monkeypatch.setattr(liveness, "_store_done", lambda fn, store: store.pos)
    got = _differences(path, path.read_text(), tmp_path)
    assert got == ["  expected:", "    2: // EXPECT: plan.overlap @ 9", "  got:",
                   "    // EXPECT: clean"]  # fmt: skip
