"""Judge the compiled fla#1241 kernels with ``alias-spec plan --races`` and summarize each verdict.

    python -m tools.plan.fla1241.judge_fla1241 DIR [--python PY] [--all-pairs] [--only NAME ...]

``DIR`` is one release's folder written by ``compile_fla1241.py`` (``OUT/3.6``); ``--python``
the interpreter of that release (its allocator recovers the plan; default: this one). Prints
one JSON object per kernel: the status, the findings (rule and message), how many notes of
each kind, and the race notes in full; with ``--why``, the undecided pairs counted by why
(``Why``: it only records what the check tells ``races.OUTCOME`` of each pair).

``--all-pairs`` lifts the race check's limits for this run only (``races.MAX_PAIRS``, the
unordered pairs judged per function, default 4000; ``races.BUDGET_S``, the seconds for them;
``races.ASK_ALL``, the pairs a partial function no longer asks):
every unordered pair is asked, so that "the first 4000 judged" no longer hides the rest. It
changes no verdict rule, only how far the check goes; the limits are the tool's defaults
otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from alias_spec.plan import races
from alias_spec.plan.api import check_texts


def summary(report: Any) -> dict[str, Any]:
    """What a report says, in the few fields the fla#1241 record keeps."""
    return {
        "status": report.status,
        "shared": report.shared,
        "plan_from": report.plan_from,
        "lowering": report.lowering,
        "findings": [
            {"rule": f.rule, "level": f.level, "message": f.message} for f in report.findings
        ],  # fmt: skip
        "notes": dict(sorted(Counter(n.kind for n in report.notes).items())),
        "race_notes": [n.message for n in report.notes if n.kind.startswith("race.")],
    }


class Why:
    """Records, while the race check runs, what became of every unordered conflicting pair
    (``races.OUTCOME``), so that the pairs the check leaves undecided or does not ask can be
    sorted by why: over two loop-carried values, not decided by the solver, a common byte found
    only where it is not a finding (in flight into a later iteration, an opaque address, a TMA
    load's late reader), not asked once the function is partial, past the time budget or the
    pair limit. Judges nothing itself."""

    def __init__(self) -> None:
        self.outcomes: list[tuple[Any, str]] = []
        self._before = races.OUTCOME

    def __enter__(self) -> Why:
        races.OUTCOME = lambda p, outcome: self.outcomes.append((p, outcome))
        return self

    def __exit__(self, *exc: Any) -> None:
        races.OUTCOME = self._before

    def undecided(self) -> dict[str, int]:
        """How many pairs were left undecided or not asked, per (why, first, second access)."""
        out: Counter[str] = Counter()
        for p, outcome in self.outcomes:
            if outcome in ("apart", "race"):
                continue
            why = outcome.removeprefix("undecided: ")
            flight = " in flight" if p.first.group or p.second.group else ""
            crossed = ", across iterations" if p.crossed else ""
            a, b = (_party(x) for x in (p.first, p.second))
            out[f"{why}{crossed}{flight}: {a} / {b}"] += 1
        return dict(out.most_common())


def _party(x: Any) -> str:
    """An access's kind and the buffers it may touch: ``load in %dh_b_83``."""
    kind = x.access.kind.split(" (")[0]
    within = sorted({label.split(" ")[0] for _, _, label in x.access.within or []})
    return f"{kind} in {', '.join(within) or '?'}"


def judge(ttgir: Path, python: str | None, why: bool = False) -> dict[str, Any]:
    llir = ttgir.with_suffix(".llir")
    with Why() as w:
        report = check_texts(ttgir.read_text(), llir.read_text(), str(ttgir), python,
                             llir_path=str(llir), races=True)  # fmt: skip
    row = summary(report)
    if why:
        row["undecided"] = w.undecided()
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--python", default=None)
    ap.add_argument("--all-pairs", action="store_true")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--why", action="store_true", help="sort the undecided pairs by why")
    args = ap.parse_args(argv)
    if args.all_pairs:
        races.MAX_PAIRS = 10**9
        races.BUDGET_S = 10.0**6
        races.ASK_ALL = True
    for ttgir in sorted(args.dir.glob("*.ttgir")):
        if args.only and ttgir.stem not in args.only:
            continue
        row = {"kernel": ttgir.stem, **judge(ttgir, args.python, args.why)}
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
