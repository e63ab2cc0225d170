"""Generator: the spec as SMT-LIB 2 files under ``solver/``, checkable by any SMT solver.

Every rule, profile and theorem becomes standalone files (declarations, definitions, one
``(check-sat)``) that ``z3 FILE`` or ``cvc5 FILE`` decide without this package. Each file
states what the solver must answer in a ``; expect: sat`` (or ``unsat``) line just before
each ``(check-sat)``:

- ``rules/<id>.smt2``: the rule's guard and formula as ``define-fun``s over the fact
  vocabulary; some fact tuple satisfying the invariants of a parsed request violates it
  (sat).
- ``profiles/<profile>.smt2``: every rule of the profile; some well-formed request satisfies
  them all (sat).
- ``theorems/<id>.smt2``: the queries ``alias-spec prove`` asks. A claim over all requests
  is checked by refuting its negation (unsat), one ``(check-sat)`` per conjunct as ``prove``
  splits it; a finding's negation is satisfiable (sat); an existence claim is satisfiable.

The expectations come from the spec (a theorem's declared outcome), not from running a solver;
``tests/semantics/test_solver_files.py`` runs both solvers' programs over the files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import z3

from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, Rule, compiled, rules_for
from alias_spec.model.facts import FACTS, INVARIANTS, expand

ROOT = "solver"
THEOREMS_JSON = "docs/data/theorems.json"  # the outcomes a prove run stored
HEADER = (
    "; Generated from the tle-alias-spec catalogue by `alias-spec gen`. Do not edit.\n"
    "; Change alias_spec/model/ and regenerate. Check it with `z3 FILE` or `cvc5 FILE`.\n"
)


def _decls() -> list[str]:
    return [
        f"(declare-const {f.name} {'Bool' if f.sort == dsl.BOOL else 'Int'})  ; {f.doc}"
        for f in FACTS
    ]


def _invariants(env: dict[str, z3.ExprRef]) -> list[str]:
    from alias_spec.semantics.z3expr import to_z3

    out = ["; Every fact tuple a well-formed request parses to satisfies these."]
    for text in INVARIANTS:
        out += [f"; {text}", f"(assert {to_z3(expand(text), env).sexpr()})"]
    return out


def _rule_defs(r: Rule, env: dict[str, z3.ExprRef], suffix: str = "") -> list[str]:
    from alias_spec.semantics.z3expr import to_z3

    guard, formula = compiled(r.id)
    return [
        f"; {r.id}: {r.title}",
        f";   guard:   {r.guard}",
        f";   formula: {r.formula}",
        f"(define-fun guard{suffix} () Bool {to_z3(guard, env).sexpr()})",
        f"(define-fun formula{suffix} () Bool {to_z3(formula, env).sexpr()})",
        f"(define-fun holds{suffix} () Bool (=> guard{suffix} formula{suffix}))",
    ]


def _file(what: list[str], expect: str, body: list[str]) -> str:
    lines = [HEADER.rstrip("\n"), *[f"; {w}" for w in what], ""]
    lines += ["(set-logic ALL)", *body, f"; expect: {expect}", "(check-sat)", ""]
    return "\n".join(lines)


def rule_file(r: Rule, recorded: dict[str, Any] | None = None) -> str:
    """``recorded``: the stored prove outcomes by id; a model of ``independent.P.<rule>``
    (the rule fires, no other rule of P does) that still is one is pinned, so that every
    solver decides the file at once (cvc5 searches minutes for some nonlinear rules)."""
    from alias_spec.semantics.z3expr import fact_vars, fires, invariants

    env = fact_vars()
    body = _decls() + [""] + _rule_defs(r, env) + [""] + _invariants(env)
    body += ["", "; Some well-formed request violates the rule.", "(assert (not holds))"]
    what = [f"Rule {r.id} ({', '.join(r.profiles)}): {r.title}.", r.prose]
    query = z3.And(invariants(env), fires(r, env))
    for profile in r.profiles:
        example = ((recorded or {}).get(f"independent.{profile}.{r.id}") or {}).get(
            "counterexample"
        )
        witness = _witness({"request": env}, example)
        if witness and _still_a_model(query, witness):
            what.append(
                f"The last assertions pin the model `alias-spec prove` recorded for "
                f"independent.{profile}.{r.id} (any model would do)."
            )
            body += [f"(assert {w.sexpr()})" for w in witness]
            break
    return _file(what, "sat", body)


def profile_file(profile: str) -> str:
    from alias_spec.semantics.z3expr import fact_vars

    env = fact_vars()
    body = _decls() + [""]
    names = []
    for r in rules_for(profile):
        suffix = "." + r.id
        body += _rule_defs(r, env, suffix)
        names.append(f"holds{suffix}")
    body += [f"(define-fun valid () Bool (and {' '.join(names)}))", ""] + _invariants(env)
    body += ["", "; Some well-formed request is valid under the profile.", "(assert valid)"]
    return _file([f"Profile {profile}: {PROFILES[profile]}."], "sat", body)


def _split(claim: z3.BoolRef) -> tuple[z3.BoolRef, list[tuple[list[z3.BoolRef], z3.BoolRef]]]:
    """``H => (C1 and ...)`` as H and its conjuncts, each with the hypotheses of nested
    implications, the way ``alias-spec prove`` splits a claim into queries."""
    if not z3.is_implies(claim):
        return z3.BoolVal(True), [([], claim)]
    parts: list[tuple[list[z3.BoolRef], z3.BoolRef]] = []
    todo: list[tuple[list[z3.BoolRef], z3.BoolRef]] = [([], claim.arg(1))]
    while todo:
        extra, c = todo.pop(0)
        if z3.is_and(c):
            todo = [(extra, x) for x in c.children()] + todo
        elif z3.is_implies(c):
            todo = [([*extra, c.arg(0)], c.arg(1))] + todo
        else:
            parts.append((extra, c))
    return claim.arg(0), parts


def _declarations(terms: list[z3.BoolRef]) -> list[str]:
    s = z3.Solver()
    s.add(*terms)
    return [line for line in s.to_smt2().splitlines() if line.startswith("(declare-")]


def _query_file(what: list[str], checks: list[tuple[list[z3.BoolRef], str]]) -> str:
    """Declarations, then one push/check-sat/pop per (assertions, expected answer)."""
    every = [a for asserts, _ in checks for a in asserts]
    body = _declarations(every)
    shared = [a for a in checks[0][0] if all(any(a.eq(b) for b in c) for c, _ in checks)]
    body += [f"(assert {a.sexpr()})" for a in shared]
    lines = [HEADER.rstrip("\n"), *[f"; {w}" for w in what]]
    lines += ["; Each (check-sat) is preceded by the answer it expects.", "", "(set-logic ALL)"]
    lines += body
    for asserts, expect in checks:
        own = [a for a in asserts if not any(a.eq(b) for b in shared)]
        if len(checks) > 1:
            lines.append("(push 1)")
        lines += [f"(assert {a.sexpr()})" for a in own]
        lines += [f"; expect: {expect}", "(check-sat)"]
        if len(checks) > 1:
            lines.append("(pop 1)")
    return "\n".join(lines) + "\n"


def theorem_files(recorded: dict[str, Any]) -> list[tuple[str, Callable[[], str]]]:
    """(path, generator) per theorem, in the order ``alias-spec prove`` lists them;
    ``recorded``: the outcomes a prove run stored (docs/data/theorems.json), by id."""
    from alias_spec.semantics import theorems, triton_theorems

    out: list[tuple[str, Callable[[], str]]] = []
    for t in theorems.all_theorems() + triton_theorems.all_theorems():
        example = (recorded.get(t.id) or {}).get("counterexample")
        out.append((f"{ROOT}/theorems/{t.id}.smt2", lambda t=t, e=example: _theorem_text(t, e)))
    return out


def _witness(envs: dict[str, Any], example: dict[str, Any] | None) -> list[z3.BoolRef]:
    """The recorded model's facts as equalities: a satisfiable query with them stays so,
    and every solver decides it at once (nonlinear integer search can take cvc5 minutes)."""
    out: list[z3.BoolRef] = []
    for role, env in envs.items():
        facts = ((example or {}).get(role) or {}).get("facts") or {}
        for name, value in facts.items():
            if name in env:
                v = z3.BoolVal(value) if isinstance(value, bool) else z3.IntVal(int(value))
                out.append(env[name] == v)
    return out


def _still_a_model(query: z3.BoolRef, witness: list[z3.BoolRef]) -> bool:
    """Whether the pinned values still extend to a model of ``query``: one recorded before
    the rules changed may not (then the file pins nothing). With every fact pinned z3
    answers in milliseconds, sat or unsat, never unknown (no time limit is set)."""
    s = z3.Solver()
    s.add(query, *witness)
    return s.check() == z3.sat


def _theorem_text(t: Any, example: dict[str, Any] | None = None) -> str:
    claim, envs = t.build()
    head = [f"Theorem {t.id} ({t.profile}): {t.statement}."]
    witness = _witness(envs, example)
    query = claim if t.kind == "exists" else z3.Not(claim)
    if witness and not _still_a_model(query, witness):
        witness = []
    if witness:
        head.append(
            "The last assertions pin the model `alias-spec prove` recorded (any model would do):"
            " they make the check quick for every solver."
        )
    if t.kind == "exists":
        head.append("An existence claim: satisfiable when it holds.")
        expect = "sat" if t.expect_holds else "unsat"
        return _query_file(head, [([claim, *witness], expect)])
    if not t.expect_holds:  # a finding: its negation has a model (the counterexample)
        head.append("A finding: the claim fails, so its negation is satisfiable.")
        return _query_file(head, [([z3.Not(claim), *witness], "sat")])
    hyp, parts = _split(claim)
    head.append(
        f"Proved: each of its {len(parts)} conjuncts' negation has no model."
        if len(parts) > 1
        else "Proved: its negation has no model."
    )
    checks = [([hyp, *extra, z3.Not(c)], "unsat") for extra, c in parts]
    return _query_file(head, checks)


def readme(paths: list[str]) -> str:
    lines = [
        "<!-- Generated by `alias-spec gen`. Do not edit. -->",
        "# The spec as SMT-LIB 2",
        "",
        "Every rule, profile and theorem of the catalogue as standalone SMT-LIB 2 files, for any",
        "SMT solver, without this package: `z3 FILE` or `cvc5 FILE` prints one answer per",
        "`(check-sat)`, which the `; expect:` line before it states. Facts are the rules'",
        "vocabulary (one constant each,",
        "documented where it is declared); the invariants every parsed request satisfies are",
        "asserted in each file.",
        "",
        "- `rules/`: each rule's guard and formula; a well-formed request violates it (`sat`).",
        "- `profiles/`: each profile's rules; a well-formed request satisfies them (`sat`).",
        "- `theorems/`: what `alias-spec prove` proves. A claim over all requests is its",
        "  negation shown `unsat` (one `(check-sat)` per conjunct); a finding's negation is",
        "  `sat` (a counterexample exists); an existence claim is `sat`.",
        "",
        "```sh",
        "for f in solver/*/*.smt2; do",
        '  echo "$f: $(z3 "$f") (expect $(sed -n "s/^; expect: //p" "$f"))"',
        "done",
        "```",
        "",
        f"{len(paths)} files.",
        "",
    ]
    return "\n".join(lines)


def targets(root: Path) -> list[tuple[str, Callable[[], str]]]:
    """(path relative to the checkout ``root``, generator) for every file under
    ``solver/``; the theorems' recorded models are read from ``root``."""
    path = root / THEOREMS_JSON
    recorded = (
        {t["id"]: t for t in json.loads(path.read_text())["theorems"]} if path.is_file() else {}
    )
    out: list[tuple[str, Callable[[], str]]] = [
        (f"{ROOT}/rules/{r.id}.smt2", lambda r=r: rule_file(r, recorded)) for r in RULES
    ]
    out += [(f"{ROOT}/profiles/{p}.smt2", lambda p=p: profile_file(p)) for p in PROFILES]
    out += theorem_files(recorded)
    paths = [p for p, _ in out]
    out.append((f"{ROOT}/README.md", lambda: readme(paths)))
    return out
