"""Compile the ConSan scenarios for sm_90 and judge them with ``alias-spec plan --races``.

    python -m tools.plan.consan.consan_judge [--write] [--only NAME ...]

Each case of ``tests/plan/cases/consan/consan_kernels.py`` is compiled on the CPU by the
installed Triton (no GPU) and judged by ``check_texts(ttgir, llir, races=True)``; one line per
case is printed, then the counts.
``--write`` writes ``consan_table.json`` beside the kernels: a snapshot of the verdicts as they
were when it was written (the Triton release and the date are in it), which
``tests/plan/test_plan_consan.py`` recomputes and compares.

Verdicts: ``race`` (a ``plan.race`` or ``plan.race.proxy`` finding), ``clean`` (proved free of
races), ``partial`` (nothing found, something not judged: ``reason`` is the first note's message
with its LLVM IR line numbers cut), ``finding`` (a finding of another rule) or ``not compiled``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import tempfile
import time
from typing import Any

from tests.paths import PLAN_CASES

TABLE = PLAN_CASES / "consan" / "consan_table.json"
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="consan-judge-"))

from tests.plan.cases.consan import consan_kernels as kernels  # noqa: E402

VERDICTS = ("race", "clean", "partial", "finding", "not compiled")


def compile_case(case: kernels.Case) -> Any:
    """The case compiled for sm_90 by the installed Triton."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    src = GluonASTSource(case.fn, signature=dict(case.signature),
                         constexprs=dict(case.constexprs))  # fmt: skip
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": case.num_warps})  # fmt: skip


def _deep(fn: Any) -> Any:
    """Run fn on a thread with room for the evaluator's recursion (check_lowering's own)."""
    from alias_spec.plan.llir import on_deep_stack

    return on_deep_stack(fn)


def _reason(message: str) -> str:
    """A note's message without what moves when the compiler does (line numbers, values):
    what stays is why the pair or access was not judged."""
    text = re.sub(r"\bline \d+\b", "line N", message)
    text = re.sub(r"\blines? [\d, and]+\b", "lines N", text)
    text = re.sub(r"%[\w.]+", "%v", text)
    return re.sub(r"\d+", "N", text)


def verdict(report: Any) -> dict[str, Any]:
    """The table's row for a report: the verdict and, unless clean, why."""
    races = [f for f in report.findings if f.rule in ("plan.race", "plan.race.proxy")]
    if races:
        return {"verdict": "race", "reason": _reason(races[0].message)}
    if report.findings:
        return {"verdict": "finding", "reason": report.findings[0].rule}
    if report.status == "clean":
        return {"verdict": "clean", "reason": ""}
    kinds = sorted({n.kind for n in report.notes})
    first = next((n for n in report.notes if n.kind.startswith("race")), report.notes[0])
    return {"verdict": "partial", "reason": _reason(first.message), "note_kinds": kinds}


def judge(case: kernels.Case) -> dict[str, Any]:
    """One case's row: what ConSan expects and what ``--races`` says."""
    from alias_spec.plan.api import check_texts

    row: dict[str, Any] = {"test": case.test, "consan": case.consan, "checks": case.checks,
                           "scenario": case.scenario}  # fmt: skip
    t0 = time.perf_counter()
    try:
        compiled = compile_case(case)
    except Exception as exc:  # noqa: BLE001 - recorded: a scenario this release cannot build
        lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
        row.update(verdict="not compiled", reason=f"{type(exc).__name__}: {lines[-1][:200]}")
        return row
    t1 = time.perf_counter()
    report = _deep(lambda: check_texts(compiled.asm["ttgir"], compiled.asm["llir"],
                                       f"{case.name}.ttgir", races=True))  # fmt: skip
    row.update(verdict(report))
    row["seconds"] = {"compile": round(t1 - t0, 1), "judge": round(time.perf_counter() - t1, 1)}
    return row


def counts(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Verdicts counted per ConSan expectation: {"fail": {"race": n, ...}, "pass": {...}}."""
    out: dict[str, dict[str, int]] = {e: {v: 0 for v in VERDICTS} for e in ("fail", "pass")}
    for row in rows.values():
        out[row["consan"]][row["verdict"]] += 1
    return out


def guide_table(doc: dict[str, Any]) -> list[str]:
    """The counts as the lines of the guide's table (docs/guides/plan.md, "ConSan's tests")."""
    c = doc["counts"]
    lines = ["| ConSan expects | kernels | race finding | partial | clean |",
             "| --- | --- | --- | --- | --- |"]  # fmt: skip
    for exp, label in (("fail", "to stop the kernel"), ("pass", "to let it run")):
        n = sum(c[exp].values())
        lines.append(f"| {label} | {n} | {c[exp]['race']} | {c[exp]['partial']} | "
                     f"{c[exp]['clean']} |")  # fmt: skip
    return lines


def table(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    import triton

    return {
        "about": "Snapshot: ConSan's Hopper test scenarios judged by alias-spec plan --races "
                 "(python -m tools.plan.consan.consan_judge --write)",
        "triton": triton.__version__,
        "target": "cuda:90",
        "date": datetime.date.today().isoformat(),
        "skipped_blackwell": kernels.SKIPPED,
        "counts": counts(rows),
        "cases": {name: {k: v for k, v in row.items() if k != "seconds"}
                  for name, row in rows.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write consan_table.json")
    ap.add_argument("--only", nargs="*", default=None, help="case names (prefixes)")
    args = ap.parse_args(argv)
    rows: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for case in kernels.cases():
        if args.only and not any(case.name.startswith(p) for p in args.only):
            continue
        row = judge(case)
        rows[case.name] = row
        secs = row.get("seconds", {})
        print(f"{case.name:52} consan {case.consan:4}  {row['verdict']:8} "
              f"{secs.get('compile', '-')}s+{secs.get('judge', '-')}s  {row['reason'][:90]}",
              flush=True)  # fmt: skip
    print(json.dumps(counts(rows)), f"{time.perf_counter() - t0:.0f}s")
    if args.write:
        if args.only:
            ap.error("--write needs every case (no --only)")
        TABLE.write_text(json.dumps(table(rows), indent=1, sort_keys=False) + "\n")
        print(f"wrote {TABLE.name}; the guide's table:")
        print("\n".join(guide_table(table(rows))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
