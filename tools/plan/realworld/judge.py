"""Judge every kernel of captured Triton caches, as ``alias-spec plan DIR`` does, and keep the
verdicts as the test's snapshot.

    python -m tools.plan.realworld.judge CACHE_DIR... [--jobs N] [--out TABLE.json]
        [--snapshot tests/plan/cases/realworld/verdicts.snapshot.json]

A cache directory holds one folder per kernel with its ``.ttgir``, ``.llir`` and metadata
``.json`` (what ``capture.py`` packs). The judging is ``alias_spec.plan.batch`` (one worker
process per job, each kernel bounded by ``--timeout`` seconds); this adds the library each
kernel comes from, the partial reasons counted and the snapshot ``test_plan_realworld.py``
compares with.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from alias_spec.plan import batch


def kernels(roots: list[Path]) -> list[tuple[str, Path]]:
    """(library, kernel folder) for each kernel under the roots."""
    return [(root.name, Path(k.ttgir).parent) for root in roots for k in batch.find_kernels(root)]


def _reason(message: str) -> str:
    """A note's kind of reason, without the numbers and names that vary."""
    m = re.search(r"(not bounded|known only by their bounds|ran out of time|not modelled|"
                  r"not judged|unknown|not readable)", message)  # fmt: skip
    return m.group(1) if m else message[:60]


def record(verdict: batch.KernelVerdict, folder: Path) -> dict[str, Any]:
    """The row of one verdict: status, findings and notes (or the error), timing and the
    metadata the snapshot and ``test_plan_realworld.py`` read."""
    rec: dict[str, Any] = {"status": verdict.status}
    if verdict.error is not None:
        rec["error"] = verdict.error
    else:
        rec.update(findings=verdict.messages("findings"), notes=verdict.messages("notes"),
                   shared=(verdict.report or {}).get("shared"))  # fmt: skip
    rec.update(kernel=Path(verdict.file).stem, folder=folder.name, plan_s=verdict.seconds,
               meta_shared=verdict.meta.get("shared"), num_warps=verdict.meta.get("num_warps"),
               num_stages=verdict.meta.get("num_stages"))  # fmt: skip
    return rec


def judge_one(folder: str) -> dict[str, Any]:
    """The verdict of the one kernel in ``folder``, in this process."""
    (kernel,) = batch.find_kernels(folder)
    return record(batch.judge_files(kernel), Path(folder))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("caches", nargs="+", type=Path)
    p.add_argument("--jobs", type=int, default=None, help="default: every core")
    p.add_argument("--timeout", type=float, default=batch.TIMEOUT_S)
    p.add_argument("--out", type=Path)
    p.add_argument("--snapshot", type=Path, help="write the verdicts as the test's snapshot")
    args = p.parse_args(argv)
    found = [(root.name, k) for root in args.caches for k in batch.find_kernels(root)]
    rows: list[dict[str, Any]] = [{}] * len(found)
    stream = batch.judge_kernels([k for _, k in found], args.jobs, None, args.timeout)
    for done, (index, verdict) in enumerate(stream, 1):
        lib = found[index][0]
        rec = record(verdict, Path(verdict.file).parent)
        rec["library"] = lib
        rows[index] = rec
        said = (rec.get("findings") or rec.get("notes") or [rec.get("error", "")])[:1]
        print(f"[{done}/{len(found)}] {lib} {rec['kernel']} {rec['status']} "
              f"{rec['plan_s']} {said[0][:200] if said else ''}", flush=True)  # fmt: skip
    print(batch.Summary.of((r["kernel"], r["status"]) for r in rows).table())
    summary = {
        "kernels": len(rows),
        "status": Counter(r["status"] for r in rows),
        "by_library": {
            lib: Counter(r["status"] for r in rows if r["library"] == lib)
            for lib in sorted({r["library"] for r in rows})
        },  # fmt: skip
        "partial_reasons": Counter(
            _reason(r["notes"][0]) for r in rows if r["status"] == "partial"
        ),  # fmt: skip
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "kernels": rows}, indent=1) + "\n")
    if args.snapshot:
        snap = {f"{r['library']}/{r['folder']}": {
            "kernel": r.get("kernel"), "status": r["status"],
            **({"reason": _reason(r["notes"][0])} if r["status"] == "partial" else {})}
            for r in rows}  # fmt: skip
        doc = {"note": "snapshot written by tools/plan/realworld/judge.py --snapshot; see "
                       "tests/plan/test_plan_realworld.py",
               "summary": summary, "kernels": dict(sorted(snap.items()))}  # fmt: skip
        args.snapshot.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
