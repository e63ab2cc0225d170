"""Every example on the docs site runs: JSON requests, commands, Python, generated excerpts.

Fenced blocks are taken from every page under docs/. An HTML comment right above a block,
``<!-- example: ... -->``, says what it must do:

- ``request`` / ``facts`` with ``PROFILE=valid|rule,rule`` pairs: the JSON (a request, alias
  or view, or facts as differences from the docs' baseline request) has exactly those verdicts
  under the interpreter and the generated Python checks (z3 as well for rule pages' failing
  requests);
- ``mlir`` with the same pairs, for the stock Triton profiles: `alias-spec lint` finds exactly
  those rules in the module, which holds the op of the request block right above it;
- ``excerpt FILE``: the block's text occurs verbatim in FILE;
- ``run``: a Python block that runs without error (from a file of its own, as ``@gluon.jit``
  needs its source); ``needs MODULE`` skips while that module does not exist;
- ``exit=N`` on a console block: each ``$ `` command exits N (default 0); lines after a command
  are its expected stdout; ``needs MODULE`` skips while that module does not exist; ``copy``
  runs the commands in a copy of the checkout (commands that write files, such as
  ``alias-spec gen``, leave the checkout as it was).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from alias_spec.difftest import view_examples
from alias_spec.docgen import blocks as doc_blocks
from alias_spec.engines.py_engine import check_facts as py_check
from alias_spec.lint.lint import lint_text
from alias_spec.model.catalogue import PROFILES, RULES, Rule, rule
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from tests.paths import ROOT

DOCS = ROOT / "docs"
FENCE = re.compile(r"^( *)```(\w*)([^\n]*)\n(.*?)^\1```$", re.S | re.M)
NOTE = re.compile(r"<!-- example: ([^\n]*?) -->[ \n]*\Z")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    info: str  # the rest of the fence line (title="...")
    text: str
    note: str  # the example comment right above, "" when none

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def blocks() -> list[Block]:
    out = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text()
        for m in FENCE.finditer(text):
            before = text[: m.start()]
            note = NOTE.search(before[-600:])
            out.append(
                Block(
                    str(path.relative_to(ROOT)),
                    before.count("\n") + 1,
                    m.group(2),
                    m.group(3),
                    textwrap.dedent(m.group(4)),
                    note.group(1) if note else "",
                )
            )
    return out


ALL = blocks()
REQUESTS = [b for b in ALL if b.note.split()[:1] in (["request"], ["facts"])]
CONSOLE = [b for b in ALL if b.lang == "console"]
RUN = [b for b in ALL if b.note.split()[:1] == ["run"]]
EXCERPTS = [b for b in ALL if b.note.startswith("excerpt ")]
MLIR = [b for b in ALL if b.note.split()[:1] == ["mlir"]]
VIEW_OPS = ("ttg.memdesc_reinterpret", "ttg.memdesc_subslice", "ttg.memdesc_index")


def test_the_docs_have_examples_of_every_kind() -> None:
    assert len(REQUESTS) >= 2 * len(RULES) and CONSOLE and RUN and EXCERPTS
    pages = {b.page for b in REQUESTS}
    assert {"docs/profiles.md", "docs/theorems.md", "docs/index.md"} <= pages


def test_every_json_block_is_a_checked_example_or_plain_json() -> None:
    for b in (b for b in ALL if b.lang == "json"):
        data = json.loads(b.text)
        is_request = isinstance(data, dict) and ("source" in data or "src_buffered" in data)
        if is_request or b.page.startswith("docs/rules/"):
            assert b.note.split()[:1] in (["request"], ["facts"]), f"{b}: no verdict note"


def _expected(note: str) -> dict[str, list[str]]:
    pairs = dict(item.split("=", 1) for item in note.split()[1:])
    assert pairs and set(pairs) <= set(PROFILES), note
    return {p: [] if v == "valid" else v.split(",") for p, v in pairs.items()}


def _facts(b: Block) -> dict[str, int | bool]:
    data = json.loads(b.text)
    if b.note.startswith("facts"):
        return {**doc_blocks.baseline_facts(), **data}
    return dict(parse_request(data).facts)


@pytest.mark.parametrize("b", REQUESTS, ids=str)
def test_request_examples_have_their_verdicts(b: Block) -> None:
    facts = _facts(b)
    for profile, want in _expected(b.note).items():
        assert check_facts(facts, profile).rule_ids() == want, (b, profile)
        assert py_check(facts, profile).rule_ids() == want, (b, profile)


@pytest.mark.parametrize("b", MLIR, ids=str)
def test_mlir_examples_lint_to_their_verdicts(b: Block) -> None:
    for profile, want in _expected(b.note).items():
        report = lint_text(b.text, "example.mlir", profile)
        assert report.views == 1, (b, profile)
        assert [f.rule for f in report.findings] == want, (b, profile)


def _next_block(b: Block) -> Block | None:
    i = ALL.index(b) + 1
    return ALL[i] if i < len(ALL) and ALL[i].page == b.page else None


def test_every_view_request_has_its_module() -> None:
    views = [b for b in REQUESTS if b.note.startswith("request")]
    views = [b for b in views if json.loads(b.text).get("op") in VIEW_OPS]
    assert len(views) >= len(MLIR) > 0
    for b in views:
        req, m = json.loads(b.text), _next_block(b)
        assert m is not None and m in MLIR, f"{b}: no MLIR module after the view request"
        stated, stock = _expected(b.note), _expected(m.note)
        assert set(stock) == set(doc_blocks.VIEW_PROFILES), m
        assert all(stock[p] == stated[p] for p in stock), m
        op_line = next(line for line in m.text.splitlines() if req["op"] in line)
        assert req["source"] in op_line and req["result"] in op_line, m
        if "offsets" in req:
            offsets = ", ".join(map(str, req["offsets"]))
            assert re.search(rf"{req['op']} %\w+\[{offsets}\] :", op_line), m
        if req.get("index") is not None:
            assert f"arith.constant {req['index']} " in m.text, m


def _section(text: str, title: str) -> str:
    return text.split(f"### {title}", 1)[1].split("\n### ", 1)[0]


@pytest.mark.parametrize("r", RULES, ids=lambda r: r.id)
def test_rule_pages_examples_say_what_their_rule_does(r: Rule) -> None:
    """The failing example breaks the rule (alone when the page says so), the passing one
    passes, under the rule's home profile; a stock Triton rule's examples are real requests
    unless the page says the search found none."""
    page = f"docs/rules/{r.id}.md"
    home = doc_blocks.home_profile(r)
    text = (ROOT / page).read_text()
    by_title = {b.info.strip(): b for b in REQUESTS if b.page == page}
    fails, passes = by_title['title="fails"'], by_title.get('title="passes"')
    got = check_facts(_facts(fails), home).rule_ids()
    assert r.id in got, (page, got)
    if "and no other" in _section(text, "A failing request"):
        assert got == [r.id], (page, got)
    if passes is not None:
        assert check_facts(_facts(passes), home).valid, page
    if home in doc_blocks.VIEW_PROFILES and "No request of the searched family" not in text:
        assert fails.note.startswith("request"), page
        assert passes is not None and passes.note.startswith("request"), page


def test_view_search_seeds_are_valid() -> None:
    """The search starts from views every profile accepts, and from one alias request that
    only the stock Triton profiles reject, for being no stock op."""
    for seed in view_examples.SEEDS:
        facts = parse_request(seed.request()).facts
        for p in PROFILES:
            want = (
                ["triton.op.stock"] if seed.op == "alias" and p in doc_blocks.VIEW_PROFILES else []
            )
            assert check_facts(facts, p).rule_ids() == want, (seed, p)


def test_rule_pages_failing_requests_under_z3() -> None:
    from alias_spec.semantics.check import check_facts as z3_check

    failing = [b for b in REQUESTS if b.page.startswith("docs/rules/") and "fails" in b.info]
    assert len(failing) == len(RULES)
    for b in failing:
        rule_id = Path(b.page).stem
        home = doc_blocks.home_profile(rule(rule_id))
        assert rule_id in z3_check(_facts(b), home, with_fixes=False).rule_ids(), b


@pytest.mark.parametrize("b", EXCERPTS, ids=str)
def test_excerpts_match_the_generated_files(b: Block) -> None:
    source = (ROOT / b.note.split(None, 1)[1]).read_text()
    assert b.text.rstrip("\n") in source, b


def _skip_unless_present(note: str) -> None:
    words = note.split()
    if "needs" in words:
        module = words[words.index("needs") + 1]
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")


@pytest.mark.parametrize("b", RUN, ids=str)
def test_python_examples_run(b: Block, tmp_path: Path) -> None:
    _skip_unless_present(b.note)
    script = tmp_path / "example.py"
    script.write_text(b.text)
    r = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, f"{b}\n{r.stderr[-2000:]}"


def _commands(text: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            assert out, f"output before any command: {line!r}"
            out[-1][1].append(line)
    return out


# Not copied for ``copy`` blocks: history, caches and build output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", "site", "__pycache__", ".*cache", ".hypothesis", ".benchmarks", "*.egg-info"
)


@pytest.mark.parametrize("b", CONSOLE, ids=str)
def test_console_examples(b: Block, tmp_path: Path) -> None:
    words = b.note.split()
    _skip_unless_present(b.note)
    exit_code = next((int(w[5:]) for w in words if w.startswith("exit=")), 0)
    cwd = ROOT
    if "copy" in words:
        cwd = tmp_path / "checkout"
        shutil.copytree(ROOT, cwd, ignore=NOT_COPIED)
    # The package of the folder it runs in (`-m` puts the folder first on the path), whatever
    # `alias-spec` on PATH points at.
    cli = f"{sys.executable} -m alias_spec"
    for command, expected in _commands(b.text):
        shell = re.sub(r"(?<![\w-])alias-spec(?![\w-])", cli, command)
        r = subprocess.run(
            ["bash", "-c", shell], cwd=cwd, capture_output=True, text=True, timeout=300
        )
        assert r.returncode == exit_code, f"{b}: {command}\n{r.stdout[-1500:]}{r.stderr[-1500:]}"
        if expected:
            got = [line.rstrip() for line in r.stdout.rstrip("\n").splitlines()]
            assert got == [line.rstrip() for line in expected], f"{b}: {command}"


def test_a_run_without_chromium_says_the_browser_tests_were_skipped(tmp_path: Path) -> None:
    """The docs site's browser tests skip without Chromium; the run's summary says so each
    time, with what to install (they used to skip silently)."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import pytest\n\n"
        "def test_renders():\n    pytest.skip('chromium is not installed')\n\n"
        "def test_unrelated():\n    pytest.skip('no GPU')\n"
    )
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest",
                          "-p", "no:cacheprovider", str(probe)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    said = [line for line in run.stdout.splitlines() if "browser test" in line]
    assert len(said) == 1, run.stdout
    assert said[0].startswith("1 browser test of the docs site skipped (chromium is not")
    assert "apt-get install chromium" in said[0] and "tests/docgen/test_docs_site.py" in said[0]
