"""Mutation testing: break one rule in one backend and check the differential suite notices.

A mutation edits the catalogue, never a generated file: the rule is removed, or the first
comparison of its formula is flipped (``<`` to ``<=``, ``==`` to ``!=``, ...; a formula
without comparisons has its first boolean fact negated). The real generators then run on the
mutated catalogue (a ``Spec``) into a temporary directory (``gen_python.generate``,
``gen_cpp.generate``), and the real interpreter evaluates the mutated formula trees. Each
mutant backend judges the suite's cases; it is killed when it disagrees with the un-mutated
interpreter on one of them.

The C++ mutants are compiled together into one program: each generated header is included
under its own namespace (``#define tle_alias tle_alias_mK``), so one g++ run builds them all.
A "none" mutation (the catalogue unchanged, generated the same way) must survive: it shows
that a kill comes from the mutation, not from the mutant plumbing.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_spec.difftest import fuzz
from alias_spec.difftest.outcomes import ZERO_DIVISION, Case, Outcome, in_int64
from alias_spec.difftest.z3_boundary import nodes
from alias_spec.engines import registry
from alias_spec.engines.py_engine import PythonEngine
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import PROFILES, Rule
from alias_spec.model.facts import FACTS

# The engines mutated: the registry's campaign engines built from the catalogue's rules by the
# code mutated here (the interpreter's trees, the Python and C++ generators); z3's terms
# (``semantics.z3expr``) have no mutant.
BACKENDS = tuple(n for n in registry.FAST if n != "z3")
KINDS = ("deleted", "flipped")
FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_BOOL_FACTS = frozenset(f.name for f in FACTS if f.sort == dsl.BOOL)


@dataclass(frozen=True)
class Mutation:
    rule: str  # the rule broken ("none" for the unchanged catalogue)
    kind: str  # deleted | flipped | none
    detail: str  # what changed, for the report
    rules: tuple[Rule, ...]  # the whole mutated catalogue

    @property
    def name(self) -> str:
        return f"{self.rule}:{self.kind}"


def _flip_first(e: dsl.Expr, want: Any) -> tuple[dsl.Expr, bool]:
    """Rewrite the first node (pre-order) that ``want`` returns a replacement for."""
    new = want(e)
    if new is not None:
        return new, True
    args, done = [], False
    for a in e.args:
        if not done:
            a, done = _flip_first(a, want)
        args.append(a)
    return dsl.Expr(e.op, tuple(args), e.value), done


def flip_top(formula: dsl.Expr) -> dsl.Expr:
    """The first comparison flipped; without one, the first boolean fact negated."""

    def comparison(e: dsl.Expr) -> dsl.Expr | None:
        return dsl.Expr(FLIP[e.op], e.args, e.value) if e.op in FLIP else None

    def boolean(e: dsl.Expr) -> dsl.Expr | None:
        return dsl.Expr("not", (e,)) if e.op == "var" and e.value in _BOOL_FACTS else None

    out, done = _flip_first(formula, comparison)
    if not done:
        out, done = _flip_first(formula, boolean)
    if not done:
        raise ValueError(f"nothing to flip in {dsl.to_text(formula)}")
    return out


def flip_each(formula: dsl.Expr) -> Iterator[dsl.Expr]:
    """Every comparison flipped, one at a time (the extended mutant set)."""

    def flip_kth(e: dsl.Expr, k: int, seen: list[int]) -> dsl.Expr:
        if e.op in FLIP:
            seen[0] += 1
            if seen[0] == k:
                return dsl.Expr(FLIP[e.op], e.args, e.value)
        return dsl.Expr(e.op, tuple(flip_kth(a, k, seen) for a in e.args), e.value)

    count = sum(1 for n in nodes(formula) if n.op in FLIP)
    for k in range(count):
        yield flip_kth(formula, k, [-1])


def _replaced(rules: tuple[Rule, ...], i: int, formula: dsl.Expr) -> tuple[Rule, ...]:
    text = dsl.to_text(formula)
    new = rules[i].model_copy(update={"formula": text})
    new.formula_expr()  # still well-sorted
    return rules[:i] + (new,) + rules[i + 1 :]


def mutations(
    every_comparison: bool = False, only: Collection[str] | None = None
) -> list[Mutation]:
    """Every rule deleted and every rule's top comparison flipped (with ``every_comparison``:
    each of its comparisons flipped in turn); ``only`` limits the rules mutated."""
    rules = catalogue.RULES
    out = []
    for i, r in enumerate(rules):
        if only is not None and r.id not in only:
            continue
        out.append(Mutation(r.id, "deleted", "rule removed", rules[:i] + rules[i + 1 :]))
        tree = dsl.parse(r.formula)
        flips = list(flip_each(tree)) if every_comparison else [flip_top(tree)]
        if every_comparison and not flips:
            flips = [flip_top(tree)]
        for k, flipped in enumerate(flips):
            kind = "flipped" if k == 0 else f"flipped#{k + 1}"
            detail = f"{dsl.to_text(tree)}  ->  {dsl.to_text(flipped)}"
            out.append(Mutation(r.id, kind, detail, _replaced(rules, i, flipped)))
    return out


def unchanged() -> Mutation:
    return Mutation("none", "none", "catalogue unchanged", catalogue.RULES)


@contextmanager
def catalogue_as(rules: tuple[Rule, ...]) -> Iterator[None]:
    """Make ``rules`` the catalogue for the duration: every loaded module that bound the
    catalogue's RULES tuple sees the mutated one, and the trees cached from it are cleared.
    Only the interpreter's mutants need it; the generators take the mutated ``Spec``."""
    original = catalogue.RULES
    patched = [m for m in list(sys.modules.values())
               if m is not None and getattr(m, "RULES", None) is original]  # fmt: skip

    def clear() -> None:
        for m in patched:
            for value in vars(m).values():
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()

    for m in patched:
        m.RULES = rules  # type: ignore[attr-defined]
    clear()
    try:
        yield
    finally:
        for m in patched:
            m.RULES = original  # type: ignore[attr-defined]
        clear()


# --- the mutant backends ------------------------------------------------------------------------


def python_mutant(m: Mutation, directory: Path, index: int) -> Any:
    """The generated Python module of the mutated catalogue, imported from ``directory``."""
    from alias_spec.backends import gen_python

    text = gen_python.generate(catalogue.Spec(m.rules, catalogue.PROFILES))
    path = directory / f"alias_checks_mutant_{index}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"alias_checks_mutant_{index}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SIGNATURE = "void run_m{k}(const std::vector<long long> &v, int p, std::string &out)"


def _part(ks: Sequence[int]) -> str:
    """Mutants ``ks``: each generated header under its own namespace, and a runner."""
    out = ["#include <cstddef>", "#include <string>", "#include <vector>", ""]
    for k in ks:
        out += [
            f"#define tle_alias tle_alias_m{k}",
            f'#include "m{k}/alias_rules.h"',
            "#undef TLE_ALIAS_RULES_H",
            _SIGNATURE.format(k=k) + " {",
            "  tle_alias::Facts f;",
            "  for (std::size_t i = 0; i < v.size(); ++i) tle_alias::set_fact(f, i, v[i]);",
            "  for (const auto &x : tle_alias::check(f, static_cast<tle_alias::Profile>(p))) {",
            "    out += x.id;",
            "    out += ',';",
            "  }",
            "}",
            "#undef tle_alias",
            "",
        ]
    return "\n".join(out)


def _main(n: int) -> str:
    """Reads the indices of the mutants to run (first line), then fact lines (FACTS order,
    then a profile index); writes, per fact line, each chosen mutant's fired rule ids
    (comma-terminated), mutants separated by spaces."""
    out = ["#include <cstddef>", "#include <iostream>", "#include <sstream>", "#include <string>",
           "#include <vector>"]  # fmt: skip
    out += [_SIGNATURE.format(k=k) + ";" for k in range(n)]
    out += ["using Runner = void (*)(const std::vector<long long> &, int, std::string &);"]
    out += ["static const Runner kRunners[] = {" + ", ".join(f"run_m{k}" for k in range(n)) + "};"]
    out += [
        "int main() {",
        "  std::ios::sync_with_stdio(false);",
        "  std::string line, out;",
        "  std::vector<std::size_t> active;",
        "  if (!std::getline(std::cin, line)) return 2;",
        "  {",
        "    std::istringstream in(line);",
        "    std::size_t k = 0;",
        f"    while (in >> k) if (k < {n}) active.push_back(k); else return 2;",
        "  }",
        f"  std::vector<long long> v({len(FACTS)});",
        "  while (std::getline(std::cin, line)) {",
        "    std::istringstream in(line);",
        "    for (auto &x : v) in >> x;",
        "    int p = 0;",
        "    in >> p;",
        "    if (!in) return 2;",
        "    for (std::size_t k : active) {",
        "      kRunners[k](v, p, out);",
        "      out += ' ';",
        "    }",
        "    out += '\\n';",
        "  }",
        "  std::cout << out;",
        "  return 0;",
        "}",
        "",
    ]
    return "\n".join(out)


def build_cpp_mutants(ms: Sequence[Mutation], directory: Path, jobs: int = 0) -> Path:
    """One program judging every case with every mutant header. The headers are split over
    ``jobs`` translation units (default: one per CPU) compiled in parallel, at -O0: the
    mutants' meaning, not their speed, is under test."""
    from alias_spec.backends import gen_cpp
    from alias_spec.engines import cpp_engine

    cxx = cpp_engine.compiler()
    if cxx is None:
        raise cpp_engine.CppEngineError("no C++ compiler found (set CXX or install g++)")
    for k, m in enumerate(ms):
        text = gen_cpp.generate(catalogue.Spec(m.rules, catalogue.PROFILES))
        (directory / f"m{k}").mkdir(exist_ok=True)
        (directory / f"m{k}" / "alias_rules.h").write_text(text)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(ms)))
    sources = [directory / "main.cpp"]
    sources[0].write_text(_main(len(ms)))
    for j in range(jobs):
        src = directory / f"part{j}.cpp"
        src.write_text(_part(range(j, len(ms), jobs)))
        sources.append(src)
    flags = ["-std=c++17", "-O0", "-I", str(directory)]
    procs = [
        subprocess.Popen(
            [cxx, *flags, "-c", str(s), "-o", str(s.with_suffix(".o"))],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for s in sources
    ]
    errors = [p.communicate()[1] for p in procs]  # waits for each compiler
    if any(p.returncode != 0 for p in procs):
        raise cpp_engine.CppEngineError(f"building the mutants failed:\n{''.join(errors)[-4000:]}")
    binary = directory / "mutants"
    link = [cxx, *[str(s.with_suffix(".o")) for s in sources], "-o", str(binary)]
    proc = subprocess.run(link, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise cpp_engine.CppEngineError(f"linking the mutants failed:\n{proc.stderr[-4000:]}")
    return binary


def run_cpp_mutants(
    binary: Path, cases: Sequence[Case], active: Sequence[int]
) -> dict[int, list[Outcome]]:
    """Outcomes of the ``active`` mutants (by index) on each case; None outside int64."""
    index = {p: i for i, p in enumerate(PROFILES)}
    names = [f.name for f in FACTS]
    lines, where = [" ".join(str(k) for k in active)], []
    for i, c in enumerate(cases):
        if in_int64(c.facts):
            values = [str(int(c.facts[x])) for x in names]
            lines.append(" ".join(values + [str(index[c.profile])]))
            where.append(i)
    out: dict[int, list[Outcome]] = {k: [None] * len(cases) for k in active}
    proc = subprocess.run([str(binary)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, check=False)  # fmt: skip
    rows = proc.stdout.split("\n")
    if proc.returncode != 0 or len(rows) < len(where):
        raise RuntimeError(f"mutant program failed ({proc.returncode}): {proc.stderr[-2000:]}")
    for i, row in zip(where, rows[: len(where)], strict=True):
        for k, field in zip(active, row.split(" "), strict=False):
            out[k][i] = tuple(x for x in field.split(",") if x)
    return out


def _cpp_kills(
    binary: Path, cases: Sequence[Case], reference: Sequence[Outcome], n: int
) -> list[int | None]:
    """First killing case per mutant. Cases go through in chunks and a killed mutant stops
    running; mutant 0 (the unchanged control) runs on every case."""
    kills: list[int | None] = [None] * n
    chunk = 2000
    for start in range(0, len(cases), chunk):
        active = [k for k in range(n) if k == 0 or kills[k] is None]
        got = run_cpp_mutants(binary, cases[start : start + chunk], active)
        for k in active:
            i = _first_kill(got[k], reference[start : start + chunk])
            if i is not None and kills[k] is None:
                kills[k] = start + i
    return kills


# --- scoring --------------------------------------------------------------------------------------


@dataclass
class Result:
    mutation: Mutation
    backend: str
    killed_by: Case | None  # the first suite case on which the mutant disagreed
    index: int | None  # its position in the suite

    @property
    def killed(self) -> bool:
        return self.killed_by is not None


def _first_kill(outcomes: Sequence[Outcome], reference: Sequence[Outcome]) -> int | None:
    for i, (got, want) in enumerate(zip(outcomes, reference, strict=True)):
        if got is not None and want is not None and got != want:
            return i
    return None


def run_mutants(
    cases: Sequence[Case],
    ms: Sequence[Mutation] | None = None,
    backends: Sequence[str] = BACKENDS,
) -> list[Result]:
    """Judge the suite with every mutant of every backend; the unchanged catalogue comes
    first (as a control, expected to survive)."""
    ms = [unchanged(), *(mutations() if ms is None else ms)]
    interp = registry.engine("interp").outcome
    reference = [interp(c.facts, c.profile) for c in cases]
    # The C++ header has no verdict where the spec divides by zero (it returns 0 there).
    cpp_reference = [None if r == ZERO_DIVISION else r for r in reference]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="alias-mutants-") as tmp:
        directory = Path(tmp)
        if "cpp" in backends:
            binary = build_cpp_mutants(ms, directory)
            kills = _cpp_kills(binary, cases, cpp_reference, len(ms))
            for m, i in zip(ms, kills, strict=True):
                results.append(Result(m, "cpp", None if i is None else cases[i], i))
        for k, m in enumerate(ms):
            if "python" in backends:
                run = PythonEngine(python_mutant(m, directory, k)).outcome
                i = _first_kill_lazy(run, cases, reference)
                results.append(Result(m, "python", None if i is None else cases[i], i))
            if "interp" in backends:
                with catalogue_as(m.rules):
                    mutant = registry.engine("interp").outcome  # reads the mutated rules
                    i = _first_kill_lazy(mutant, cases, reference)
                results.append(Result(m, "interp", None if i is None else cases[i], i))
    return results


def _first_kill_lazy(engine: Any, cases: Sequence[Case], reference: Sequence[Outcome]):
    for i, c in enumerate(cases):
        if engine(c.facts, c.profile) != reference[i]:
            return i
    return None


def score(results: Sequence[Result]) -> tuple[int, int]:
    """(killed, total) over the real mutants (the unchanged control excluded)."""
    real = [r for r in results if r.mutation.kind != "none"]
    return sum(r.killed for r in real), len(real)


def report(results: Sequence[Result]) -> str:
    killed, total = score(results)
    lines = [f"mutation score: {killed}/{total} = {100.0 * killed / max(total, 1):.1f}%"]
    by_source = Counter(r.killed_by.source for r in results if r.killed_by is not None
                        and r.mutation.kind != "none")  # fmt: skip
    lines.append(f"  first killed by: {dict(by_source)}")
    for r in results:
        if r.mutation.kind == "none":
            status = "control survived" if not r.killed else "CONTROL KILLED (plumbing bug)"
            lines.append(f"  {r.backend:>6} unchanged catalogue: {status}")
        elif not r.killed:
            lines.append(f"  SURVIVED {r.backend} {r.mutation.name}: {r.mutation.detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``alias-spec dev mutate [--every-comparison]``: print the mutation score of the
    differential suite; exit 1 when a mutant survives."""
    p = argparse.ArgumentParser(
        prog="alias-spec dev mutate",
        description="Break each rule in each backend (interpreter trees, generated Python, "
        "generated C++): the rule deleted, or the first comparison of its formula flipped, and "
        "check that the differential suite kills every mutant. Exit 0 when all are killed, "
        "1 otherwise. Takes under a minute; needs a C++ compiler (CXX, else g++).",
    )
    p.add_argument(
        "--every-comparison",
        action="store_true",
        help="flip every comparison of every rule in turn, not only the first",
    )
    return score_suite(p.parse_args(argv).every_comparison)


def score_suite(every_comparison: bool = False, seed: int = 0) -> int:
    """Print the mutation score of the differential suite; 0 when every mutant is killed."""
    t = time.perf_counter()
    cases = fuzz.suite(seed)
    results = run_mutants(cases, mutations(every_comparison))
    print(report(results))
    print(f"  {len(cases)} suite cases, {time.perf_counter() - t:.1f} s")
    killed, total = score(results)
    return 0 if killed == total else 1
