"""Judge every kernel of a captured Triton cache with ``alias-spec plan``, on several cores.

    python judge.py CACHE_DIR... [--jobs N] [--out TABLE.json]

A cache directory holds one folder per kernel with its ``.ttgir``, ``.llir`` and metadata
``.json`` (what ``capture.py`` packs). Each kernel is judged in a worker process (its plan
recovered by this interpreter's Triton), bounded by ``--timeout`` seconds. Prints one line per
kernel and a summary: statuses, the partial reasons counted, findings, and plan time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, TimeoutError
from pathlib import Path
from typing import Any


def kernels(roots: list[Path]) -> list[tuple[str, Path]]:
    """(library, kernel folder) for each folder that holds a TTGIR and an LLVM IR."""
    out = []
    for root in roots:
        for d in sorted(p for p in root.rglob("*") if p.is_dir()):
            if any(d.glob("*.ttgir")) and any(d.glob("*.llir")):
                out.append((root.name, d))
    return out


def _reason(message: str) -> str:
    """A note's kind of reason, without the numbers and names that vary."""
    m = re.search(r"(not bounded|known only by their bounds|ran out of time|not modelled|"
                  r"not judged|unknown|not readable)", message)  # fmt: skip
    return m.group(1) if m else message[:60]


def judge_one(folder: str) -> dict[str, Any]:
    from alias_spec.plan.api import check_texts

    d = Path(folder)
    ttgir = next(d.glob("*.ttgir"))
    llir = next(d.glob("*.llir"))
    meta = {}
    for j in d.glob("*.json"):
        try:
            meta = json.loads(j.read_text())
            break
        except ValueError:
            continue
    t0 = time.perf_counter()
    try:
        r = check_texts(ttgir.read_text(), llir.read_text(), str(ttgir), llir_path=str(llir))
        rec = {"status": r.status, "findings": [f.message for f in r.findings],
               "notes": [n.message for n in r.notes], "shared": r.shared}  # fmt: skip
    except Exception as exc:  # a verdict for every kernel: an error is one
        rec = {"status": "error", "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    rec.update(kernel=ttgir.stem, folder=d.name, plan_s=round(time.perf_counter() - t0, 3),
               meta_shared=meta.get("shared"), num_warps=meta.get("num_warps"),
               num_stages=meta.get("num_stages"))  # fmt: skip
    return rec


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("caches", nargs="+", type=Path)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--out", type=Path)
    p.add_argument("--snapshot", type=Path, help="write the verdicts as the test's snapshot")
    args = p.parse_args(argv)
    todo = kernels(args.caches)
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        futs = [(lib, d, pool.submit(judge_one, str(d))) for lib, d in todo]
        for i, (lib, d, fut) in enumerate(futs, 1):
            try:
                rec = fut.result(timeout=args.timeout)
            except TimeoutError:
                rec = {"status": "timeout", "kernel": d.name, "folder": d.name}
            rec["library"] = lib
            rows.append(rec)
            said = (rec.get("findings") or rec.get("notes") or [rec.get("error", "")])[:1]
            print(f"[{i}/{len(futs)}] {lib} {rec.get('kernel')} {rec['status']} "
                  f"{rec.get('plan_s', '')} {said[0][:200] if said else ''}", flush=True)  # fmt: skip
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
        doc = {"note": "snapshot written by judge.py --snapshot; see tests/test_plan_realworld.py",
               "summary": summary, "kernels": dict(sorted(snap.items()))}  # fmt: skip
        args.snapshot.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
