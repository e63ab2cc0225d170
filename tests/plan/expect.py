"""The plan's case files: the format of their ``// EXPECT:`` lines, its one parser, and the
judgment ``tests/plan/test_plan_cases.py`` compares them with. Its readers: the text cases
(``tests/plan/cases/text/``) and FlagTree's bugs rebuilt (``tests/plan/cases/flagtree/``), both
judged by ``test_plan_cases.py``; the soundness variations (``cases/soundness/ttgir/``,
``test_plan_soundness.py``); Triton's lit functions (``cases/triton_lit/``,
``test_plan_triton_lit.py``, which judges each file once per release).

A case is one TTGIR file (``TOPIC/NAME.ttgir`` in ``text/``): a complete module, a ``//``
comment saying what it shows (one line in ``text/``; for a kernel from elsewhere, a second
saying where it comes from), and its expectations at the top as comment lines (the TTGIR reader skips them; every line
number below is one of the file as it stands, these lines included):

    // EXPECT: clean                  the verdict: proved clean (no finding, no note)
    // EXPECT: partial                no finding, some note (something not judged)
    // EXPECT: partial: PHRASE        ... and the first note's message contains PHRASE
    // EXPECT: no-false-alarm         no finding (clean or partial)
    // EXPECT: RULE @ LINE [LEVEL]    a finding, one line per finding: the findings are exactly
                                      these lines (counted); LEVEL is error (the default) or
                                      warning
    // EXPECT-PARTIES: RULE @ LINE: NAME; NAME
                                      the buffers each finding RULE @ LINE (one of the EXPECT
                                      findings) names, as the report writes them (``%buf
                                      (ttg.local_alloc)``, ``scratch of tt.reduce %sum``):
                                      exactly these, a multiset
    // EXPECT-SOURCE: RULE @ LINE: LOC
                                      the kernel source each finding RULE @ LINE gives
                                      (``kernel.py:15:12``)
    // EXPECT-NOTE: KIND @ LINE       a note; when any is given, the notes are exactly these
    // EXPECT-BUFFER: [KIND] offset=N size=M
                                      a buffer of the plan (KIND: alloc, scratch, frame,
                                      state; N or M ``?`` where unknown); when any is given,
                                      the buffers are exactly these (a multiset; where a line
                                      names no KIND, kinds are not compared)
    // EXPECT-SIZE: N                 the plan's total (the module's ttg.shared)
    // EXPECT-PLAN-FROM: WHERE        where the plan came from: ``attributes`` (the module's
                                      own allocation.offset attributes) or ``triton`` (a
                                      release's allocator: the one installed, or the one that
                                      wrote NAME.alloc.ttgir)
    // EXPECT-LIVE: %NAME FROM..TO    the live range our liveness gives the ttg.local_alloc
                                      %NAME (``liveness.live_ranges`` on the module as
                                      written): from the op on line FROM to the op on line TO
    // RUN-OPTIONS: prepasses=none    how the case is judged: ``prepasses`` (auto, release,
                                      as_written, none; default auto) is what runs before
                                      Triton's allocator when the allocator is run;
                                      ``tier`` (fast, full; default fast) is the test tier
                                      that judges it (a case of seconds: full)

The lines below are the records of ``tests/plan/cases/triton_lit`` (README.md there; written
by ``tools/plan/triton_lit/make_lit.py``): what one release VERSION's allocator printed for the
file. ``parse`` reads them; ``test_plan_triton_lit.py`` compares them, release by release
(``check`` refuses a case that has them, as it runs no release but one):

    // ALLOCATOR-BUFFERS VERSION: O:S ...   every buffer of the function, offset:size (a multiset)
    // ALLOCATOR-OFFSETS VERSION: O ...     the allocation.offset values printed into the function
    // ALLOCATOR-FAILS VERSION: REASON      the release cannot allocate the module

LINE is the 1-based line of the op, in this file, or, for a ``lowering.*`` rule or note, in
the LLVM IR beside it, as ``alias-spec plan`` reports it. A file that states a verdict is
judged as ``alias-spec plan`` judges it (``plan.pipeline``, the route of ``check_texts``):

- ``NAME.llir`` beside it, if there: the case's LLVM IR, checked against the plan;
- ``NAME.alloc.ttgir`` beside it, if there: the module after a release's allocation, judged
  instead of running Triton's allocator. Its first lines say by whom and what the allocator
  printed: ``// ALLOCATOR: VERSION``, then its debug output, each line as
  ``// ALLOCATOR-DEBUG: LINE`` (trailing blanks dropped); the module follows, as the release
  printed it (``allocated_text`` writes it, ``read_allocated`` reads it);
- else the module's own ``allocation.offset`` attributes, or, without any, the allocator of
  the Triton installed (the case is skipped where there is none).

A file with EXPECT-LIVE lines and no verdict is a liveness case: only the live ranges are
compared (no plan, no Triton). EXPECT-NOTE, -BUFFER, -SIZE and -PLAN-FROM need a verdict,
EXPECT-PARTIES and -SOURCE a finding line of the same RULE @ LINE. A line that starts
``// EXPECT``, ``// RUN-OPTIONS`` or ``// ALLOCATOR-`` and is not one of the above is an error
naming the file and line, and so is a case file with no EXPECT line: a case never asserts
nothing silently.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from alias_spec.ir.report import Finding as RFinding
from alias_spec.ir.ttgir import read_module
from alias_spec.plan import pipeline
from alias_spec.plan.liveness import live_ranges
from alias_spec.plan.output import NOTES, RULES
from alias_spec.plan.plan import Report, may_need_allocation
from alias_spec.plan.runner import PREPASSES
from tests.paths import PLAN_CASES, ROOT

CASES = PLAN_CASES / "text"
VERDICTS = ("clean", "partial", "no-false-alarm")
LEVELS = ("error", "warning")
KINDS = ("alloc", "scratch", "frame", "state")
OPTIONS = {"prepasses": PREPASSES, "tier": ("fast", "full")}
# EXPECT-PLAN-FROM's words, and how the report's plan_from starts for each.
PLAN_FROM = {"attributes": "the module's allocation.offset attributes", "triton": "triton "}
ALLOCATOR = "// ALLOCATOR: "
DEBUG = "// ALLOCATOR-DEBUG:"

_DIRECTIVE = re.compile(r"^\s*//\s*(?:EXPECT|RUN-OPTIONS|ALLOCATOR-)")
_VERDICT = re.compile(r"^// EXPECT: (?P<what>.*?)\s*$")
_PARTIAL = re.compile(r"^partial: (?P<phrase>\S.*)$")
_FINDING = re.compile(r"^(?P<rule>[\w.-]+) @ (?P<line>\d+)(?: (?P<level>\w+))?$")
_OF = r"(?P<rule>[\w.-]+) @ (?P<line>\d+): "  # the finding an EXPECT-PARTIES/-SOURCE is of
_PARTIES = re.compile(r"^// EXPECT-PARTIES: " + _OF + r"(?P<names>\S.*?)\s*$")
_SOURCE = re.compile(r"^// EXPECT-SOURCE: " + _OF + r"(?P<source>\S.*?)\s*$")
_NOTE = re.compile(r"^// EXPECT-NOTE: (?P<kind>[\w.-]+) @ (?P<line>\d+)\s*$")
_BUFFER = re.compile(
    r"^// EXPECT-BUFFER: (?:(?P<kind>\w+) )?offset=(?P<offset>\d+|\?) size=(?P<size>\d+|\?)\s*$"
)
_SIZE = re.compile(r"^// EXPECT-SIZE: (?P<size>\d+)\s*$")
_PLAN_FROM = re.compile(r"^// EXPECT-PLAN-FROM: (?P<where>\S+)\s*$")
_RELEASE = re.compile(
    r"^// ALLOCATOR-(?P<what>BUFFERS|OFFSETS|FAILS) (?P<version>\d[\w.+-]*):(?P<rest>.*)$"
)
_OFFSET_SIZE = re.compile(r"^(\d+):(\d+)$")
_LIVE = re.compile(r"^// EXPECT-LIVE: (?P<name>%[\w$.-]+) (?P<first>\d+)\.\.(?P<last>\d+)\s*$")
_OPTIONS = re.compile(r"^// RUN-OPTIONS:(?P<items>( [\w-]+=[\w.-]+)+)\s*$")

Finding = tuple[str, int, str]  # (rule, line, level)
Note = tuple[str, int]  # (kind, line)
Buffer = tuple[str | None, int | None, int | None]  # (kind, offset, size)
Of = tuple[str, int]  # (rule, line): the finding an EXPECT-PARTIES or -SOURCE line is of


class ExpectError(ValueError):
    """A malformed EXPECT line (naming the file and line), or a case that expects nothing."""


@dataclass
class Expect:
    """What a case file states. ``verdict``: clean, partial, no-false-alarm, findings, or None
    (a liveness case); None elsewhere: that part not stated, not compared."""

    verdict: str | None = None
    phrase: str | None = None
    findings: Counter[Finding] = field(default_factory=Counter)
    notes: Counter[Note] | None = None
    buffers: Counter[Buffer] | None = None
    size: int | None = None
    plan_from: str | None = None  # a key of PLAN_FROM
    parties: dict[Of, Counter[str]] = field(default_factory=dict)
    sources: dict[Of, str] = field(default_factory=dict)
    live: dict[str, tuple[int, int]] = field(default_factory=dict)
    # What each release printed (triton_lit's ALLOCATOR-* lines), by version.
    allocator_buffers: dict[str, Counter[tuple[int, int]]] = field(default_factory=dict)
    allocator_offsets: dict[str, list[int]] = field(default_factory=dict)
    allocator_fails: dict[str, str] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    lines: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # part -> (no, line)

    def said(self, part: str, no: int, line: str) -> None:
        self.lines.setdefault(part, []).append((no, line))


def _number(text: str) -> int | None:
    return None if text == "?" else int(text)


def parse(text: str, where: str = "<text>", llir_lines: int | None = None) -> Expect:
    """The expectations of a case's text; ExpectError ("WHERE:LINE: ...") on a malformed line.
    ``llir_lines``: how many lines the LLVM IR beside it has (None: there is none)."""
    lines = text.split("\n")
    want = Expect()
    verdicts: list[str] = []
    of_lines: list[tuple[int, Of]] = []  # the EXPECT-PARTIES/-SOURCE lines' findings

    def fail(no: int, why: str) -> ExpectError:
        return ExpectError(f"{where}:{no}: {why}")

    def in_file(no: int, line: int, kind: str) -> None:
        lowering = kind.startswith("lowering.")
        if lowering and llir_lines is None:
            raise fail(no, f"{kind} is on a line of the LLVM IR, and there is none beside it")
        count = llir_lines if lowering else len(lines)
        assert count is not None
        if not 1 <= line <= count:
            raise fail(no, f"line {line} is not a line of the {'LLVM IR' if lowering else 'file'}")

    for no, raw in enumerate(lines, 1):
        if not _DIRECTIVE.match(raw):
            continue
        if m := _VERDICT.match(raw):
            what = m.group("what")
            partial = _PARTIAL.match(what)
            finding = _FINDING.match(what)
            verdict = "partial" if partial else "findings" if finding else what
            if verdicts and (verdict != verdicts[0] or verdict != "findings"):
                raise fail(no, f"a second verdict ({verdict}, after {verdicts[0]})")
            if what in VERDICTS or partial:
                verdicts.append(verdict)
                want.phrase = partial.group("phrase") if partial else want.phrase
            elif finding:
                rule, line = finding.group("rule"), int(finding.group("line"))
                level = finding.group("level") or "error"
                if rule not in RULES:
                    raise fail(
                        no, f"{rule!r} is not a rule of the plan (alias_spec/plan/output.py)"
                    )
                if level not in LEVELS:
                    raise fail(no, f"level {level!r} is neither error nor warning")
                in_file(no, line, rule)
                verdicts.append(verdict)
                want.findings[(rule, line, level)] += 1
            else:
                raise fail(no, f"cannot read {what!r}: not clean, partial[: PHRASE], "
                           "no-false-alarm or RULE @ LINE [LEVEL]")  # fmt: skip
            want.said("verdict", no, raw)
        elif m := _NOTE.match(raw):
            kind, line = m.group("kind"), int(m.group("line"))
            if kind not in NOTES:
                raise fail(
                    no, f"{kind!r} is not a note kind of the plan (alias_spec/plan/output.py)"
                )
            in_file(no, line, kind)
            want.notes = want.notes or Counter()
            want.notes[(kind, line)] += 1
            want.said("notes", no, raw)
        elif m := _BUFFER.match(raw):
            kind = m.group("kind")
            if kind is not None and kind not in KINDS:
                raise fail(no, f"buffer kind {kind!r} is not one of {', '.join(KINDS)}")
            want.buffers = want.buffers or Counter()
            want.buffers[(kind, _number(m.group("offset")), _number(m.group("size")))] += 1
            want.said("buffers", no, raw)
        elif m := _SIZE.match(raw):
            if want.size is not None:
                raise fail(no, "a second EXPECT-SIZE")
            want.size = int(m.group("size"))
            want.said("size", no, raw)
        elif m := _LIVE.match(raw):
            name, first, last = m.group("name"), int(m.group("first")), int(m.group("last"))
            if name in want.live:
                raise fail(no, f"a second EXPECT-LIVE for {name}")
            for line in (first, last):
                in_file(no, line, "")
            if first > last:
                raise fail(no, f"the range {first}..{last} ends before it starts")
            want.live[name] = (first, last)
            want.said("live", no, raw)
        elif m := _PARTIES.match(raw):
            of = (m.group("rule"), int(m.group("line")))
            if of in want.parties:
                raise fail(no, f"a second EXPECT-PARTIES for {of[0]} @ {of[1]}")
            want.parties[of] = Counter(n.strip() for n in m.group("names").split(";"))
            of_lines.append((no, of))
            want.said("parties", no, raw)
        elif m := _SOURCE.match(raw):
            of = (m.group("rule"), int(m.group("line")))
            if of in want.sources:
                raise fail(no, f"a second EXPECT-SOURCE for {of[0]} @ {of[1]}")
            want.sources[of] = m.group("source")
            of_lines.append((no, of))
            want.said("sources", no, raw)
        elif m := _PLAN_FROM.match(raw):
            if m.group("where") not in PLAN_FROM:
                raise fail(no, f"plan from {m.group('where')!r}: not one of {', '.join(PLAN_FROM)}")
            if want.plan_from is not None:
                raise fail(no, "a second EXPECT-PLAN-FROM")
            want.plan_from = m.group("where")
            want.said("plan_from", no, raw)
        elif m := _RELEASE.match(raw):
            _release(want, m, lambda why, no=no: fail(no, why))
        elif m := _OPTIONS.match(raw):
            for item in m.group("items").split():
                key, value = item.split("=", 1)
                if key not in OPTIONS:
                    raise fail(no, f"unknown option {key!r} (known: {', '.join(OPTIONS)})")
                if value not in OPTIONS[key]:
                    raise fail(no, f"{key}={value}: not one of {', '.join(OPTIONS[key])}")
                if key in want.options:
                    raise fail(no, f"{key} given twice")
                want.options[key] = value
        else:
            raise fail(no, "not one of the EXPECT lines (tests/plan/expect.py says which)")
    want.verdict = verdicts[0] if verdicts else None
    if want.verdict is None and (want.notes or want.buffers or want.size is not None
                                 or want.plan_from is not None):  # fmt: skip
        raise ExpectError(
            f"{where}: EXPECT-NOTE, -BUFFER, -SIZE and -PLAN-FROM need a verdict (EXPECT: ...)"
        )
    for no, (rule, line) in of_lines:
        if not any((r, ln) == (rule, line) for r, ln, _ in want.findings):
            raise fail(no, f"{rule} @ {line} is not one of the findings the EXPECT lines say")
    if want.verdict == "clean" and want.notes:
        raise ExpectError(f"{where}: a clean verdict has no notes, yet EXPECT-NOTE lines say some")
    return want


def _release(want: Expect, m: re.Match[str], fail: Callable[[str], ExpectError]) -> None:
    """One ALLOCATOR-BUFFERS, -OFFSETS or -FAILS line (``m``: its _RELEASE match) into ``want``."""
    what, version, rest = m.group("what"), m.group("version"), m.group("rest").strip()
    said: dict[str, Any] = {"BUFFERS": want.allocator_buffers, "OFFSETS": want.allocator_offsets,
                            "FAILS": want.allocator_fails}[what]  # fmt: skip
    if version in said:
        raise fail(f"a second ALLOCATOR-{what} for {version}")
    if what == "FAILS":
        if not rest:
            raise fail(f"ALLOCATOR-FAILS {version} says no reason")
        said[version] = rest
    elif what == "OFFSETS":
        if not all(w.isdigit() for w in rest.split()):
            raise fail(f"cannot read {rest!r}: not offsets (O O ...)")
        said[version] = sorted(int(w) for w in rest.split())
    else:
        pairs = [_OFFSET_SIZE.match(w) for w in rest.split()]
        if not all(pairs):
            raise fail(f"cannot read {rest!r}: not buffers (OFFSET:SIZE ...)")
        said[version] = Counter((int(p.group(1)), int(p.group(2))) for p in pairs if p)


def siblings(path: Path) -> tuple[Path | None, Path | None]:
    """The case's LLVM IR (``NAME.llir``) and allocated module (``NAME.alloc.ttgir``), where
    they are there."""
    llir = path.with_suffix(".llir")
    alloc = path.with_suffix(".alloc.ttgir")
    return (llir if llir.exists() else None), (alloc if alloc.exists() else None)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def read(path: Path) -> Expect:
    """The expectations of a case file; ExpectError when it states none."""
    llir, _ = siblings(path)
    llir_lines = len(llir.read_text().split("\n")) if llir else None
    want = parse(path.read_text(), _name(path), llir_lines)
    if want.verdict is None and not want.live:
        raise ExpectError(f"{_name(path)}: no EXPECT line: a case must state what it expects")
    return want


# --- the allocated module beside a case ---------------------------------------------------------


def allocated_text(module: str, debug: str, version: str) -> str:
    """``NAME.alloc.ttgir``: who allocated, the allocator's debug output, then the module."""
    head = [ALLOCATOR + version] + [f"{DEBUG} {ln}".rstrip() for ln in debug.split("\n")]
    return "\n".join(head) + "\n" + module


def read_allocated(text: str, where: str = "<alloc>") -> tuple[str, str, str]:
    """(module, debug text, version) of an ``allocated_text``."""
    lines = text.split("\n")
    if not lines[0].startswith(ALLOCATOR):
        raise ExpectError(f"{where}:1: not '{ALLOCATOR}VERSION'")
    version = lines[0][len(ALLOCATOR) :].strip()
    end = 1
    while end < len(lines) and lines[end].startswith(DEBUG):
        end += 1
    debug = "\n".join(ln[len(DEBUG) :].removeprefix(" ") for ln in lines[1:end])
    return "\n".join(lines[end:]), debug, version


# --- the judgment ---------------------------------------------------------------------------------


@dataclass
class Got:
    """What the case's input gives: the report (None for a liveness case) and live ranges."""

    report: Report | None = None
    live: dict[str, tuple[int, int] | None] = field(default_factory=dict)  # None: ambiguous


def ranges(text: str) -> dict[str, tuple[int, int] | None]:
    """Each ttg.local_alloc's live range as (line of its first op, line of its last op), per
    ``liveness.live_ranges`` on the module as written; None for a name two functions use."""
    out: dict[str, tuple[int, int] | None] = {}
    for fn in read_module(text).functions:
        roots = {op.results[0] for op in fn.ops if op.name == "ttg.local_alloc"}
        for name, (first, last) in live_ranges(fn, roots).items():
            assert fn.ops[first].pos == first and fn.ops[last].pos == last
            out[name] = None if name in out else (fn.ops[first].line, fn.ops[last].line)
    return out


def judge(path: Path, want: Expect | None = None) -> Got:
    """Judge a case file as its EXPECT lines ask (``want``: read from the file when None)."""
    want = want if want is not None else read(path)
    text = path.read_text()
    got = Got()
    if want.live:
        got.live = ranges(text)
    if want.verdict is None:
        return got
    llir, alloc = siblings(path)
    allocated = read_allocated(alloc.read_text(), _name(alloc)) if alloc else None
    if may_need_allocation(text, allocated):
        pytest.importorskip("triton", reason="the case needs Triton's allocator")
    run = pipeline.Run(text, path.name, llir.read_text() if llir else None,
                       llir.name if llir else None, allocated=allocated,
                       prepasses=want.options.get("prepasses", "auto"))  # fmt: skip
    got.report = pipeline.run(run)
    return got


# --- the comparison -------------------------------------------------------------------------------


def _verdict_holds(want: Expect, report: Report) -> bool:
    if want.verdict == "findings":
        return _findings(report) == want.findings
    if want.verdict == "no-false-alarm":
        return not report.findings
    if want.verdict == "partial" and want.phrase is not None:
        return report.status == "partial" and want.phrase in report.notes[0].message
    return report.status == want.verdict


def _findings(report: Report) -> Counter[Finding]:
    return Counter((f.rule, f.line, f.level) for f in report.findings)


def _plan_from(report: Report) -> str:
    """The EXPECT-PLAN-FROM word for the report's plan_from (itself where none fits)."""
    return next((w for w, start in PLAN_FROM.items() if report.plan_from.startswith(start)),
                report.plan_from)  # fmt: skip


def _of(report: Report, want: dict[Of, Any]) -> list[RFinding]:
    """The report's findings at the RULE @ LINE of ``want``'s keys."""
    return [f for f in report.findings if (f.rule, f.line) in want]


def _parties(finding: RFinding) -> Counter[str]:
    return Counter(finding.values.get("buffers") or [])


def _wrong_of(want: Expect, report: Report) -> tuple[bool, bool]:
    """Whether a finding that EXPECT-PARTIES, -SOURCE lines are of names other buffers, gives
    another source (a finding not there at all is the verdict's difference)."""
    parties = any(_parties(f) != want.parties[(f.rule, f.line)] for f in _of(report, want.parties))
    sources = any(f.source != want.sources[(f.rule, f.line)] for f in _of(report, want.sources))
    return parties, sources


def _buffers(want: Counter[Buffer], report: Report) -> Counter[Buffer]:
    kinds = all(kind is not None for kind, _, _ in want)
    return Counter((b.kind if kinds else None, b.offset, b.size) for b in report.buffers)


def _show(n: int | None) -> str:
    return "?" if n is None else str(n)


def _got_lines(part: str, want: Expect, got: Got) -> list[str]:
    """What the input gives for one part, written as the EXPECT lines that would say it."""
    report = got.report
    if part == "live":
        return [f"// EXPECT-LIVE: {name} " + ("{}..{}".format(*got.live[name]) if got.live.get(name)
                                               else "(no ttg.local_alloc of one function)")
                for name in _wrong_live(want, got)]  # fmt: skip
    assert report is not None
    if part == "verdict":
        if report.findings:
            return sorted(f"// EXPECT: {r} @ {ln}" + (f" {lv}" if lv != "error" else "")
                          for r, ln, lv in _findings(report).elements())  # fmt: skip
        if report.status == "partial":
            return ["// EXPECT: partial", f"   (the first note: {report.notes[0].message})"]
        return ["// EXPECT: clean"]
    if part == "notes":
        return sorted(f"// EXPECT-NOTE: {n.kind} @ {n.line}" for n in report.notes)
    if part == "buffers":
        assert want.buffers is not None
        return sorted(f"// EXPECT-BUFFER: {k + ' ' if k else ''}offset={_show(o)} size={_show(s)}"
                      for k, o, s in _buffers(want.buffers, report).elements())  # fmt: skip
    if part == "parties":
        return [f"// EXPECT-PARTIES: {f.rule} @ {f.line}: " + "; ".join(sorted(_parties(f)))
                for f in _of(report, want.parties)]  # fmt: skip
    if part == "sources":
        return [f"// EXPECT-SOURCE: {f.rule} @ {f.line}: {f.source}"
                for f in _of(report, want.sources)]  # fmt: skip
    if part == "plan_from":
        return [f"// EXPECT-PLAN-FROM: {_plan_from(report)}"]
    return [f"// EXPECT-SIZE: {_show(report.shared)}"]


def _wrong_live(want: Expect, got: Got) -> list[str]:
    return [name for name, lines in want.live.items() if got.live.get(name) != lines]


def differences(want: Expect, got: Got) -> list[str]:
    """The parts the input does not give as expected, each as the EXPECT lines (with their
    line numbers) against the lines that would say what it gives; empty when all hold."""
    report = got.report
    wrong = []
    if _wrong_live(want, got):
        wrong.append("live")
    if report is not None:
        if not _verdict_holds(want, report):
            wrong.append("verdict")
        if want.notes is not None and Counter((n.kind, n.line) for n in report.notes) != want.notes:
            wrong.append("notes")
        if want.buffers is not None and _buffers(want.buffers, report) != want.buffers:
            wrong.append("buffers")
        if want.size is not None and report.shared != want.size:
            wrong.append("size")
        if want.plan_from is not None and _plan_from(report) != want.plan_from:
            wrong.append("plan_from")
        parties, sources = _wrong_of(want, report)
        if parties:
            wrong.append("parties")
        if sources:
            wrong.append("sources")
    out = []
    for part in wrong:
        out.append("  expected:")
        said = want.lines[part]
        if part == "live":
            said = [(no, line) for no, line in said if line.split()[2] in _wrong_live(want, got)]
        out += [f"    {no}: {line}" for no, line in said]
        out.append("  got:")
        out += [f"    {line}" for line in _got_lines(part, want, got)]
    return out


def check(path: Path) -> None:
    """AssertionError naming the file and showing expected against got where the case's input
    does not give what its EXPECT lines say."""
    want = read(path)
    if want.allocator_buffers or want.allocator_offsets or want.allocator_fails:
        raise ExpectError(f"{_name(path)}: ALLOCATOR-* lines are compared release by release "
                          "(test_plan_triton_lit.py), not by one judgment")  # fmt: skip
    wrong = differences(want, judge(path, want))
    assert not wrong, "\n".join([f"{_name(path)}: not as its EXPECT lines say", *wrong])


def case_files(root: Path = CASES) -> list[Path]:
    """Every case under ``root``: the ``*.ttgir`` files but the allocated modules beside them."""
    return sorted(p for p in root.rglob("*.ttgir") if not p.name.endswith(".alloc.ttgir"))
