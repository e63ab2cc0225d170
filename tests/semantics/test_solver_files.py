"""solver/: the spec as SMT-LIB 2 files, checked by the solvers' own programs.

Each file's ``; expect:`` lines (one before each ``(check-sat)``) must be what z3's command-line
program prints for it, and what cvc5 answers (its command-line program where one is installed;
the cvc5 wheel ships none, so its own SMT-LIB reader through the wheel's bindings, which runs no
code of ours). Both programs decide every rule and profile file (a second or less each) and a
sample of theorem files (``THEOREM_SAMPLE``). The theorems themselves are proved once per run,
in-process, one test per theorem (tests/semantics/test_theorems.py,
tests/semantics/test_triton_profiles.py); there each theorem's file is checked against that
proof (``check_theorem_file``: each (check-sat) asks the query the solvers decided, and
expects their answer) and against the outcomes ``alias-spec prove`` recorded
(docs/data/theorems.json), which every theorem file is checked against here too. A file's text
is the generator's (``alias-spec gen --check``, tests/backends/test_gen.py). The fast tier runs
the programs on one file each (the first case of each parametrized test).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import z3

from alias_spec.backends import gen_smt
from tests.paths import ROOT

SOLVER = ROOT / "solver"
RECORDED = ROOT / "docs" / "data" / "theorems.json"
# The files the solvers' programs decide here: every rule and profile, and a sample of theorems.
FILES = sorted([*SOLVER.glob("rules/*.smt2"), *SOLVER.glob("profiles/*.smt2")])
# A few rules of each kind of formula and two profiles first (the fast tier keeps the first).
FAST = (
    "rules/alias.range.physical.smt2",
    "rules/alias.offset.aligned.smt2",
    "rules/triton.subslice.swizzle.smt2",
    "rules/triton.type.alloc_pow2.smt2",
    "profiles/safe.smt2",
    "profiles/triton-3.9.smt2",
)
# Theorem files read by both programs, so that their readers see what only theorem files hold
# (one push/check-sat/pop per conjunct, a recorded model pinned, quantifiers): the theorems
# themselves are proved in-process in this run, and these take about a second each.
THEOREM_SAMPLE = (
    "theorems/guards_covered.flagtree.smt2",  # valid, split: 15 conjuncts, each unsat
    "theorems/sound.flagtree.smt2",  # a finding with quantifiers, its counterexample pinned
    "theorems/independent.flagtree.alias.range.fits.smt2",  # existence, its witness pinned
)
TIMEOUT_S = 600


def expected(path: Path) -> list[str]:
    text = path.read_text()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(";")]
    checks = sum(1 for ln in lines if ln.strip() == "(check-sat)")
    want = [ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("; expect:")]
    assert len(want) == checks, path  # one expectation per check-sat
    return want


def test_every_generated_file_is_committed() -> None:
    paths = {p for p, _ in gen_smt.targets(ROOT)}
    on_disk = {p.relative_to(ROOT).as_posix() for p in SOLVER.rglob("*") if p.is_file()}
    assert on_disk == paths  # no file missing, none left over (alias-spec gen --check too)


@functools.cache
def _recorded() -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in json.loads(RECORDED.read_text())["theorems"]}


def test_expectations_match_the_recorded_proofs() -> None:
    recorded = _recorded().values()
    assert len(recorded) >= 70
    for t in recorded:
        want = expected(SOLVER / "theorems" / f"{t['id']}.smt2")
        exists = t["id"].startswith(("satisfiable.", "independent.", "unsafe_accept."))
        if t["status"] == "finding":
            assert want == ["sat"], t["id"]  # the counterexample's claim negated
        elif exists:
            assert want == ["sat"], t["id"]  # a witness exists
        else:
            assert t["status"] == "proved" and want and set(want) == {"unsat"}, t["id"]


def _commands(text: str) -> list[str]:
    """The file's top-level commands, comments dropped (a line holds no comment after code)."""
    out, current, depth = [], [], 0
    for line in text.splitlines():
        if not line.strip() or line.startswith(";"):
            continue
        current.append(line)
        depth += line.count("(") - line.count(")")
        if depth == 0:
            out.append("\n".join(current))
            current = []
    assert not current, "unbalanced parentheses"
    return out


def _queries(path: Path) -> list[list[z3.BoolRef]]:
    """The assertions each (check-sat) of a theorem file decides, read by z3's SMT-LIB reader:
    those before the first (push), then the check's own."""
    common: list[str] = []
    own: list[str] | None = None
    out = []
    for cmd in _commands(path.read_text()):
        head = cmd.split()[0].strip("()")
        if head == "push":
            own = []
        elif head == "pop":
            own = None
        elif head == "check-sat":
            out.append(list(z3.parse_smt2_string("\n".join(common + (own or [])))))
        elif head != "set-logic":
            (common if own is None else own).append(cmd)
    return out


def _same_formula(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    """Equal once simplified, else (a sign or argument order printed otherwise) proved equal
    by z3 at once: a formula differing in substance would not be."""
    if z3.simplify(a).eq(z3.simplify(b)):
        return True
    s = z3.Solver()
    s.set("timeout", 20000)
    s.add(a != b)
    return s.check() == z3.unsat


def _is_value(e: z3.ExprRef) -> bool:
    e = z3.simplify(e)
    return z3.is_int_value(e) or z3.is_true(e) or z3.is_false(e)


def check_theorem_file(outcome: Any) -> None:
    """The theorem's file says what this run's in-process proof (an ``Outcome`` of both
    solvers) found, about the same queries, and what ``alias-spec prove`` recorded: an
    existence claim is ``sat`` when it holds; a refuted claim's negation is ``sat``; a proved
    claim's file has one ``unsat`` per conjunct the solvers each proved. Each (check-sat)'s
    assertions are the query the solvers decided in-process (the claim, its negation, or a
    conjunct's negation), plus, for a ``sat`` one, the pinned model: facts equated to values,
    which z3 (in milliseconds) finds consistent with it."""
    from alias_spec.semantics.theorems import _parts

    t = outcome.theorem
    path = SOLVER / "theorems" / f"{t.id}.smt2"
    want = expected(path)
    answers = set(outcome.solvers.values())
    assert len(answers) == 1 and answers <= {"holds", "refuted"}, (t.id, outcome.solvers)
    claim, _ = t.build()
    if t.kind == "exists":
        assert want == ["sat" if answers == {"holds"} else "unsat"], t.id
        mine = [claim]
    elif answers == {"holds"}:
        assert want == ["unsat"] * outcome.parts, t.id
        mine = [z3.Not(part) for part in _parts(claim)]
    else:
        assert want == ["sat"], t.id
        mine = [z3.Not(claim)]
    assert _recorded()[t.id]["status"] == outcome.status, t.id
    queries = _queries(path)
    assert len(queries) == len(mine), t.id
    for asserts, query, answer in zip(queries, mine, want, strict=True):
        ours, pins = (asserts[:1], asserts[1:]) if answer == "sat" else (asserts, [])
        assert _same_formula(z3.And(*ours) if len(ours) > 1 else ours[0], query), t.id
        if pins:
            assert all(z3.is_eq(p) and any(map(_is_value, p.children())) for p in pins), t.id
            s = z3.Solver()
            s.set("timeout", 20000)
            s.add(*asserts)
            assert s.check() == z3.sat, t.id


def test_every_rule_and_profile_has_a_file() -> None:
    from alias_spec.model.catalogue import PROFILES, RULES

    for r in RULES:
        assert expected(SOLVER / "rules" / f"{r.id}.smt2") == ["sat"]
        assert "(define-fun formula () Bool" in (SOLVER / "rules" / f"{r.id}.smt2").read_text()
    for p in PROFILES:
        text = (SOLVER / "profiles" / f"{p}.smt2").read_text()
        assert "Do not edit" in text and expected(SOLVER / "profiles" / f"{p}.smt2") == ["sat"]


# --- the solvers ------------------------------------------------------------------------------


def _program(name: str) -> str | None:
    """The solver's command-line program: on PATH, or in this interpreter's scripts folder
    (where the z3-solver wheel installs ``z3``)."""
    found = shutil.which(name)
    if found:
        return found
    script = Path(sysconfig.get_path("scripts")) / name
    return str(script) if script.exists() and os.access(script, os.X_OK) else None


def _run_program(program: str, path: Path) -> list[str]:
    proc = subprocess.run([program, str(path)], capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)  # fmt: skip
    return [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]


# cvc5's own SMT-LIB reader, through the wheel's bindings: the file is all it reads.
_CVC5_READER = """
import sys, cvc5
tm = cvc5.TermManager(); solver = cvc5.Solver(tm)
solver.setOption("produce-models", "false")
parser = cvc5.InputParser(solver)
parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[1])
sm = parser.getSymbolManager()
while True:
    cmd = parser.nextCommand()
    if cmd.isNull():
        break
    out = cmd.invoke(solver, sm)
    if out.strip():
        print(out.strip(), flush=True)
"""


def _cvc5(path: Path) -> list[str]:
    program = _program("cvc5")
    if program is not None:
        return _run_program(program, path)
    proc = subprocess.run([sys.executable, "-c", _CVC5_READER, str(path)], capture_output=True,
                          text=True, timeout=TIMEOUT_S, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-500:]
    return [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]


def _z3(path: Path) -> list[str]:
    program = _program("z3")
    if program is None:
        pytest.skip("no z3 program (the z3-solver wheel installs one into the scripts folder)")
    return _run_program(program, path)


def _params() -> list[object]:
    first = [SOLVER / f for f in FAST]
    rest = [p for p in FILES if p not in first] + [SOLVER / f for f in THEOREM_SAMPLE]
    slow = pytest.mark.slow
    return [pytest.param(p, id=p.relative_to(SOLVER).as_posix()) for p in first] + [
        pytest.param(p, id=p.relative_to(SOLVER).as_posix(), marks=slow) for p in rest
    ]


def test_theorem_files_are_left_to_the_in_process_proofs() -> None:
    """One file per theorem, each proved in-process by the tests named above (one test per
    theorem id); the solvers' programs decide the sample only."""
    from alias_spec.semantics import triton_theorems
    from alias_spec.semantics.theorems import all_theorems

    ids = [t.id for t in all_theorems()] + [t.id for t in triton_theorems.all_theorems()]
    files = {p.name.removesuffix(".smt2") for p in SOLVER.glob("theorems/*.smt2")}
    assert len(set(ids)) == len(ids) and files == set(ids)
    assert set(THEOREM_SAMPLE) <= {f"theorems/{i}.smt2" for i in ids}
    assert not [p for p in FILES if p.parent.name == "theorems"]


@pytest.mark.parametrize("path", _params())
def test_z3_program_answers_as_expected(path: Path) -> None:
    assert _z3(path) == expected(path)


@pytest.mark.parametrize("path", _params())
def test_cvc5_answers_as_expected(path: Path) -> None:
    try:
        import cvc5  # noqa: F401
    except ImportError:
        if _program("cvc5") is None:
            pytest.skip("neither a cvc5 program nor the cvc5 wheel is installed")
    assert _cvc5(path) == expected(path)


def test_cvc5_program_or_why_not() -> None:
    if _program("cvc5") is None:
        pytest.skip("the cvc5 wheel ships no command-line program; its reader is used instead")
    path = SOLVER / FAST[0]
    assert _run_program(str(_program("cvc5")), path) == expected(path)


def test_only_a_recorded_model_that_still_holds_is_pinned() -> None:
    from alias_spec.semantics.theorems import all_theorems

    example = _recorded()["satisfiable.flagtree"]["counterexample"]
    theorem = next(t for t in all_theorems() if t.id == "satisfiable.flagtree")
    pinned = gen_smt._theorem_text(theorem, example)
    assert "pin the model" in pinned and "(assert (= 8 src_bits))" in pinned
    stale = json.loads(json.dumps(example))
    stale["request"]["facts"]["src_bits"] = -8  # no request has it (an invariant says so)
    assert "pin the model" not in gen_smt._theorem_text(theorem, stale)
