"""Every example on the docs site runs: JSON requests, commands, Python, generated excerpts.

Fenced blocks are taken from every page under docs/. An HTML comment right above a block,
``<!-- example: ... -->``, says what it must do:

- ``request`` / ``facts`` with ``PROFILE=valid|rule,rule`` pairs: the JSON (a request, or facts
  as differences from the docs' baseline request) has exactly those verdicts under the
  interpreter and the generated Python checks (z3 as well for rule pages' failing requests);
- ``excerpt FILE``: the block's text occurs verbatim in FILE;
- ``run``: a Python block that runs without error;
- ``exit=N`` on a console block: each ``$ `` command exits N (default 0); lines after a command
  are its expected stdout; ``needs MODULE`` skips while that module does not exist.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from alias_spec.catalogue import PROFILES, RULES, rule
from alias_spec.interp import check_facts
from alias_spec.request import parse_request
from compiler_patch import gen_docs
from compiler_patch.py_engine import check_facts as py_check

ROOT = Path(__file__).resolve().parent.parent
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
RUN = [b for b in ALL if b.note == "run"]
EXCERPTS = [b for b in ALL if b.note.startswith("excerpt ")]


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
        return {**gen_docs.baseline_facts(), **data}
    return dict(parse_request(data).facts)


@pytest.mark.parametrize("b", REQUESTS, ids=str)
def test_request_examples_have_their_verdicts(b: Block) -> None:
    facts = _facts(b)
    for profile, want in _expected(b.note).items():
        assert check_facts(facts, profile).rule_ids() == want, (b, profile)
        assert py_check(facts, profile).rule_ids() == want, (b, profile)


def test_rule_pages_failing_requests_under_z3() -> None:
    from solver.check import check_facts as z3_check

    failing = [b for b in REQUESTS if b.page.startswith("docs/rules/") and "fails" in b.info]
    assert len(failing) == len(RULES)
    for b in failing:
        rule_id = Path(b.page).stem
        home = gen_docs.home_profile(rule(rule_id))
        assert rule_id in z3_check(_facts(b), home, with_fixes=False).rule_ids(), b


@pytest.mark.parametrize("b", EXCERPTS, ids=str)
def test_excerpts_match_the_generated_files(b: Block) -> None:
    source = (ROOT / b.note.split(None, 1)[1]).read_text()
    assert b.text.rstrip("\n") in source, b


@pytest.mark.parametrize("b", RUN, ids=str)
def test_python_examples_run(b: Block) -> None:
    r = subprocess.run([sys.executable, "-c", b.text], cwd=ROOT, capture_output=True, text=True)
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


@pytest.mark.parametrize("b", CONSOLE, ids=str)
def test_console_examples(b: Block) -> None:
    words = b.note.split()
    if "needs" in words:
        module = words[words.index("needs") + 1]
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} does not exist yet")
    exit_code = next((int(w[5:]) for w in words if w.startswith("exit=")), 0)
    # The checkout's own package, whatever `alias-spec` on PATH points at.
    cli = f"{sys.executable} -m alias_spec"
    for command, expected in _commands(b.text):
        shell = re.sub(r"(?<![\w-])alias-spec(?![\w-])", cli, command)
        r = subprocess.run(
            ["bash", "-c", shell], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert r.returncode == exit_code, f"{b}: {command}\n{r.stdout[-1500:]}{r.stderr[-1500:]}"
        if expected:
            got = [line.rstrip() for line in r.stdout.rstrip("\n").splitlines()]
            assert got == [line.rstrip() for line in expected], f"{b}: {command}"
