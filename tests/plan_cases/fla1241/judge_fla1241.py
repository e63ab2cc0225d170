"""Judge the compiled fla#1241 kernels with ``alias-spec plan --races`` and summarize each verdict.

    python tests/plan_cases/fla1241/judge_fla1241.py DIR [--python PY] [--all-pairs] [--only NAME ...]

``DIR`` is one release's folder written by ``compile_fla1241.py`` (``OUT/3.6``); ``--python``
the interpreter of that release (its allocator recovers the plan; default: this one). Prints
one JSON object per kernel: the status, the findings (rule and message), how many notes of
each kind, and the race notes in full; with ``--why``, the undecided pairs counted by why
(``Why``: it only records what the check asks its solver).

``--all-pairs`` lifts the race check's limits for this run only (``races.MAX_PAIRS``, the
unordered pairs judged per function, default 4000; ``races.BUDGET_S``, the seconds for them):
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
    """Records, while the race check runs, every unordered conflicting pair and the solver's
    answer for it, so that the pairs the check leaves undecided can be sorted by why: over
    two loop-carried values (never asked), not decided by the solver, or a common byte found
    only where it is not a finding (in flight into a later iteration, an opaque address, a TMA
    load's late reader). Wraps two of ``races``' functions for the run; judges nothing itself."""

    def __init__(self) -> None:
        self.pairs: list[Any] = []
        self.answers: dict[tuple[int, int], str] = {}
        self.carried: dict[tuple[int, int], int] = {}
        self._unordered = races.unordered
        self._overlap = races._overlap
        self._carried = races._carried

    def __enter__(self) -> Why:
        def unordered(*a: Any, **k: Any) -> Any:
            found = self._unordered(*a, **k)
            self.pairs.extend(p for p in found if races._conflict(p))
            return found

        def overlap(pa: Any, pb: Any, *a: Any, **k: Any) -> Any:
            verdict, w = self._overlap(pa, pb, *a, **k)
            self.answers[(id(pa), id(pb))] = verdict
            return verdict, w

        def carried(p: Any, *a: Any, **k: Any) -> Any:
            found = self._carried(p, *a, **k)
            self.carried[(id(p.first), id(p.second))] = len(found)
            return found

        races.unordered, races._overlap, races._carried = unordered, overlap, carried
        return self

    def __exit__(self, *exc: Any) -> None:
        races.unordered, races._overlap = self._unordered, self._overlap
        races._carried = self._carried

    def undecided(self) -> dict[str, int]:
        """How many pairs were left undecided, per (why, first access, second access)."""
        out: Counter[str] = Counter()
        for i, p in enumerate(self.pairs):
            key = (id(p.first), id(p.second))
            answer = self.answers.get(key)
            if answer == "unsat":
                continue
            if i >= races.MAX_PAIRS:
                why = "past the pair limit"
            elif answer is None:
                why = ("two loop-carried values" if self.carried.get(key, 0) > 1
                       else "past the time budget")  # fmt: skip
            else:
                why = {"unknown": "solver undecided", "sat": "common byte, not a finding"}[answer]
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
    for ttgir in sorted(args.dir.glob("*.ttgir")):
        if args.only and ttgir.stem not in args.only:
            continue
        row = {"kernel": ttgir.stem, **judge(ttgir, args.python, args.why)}
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
