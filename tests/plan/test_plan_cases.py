"""Every text case of the plan (``tests/plan/cases/text/TOPIC/NAME.ttgir``) and every FlagTree bug
rebuilt (``tests/plan/cases/flagtree/NAME.ttgir``; fixed, in ``text/flagtree/``) judged and
compared with its ``// EXPECT:`` lines: one test per file, the format and its parser in
``tests/plan/expect.py``. Also the parser's own checks, and that the comparison fails where the
judgment changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from alias_spec.plan import liveness
from tests.paths import PLAN_CASES
from tests.plan import expect
from tests.plan.expect import CASES, ExpectError, case_files, parse

FLAGTREE = PLAN_CASES / "flagtree"
FILES = case_files()
BUGS = case_files(FLAGTREE)


def _id(path: Path) -> str:
    # The text cases by their topic; the bugs by their folder beside text/ ("../flagtree/").
    return path.relative_to(CASES).as_posix() if path.is_relative_to(CASES) else (
        "../" + path.relative_to(PLAN_CASES).as_posix())  # fmt: skip


def _case(path: Path) -> object:
    # A case of seconds says so (``RUN-OPTIONS: tier=full``): the fast tier leaves it out.
    tier = expect.read(path).options.get("tier", "fast")
    return pytest.param(path, id=_id(path), marks=[pytest.mark.slow] * (tier == "full"))


@pytest.mark.parametrize("path", [_case(p) for p in FILES + BUGS])
def test_case(path: Path) -> None:
    expect.check(path)


def test_every_flagtree_bug_is_flagged_and_fixed() -> None:
    """Each bug rebuilt states its findings, the buffers each overlap names and its kernel
    source; each one ``test_plan_corpus.py`` used to fix by text has its fixed case, with no
    finding."""
    assert [p.stem for p in BUGS] == ["callee_frame_zero", "histogram_scratch",
                                      "local_pointers_scratch", "size_below_type"]  # fmt: skip
    for path in BUGS:
        want = expect.read(path)
        overlaps = [(r, ln) for r, ln, _ in want.findings.elements() if r == "plan.overlap"]
        assert len(overlaps) == 1 and sum(want.parties[overlaps[0]].values()) == 2, path
        assert {(r, ln) for r, ln, _ in want.findings} <= set(want.sources), path
        assert all(s.startswith("kernel.py:") for s in want.sources.values()), path
    for stem in ("callee_frame_zero", "histogram_scratch", "local_pointers_scratch"):
        fixed = expect.read(CASES / "flagtree" / f"{stem}_fixed.ttgir")
        assert fixed.verdict in ("clean", "partial") and not fixed.findings, stem


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
        (
            "// EXPECT: plan.overlap @ 1\n// EXPECT-PARTIES: plan.overlap @ 2: %a",
            "2",
            "plan.overlap @ 2 is not one of the findings",
        ),
        (
            "// EXPECT-SOURCE: plan.overlap @ 3: k.py:1:1\n// EXPECT: plan.overlap @ 1",
            "1",
            "plan.overlap @ 3 is not one of the findings",
        ),
        (
            "// EXPECT: plan.overlap @ 1\n// EXPECT-SOURCE: plan.overlap @ 1 k.py:1:1",
            "2",
            "not one of the EXPECT lines",
        ),
        (
            "// EXPECT: plan.overlap @ 1\n// EXPECT-PARTIES: plan.overlap @ 1: %a\n"
            "// EXPECT-PARTIES: plan.overlap @ 1: %b",
            "3",
            "a second EXPECT-PARTIES",
        ),
        ("// EXPECT: clean\n// EXPECT-PLAN-FROM: cache", "2", "not one of attributes, triton"),
        ("// EXPECT-PLAN-FROM: triton", "", "need a verdict"),
        ("// EXPECT: clean\n// ALLOCATOR-BUFFERS 3.9.0: 0:512 512", "2", "not buffers"),
        ("// EXPECT: clean\n// ALLOCATOR-OFFSETS 3.9.0: 0 x", "2", "not offsets"),
        ("// EXPECT: clean\n// ALLOCATOR-FAILS 3.9.0:", "2", "says no reason"),
        (
            "// EXPECT: clean\n// ALLOCATOR-OFFSETS 3.9.0: 0\n// ALLOCATOR-OFFSETS 3.9.0: 8",
            "3",
            "a second ALLOCATOR-OFFSETS for 3.9.0",
        ),
        ("// EXPECT: clean\n// ALLOCATOR-SIZES 3.9.0: 0", "2", "not one of the EXPECT lines"),
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
        "// RUN-OPTIONS: prepasses=none\n// EXPECT-PARTIES: plan.overlap @ 9: %a (ttg.local_alloc)"
        "; scratch of tt.reduce %s\n// EXPECT-SOURCE: plan.capacity @ 1: kernel.py:3:4\n"
        "// EXPECT-PLAN-FROM: triton\n// ALLOCATOR-BUFFERS 3.9.0: 0:512 0:512 16:4\n"
        "// ALLOCATOR-OFFSETS 3.9.0: 16 0\n// ALLOCATOR-FAILS 3.6.0: cannot read it\n" + _MODULE
    )
    want = parse(text, "k.ttgir", llir_lines=3)
    assert want.verdict == "findings"
    assert want.findings == {("plan.overlap", 9, "error"): 2, ("plan.capacity", 1, "warning"): 1}
    assert want.notes == {("lowering.unbounded", 2): 1}
    assert want.buffers == {(None, 0, None): 1, ("state", None, 4): 1}
    assert (want.size, want.live, want.options) == (16, {"%a_1": (8, 9)}, {"prepasses": "none"})
    assert want.parties == {("plan.overlap", 9): {"%a (ttg.local_alloc)": 1,
                                                  "scratch of tt.reduce %s": 1}}  # fmt: skip
    assert (want.sources, want.plan_from) == ({("plan.capacity", 1): "kernel.py:3:4"}, "triton")
    assert want.allocator_buffers == {"3.9.0": {(0, 512): 2, (16, 4): 1}}
    assert want.allocator_offsets == {"3.9.0": [0, 16]}
    assert want.allocator_fails == {"3.6.0": "cannot read it"}
    partial = parse("// EXPECT: partial: size unknown (not judged)\n" + _MODULE)
    assert (partial.verdict, partial.phrase) == ("partial", "size unknown (not judged)")


def test_a_case_with_a_release_s_lines_is_not_judged_by_one_run(tmp_path: Path) -> None:
    path = tmp_path / "lit.ttgir"
    path.write_text("// EXPECT: clean\n// ALLOCATOR-OFFSETS 3.9.0: 0\n" + _MODULE)
    assert expect.read(path).allocator_offsets == {"3.9.0": [0]}
    with pytest.raises(ExpectError, match="compared release by release"):
        expect.check(path)


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
    bug = FLAGTREE / "local_pointers_scratch.ttgir"
    text = bug.read_text()
    assert _differences(bug, text, tmp_path) == []
    first = text.split("\n")[0]  # a comment: swapped for a line, the others keep their numbers
    parties = "// EXPECT-PARTIES: plan.overlap @ 27: %buf (ttg.local_alloc); scratch of tt.reduce"
    for old, new, said in [
        (parties + " %sum\n", parties + " %s\n", parties + " %sum"),
        ("kernel.py:15:12\n", "kernel.py:15:13\n", "// EXPECT-SOURCE: plan.overlap @ 27: kernel.py:15:12"),
        (first, "// EXPECT-PLAN-FROM: triton", "// EXPECT-PLAN-FROM: attributes"),
    ]:  # fmt: skip
        changed = text.replace(old, new, 1)
        assert changed != text and _differences(bug, changed, tmp_path)[-1] == f"    {said}", old
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
