"""Every IR case in tests/lint/cases/ (``*.ttgir``, ``*.mlir``) carries its expected lint result
per profile in ``// EXPECT:`` comment lines inside the file, which this test compares with
``alias-spec lint``:

    // EXPECT: PROFILES: clean
    // EXPECT: PROFILES: ID @ LINE [LEVEL]

PROFILES is a comma-separated list of profile names, or ``*`` for every profile. ID is a rule id
(a finding) or a notice kind (``lint.untraced``, ``lint.unmodelled``, ``lint.unread``). LINE is the
file's 1-based line of the op. LEVEL is ``error`` (the default) or ``warning`` for a finding;
a notice has none. For each profile a file names, the findings and notices lint reports must be
exactly the lines naming that profile (counted: two lines for two findings), so a finding that
appears, disappears, moves or changes level fails; ``clean`` means none at all. Every file must
state its result for every profile. The dumps keep these lines at their end
(``tools/lint/make_dumps.py`` carries them over when it rewrites a dump).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from alias_spec.lint.lint import NOTICES, lint_text
from alias_spec.model.catalogue import PROFILES, RULES
from tests.paths import LINT_CASES

CASES = LINT_CASES
FILES = sorted([*CASES.glob("*.ttgir"), *CASES.glob("*.mlir")])
LEVELS = ("error", "warning")
_LINE = re.compile(r"^//\s*EXPECT:\s*(?P<profiles>[^:]+):\s*(?P<what>.*?)\s*$")
_ITEM = re.compile(r"^(?P<id>[\w.-]+)\s*@\s*(?P<line>\d+)(?:\s+(?P<level>\w+))?$")

Item = tuple[str, int, str]  # (rule or notice kind, line, level)


class ExpectError(ValueError):
    pass


def parse_expect(text: str) -> dict[str, Counter[Item]]:
    """Profile -> expected findings and notices, from the text's ``// EXPECT:`` lines."""
    known = {r.id for r in RULES} | set(NOTICES)
    out: dict[str, Counter[Item]] = {}
    clean: set[str] = set()
    lines = text.split("\n")
    for no, raw in enumerate(lines, 1):
        if "EXPECT" not in raw or not raw.lstrip().startswith("//"):
            continue
        m = _LINE.match(raw.strip())
        if not m:
            raise ExpectError(f"line {no}: not 'EXPECT: PROFILES: clean|ID @ LINE [LEVEL]'")
        names = [p.strip() for p in m.group("profiles").split(",")]
        profiles = list(PROFILES) if names == ["*"] else names
        for p in profiles:
            if p not in PROFILES:
                raise ExpectError(f"line {no}: unknown profile {p!r}")
            out.setdefault(p, Counter())
        what = m.group("what")
        if what == "clean":
            clean.update(profiles)
            continue
        item = _ITEM.match(what)
        if not item:
            raise ExpectError(f"line {no}: cannot read {what!r}")
        kind, line = item.group("id"), int(item.group("line"))
        level = item.group("level") or ("note" if kind in NOTICES else "error")
        if kind not in known:
            raise ExpectError(f"line {no}: {kind!r} is neither a rule nor a notice kind")
        if (kind in NOTICES) != (level == "note") or (kind not in NOTICES and level not in LEVELS):
            raise ExpectError(f"line {no}: level {level!r} does not fit {kind}")
        if not 1 <= line <= len(lines):
            raise ExpectError(f"line {no}: line {line} is not a line of the file")
        for p in profiles:
            out[p][(kind, line, level)] += 1
    for p in clean:
        if out[p]:
            raise ExpectError(f"profile {p} is both clean and expects {sorted(out[p])}")
    return out


def reported(text: str, path: str, profile: str) -> Counter[Item]:
    report = lint_text(text, path, profile)
    got: Counter[Item] = Counter((f.rule, f.line, f.level) for f in report.findings)
    got.update((n.kind, n.line, "note") for n in report.notices)
    return got


def test_every_case_file_is_found() -> None:
    assert len(FILES) >= 20, [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_expectations_in_the_file(path: Path) -> None:
    text = path.read_text()
    expected = parse_expect(text)
    missing = sorted(set(PROFILES) - set(expected))
    assert not missing, f"{path.name} states no result for {missing}"
    for profile, want in sorted(expected.items()):
        got = reported(text, str(path), profile)
        assert got == want, (
            f"{path.name} [{profile}]: unexpected {sorted((got - want).elements())}, "
            f"missing {sorted((want - got).elements())}"
        )


# --- the comparison can fail ----------------------------------------------------------------

_CASE = "// EXPECT: *: clean\n"


@pytest.mark.parametrize(
    ("lines", "problem"),
    [
        ("// EXPECT: safe clean", "not 'EXPECT"),
        ("// EXPECT: sfae: clean", "unknown profile"),
        ("// EXPECT: safe: alias.range.fit @ 1", "neither a rule"),
        ("// EXPECT: safe: alias.range.fits @ 99", "not a line"),
        ("// EXPECT: safe: lint.untraced @ 1 error", "does not fit"),
        ("// EXPECT: safe: alias.range.fits @ 1 fatal", "does not fit"),
        ("// EXPECT: safe: clean\n// EXPECT: safe: alias.range.fits @ 1", "both clean"),
        ("// EXPECT: safe: alias.range.fits at 1", "cannot read"),
    ],
)
def test_malformed_expectations_are_rejected(lines: str, problem: str) -> None:
    with pytest.raises(ExpectError, match=problem):
        parse_expect(lines + "\n")


def _only_expect(text: str) -> str:
    return "\n".join(ln for ln in text.split("\n") if not ln.startswith("// EXPECT:"))


def test_a_finding_that_appears_disappears_or_moves_fails() -> None:
    path = CASES / "index_overflow.ttgir"
    text = path.read_text()
    want = parse_expect(text)["safe"]
    assert reported(text, str(path), "safe") == want
    # Disappears: buffer 1 of 2 is in bounds.
    fixed = text.replace("[%c2_i32] :", "[%c1_i32] :")
    assert fixed != text and reported(fixed, str(path), "safe") != want
    # Moves: one more line before the op.
    moved = "// a comment\n" + _only_expect(text)
    got = reported(moved, str(path), "safe")
    assert sum(got.values()) == sum(want.values()) and got != want
    # Appears: a clean dump whose alias rows are made twice as large (the index now lands on
    # bytes [8192, 16384) of an 8192-byte allocation).
    clean = CASES / "tle_alias_rows.ttgir"
    ctext = clean.read_text()
    assert parse_expect(ctext)["safe"] == Counter()
    broken = ctext.replace("32x64xf16", "64x64xf16")
    assert broken != ctext and reported(broken, str(clean), "safe") != Counter()


def test_levels_are_compared() -> None:
    # A tle.memdesc_alias past its source view but inside the allocation is a warning, not an
    # error: an expectation written as error fails on it.
    text = (
        "#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>\n"
        "#smem = #ttg.shared_memory\n"
        "module {\n"
        "  tt.func @f() {\n"
        "    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #s, #smem, mutable>\n"
        "    %top = ttg.memdesc_subslice %a[0, 0] : !ttg.memdesc<64x64xf16, #s, #smem, mutable>"
        " -> !ttg.memdesc<32x64xf16, #s, #smem, mutable, 64x64>\n"
        "    %b = tle.memdesc_alias %top {offset_bytes = 4096 : i64} : !ttg.memdesc<32x64xf16, #s,"
        " #smem, mutable, 64x64> -> !ttg.memdesc<32x64xf16, #s, #smem, mutable>\n"
        "    tt.return\n"
        "  }\n"
        "}\n"
    )
    got = reported(text, "inline.mlir", "flagtree")
    assert got == Counter({("alias.range.fits", 7, "warning"): 1})
    assert got != parse_expect(text + "// EXPECT: flagtree: alias.range.fits @ 7\n")["flagtree"]
