"""Differential test: the spec's triton-X profiles against Triton X's real C++ verifiers.

    python tests/triton_diff/diff.py                         # the installed Triton
    python tests/triton_diff/diff.py --python VENV/bin/python  # another release, in its venv
    python tests/triton_diff/diff.py --python ... --write    # update docs/triton-agreement.*

Each case (``cases.py``) is judged by the profile that matches the Triton release and by that
release's verifier (parse + verify of the case's module, ``runner.py``). A crash (the verifier
aborts) counts as "not accepted". Every disagreement must be explained in ``KNOWN`` below as a
Triton finding; an unexplained one is a bug in the model, and the test fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if __package__:  # imported as tests.triton_diff.diff
    from . import cases as case_gen
    from .runner import triton_version, verify_modules
else:  # run as a script
    sys.path[:0] = [str(ROOT), str(HERE)]
    import cases as case_gen  # type: ignore[no-redef]
    from runner import triton_version, verify_modules  # type: ignore[no-redef]

from alias_spec.errors import RequestError  # noqa: E402
from alias_spec.interp import check_facts  # noqa: E402
from alias_spec.request import parse_request  # noqa: E402


def profile_for(version: str) -> str:
    major_minor = ".".join(version.split(".")[:2])
    # 3.7 ships 3.6's view verifiers (no memdesc_reinterpret verifier in either).
    return {"3.6": "triton-3.6", "3.7": "triton-3.6", "3.8": "triton-3.8", "3.9": "triton-3.9"}[
        major_minor
    ]


def model(request: dict[str, Any], profile: str) -> dict[str, Any]:
    try:
        facts = parse_request(request).facts
    except RequestError as exc:
        return {"valid": None, "fired": [], "safe": None, "note": str(exc)}
    verdict = check_facts(facts, profile)
    safe = check_facts(facts, "safe")
    return {"valid": verdict.valid, "fired": verdict.rule_ids(), "safe": safe.rule_ids()}


# Disagreements that are findings about Triton, not model errors: (release prefix, predicate on
# the case's result, what it is). Kept as short as the releases allow.
KNOWN: list[tuple[str, str, str]] = []


def explain(version: str, row: dict[str, Any]) -> str | None:
    for prefix, key, text in KNOWN:
        if version.startswith(prefix) and key in row.get("triton_error", ""):
            return text
    return None


def run(python: str = sys.executable, cases: list[dict] | None = None) -> dict[str, Any]:
    version = triton_version(python)
    profile = profile_for(version)
    cases = case_gen.all_cases() if cases is None else cases
    results = verify_modules([(c["id"], case_gen.module(c["request"])) for c in cases], python)
    rows = []
    for c in cases:
        m = model(c["request"], profile)
        t = results[c["id"]]
        row = {
            "id": c["id"],
            "kind": c["kind"],
            "op": c["request"]["op"],
            "request": c["request"],
            "model_valid": m["valid"],
            "fired": m["fired"],
            "safe_fired": m["safe"],
            "triton_ok": t["ok"],
            "triton_crash": t["crash"],
            "triton_error": t["error"],
        }
        if m["valid"] is None:
            row["status"] = "not_modelled"
            row["note"] = m["note"]
        elif m["valid"] == t["ok"]:
            row["status"] = "agree"
        else:
            why = explain(version, row)
            row["status"] = "finding" if why else "disagree"
            if why:
                row["why"] = why
        rows.append(row)
    return {"version": version, "profile": profile, "rows": rows, "summary": summarize(rows)}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    status = Counter(r["status"] for r in rows)
    by_op: dict[str, dict[str, int]] = {}
    for r in rows:
        d = by_op.setdefault(r["op"], Counter())
        d[r["status"]] += 1
        d["cases"] += 1
    accepted_unsafe = [
        r["id"] for r in rows if r["triton_ok"] and r["safe_fired"] and r["safe_fired"] != []
    ]
    return {
        "cases": len(rows),
        "agree": status["agree"],
        "findings": status["finding"],
        "disagree": status["disagree"],
        "not_modelled": status["not_modelled"],
        "triton_accepted": sum(1 for r in rows if r["triton_ok"]),
        "triton_crashed": sum(1 for r in rows if r["triton_crash"]),
        "accepted_but_unsafe": len(accepted_unsafe),
        "by_op": {k: dict(v) for k, v in sorted(by_op.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter with triton installed")
    ap.add_argument("--write", action="store_true", help="update docs/triton-agreement.*")
    ap.add_argument("--show", type=int, default=20, help="disagreements to print")
    ap.add_argument("--seed", type=int, default=0, help="random and near-miss seed")
    ap.add_argument("--random", type=int, default=600, help="random cases")
    ap.add_argument("--near", type=int, default=150, help="near-miss pairs")
    args = ap.parse_args(argv)
    cases = case_gen.all_cases(args.seed, args.near, args.random)
    result = run(args.python, cases)
    s = result["summary"]
    print(f"Triton {result['version']} vs {result['profile']}: {json.dumps(s)}")
    bad = [r for r in result["rows"] if r["status"] == "disagree"]
    for r in bad[: args.show]:
        print(
            f"  {r['id']} model={'accept' if r['model_valid'] else 'reject'} {r['fired']} "
            f"triton={'accept' if r['triton_ok'] else 'crash' if r['triton_crash'] else 'reject'}"
            f" {r['triton_error'][:90]!r}"
        )
        print(f"    {json.dumps(r['request'])}")
    if args.write:
        if __package__:
            from . import report
        else:
            import report  # type: ignore[no-redef]

        report.update(result)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
