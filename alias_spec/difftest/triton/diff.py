"""Differential test: the spec's triton-X profiles against Triton X's real C++ verifiers.

Run as ``alias-spec triton-diff [--python VENV/bin/python] [--write]``. Each case
(``cases.py``) is judged by the profile that matches the Triton release and by that release's
verifier (parse + verify of the case's module, ``runner.py``). A crash (the verifier aborts)
counts as "not accepted". Every disagreement must be explained in ``KNOWN`` below as a Triton
finding; an unexplained one is a bug in the model, and the command exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alias_spec.difftest.triton import cases as case_gen
from alias_spec.difftest.triton import report
from alias_spec.difftest.triton.runner import InterpreterError, triton_version, verify_modules
from alias_spec.model.errors import RequestError
from alias_spec.model.interp import check_facts
from alias_spec.model.layouts import parse_layout
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.request import parse_request

# Releases with a profile, and the profile that models each. 3.7's view-op verifiers are
# 3.6's, but its memdesc type verifier already rejects zero dims and NVMMA layouts narrower
# than a swizzle row (triton.type.nonzero and .nvmma_width): triton-3.6 alone differed from
# 3.7.0 on 70 of the 1791 cases, hence a profile of its own.
PROFILE_OF = {"3.6": "triton-3.6", "3.7": "triton-3.7", "3.8": "triton-3.8", "3.9": "triton-3.9"}
# The case set the committed table records (see ``all_cases``).
SEED, NEAR, RANDOM = 0, 150, 600
# Where --write keeps the table by default: docs/ of the current directory (a checkout's top).
DEFAULT_DOCS = "docs"


class BadInput(Exception):
    """A bad option or interpreter: printed as one line, exit status 2."""


def profile_for(version: str) -> str:
    """The profile modelling this Triton release; InterpreterError if none does."""
    major_minor = ".".join(version.split(".")[:2])
    if major_minor not in PROFILE_OF:
        known = ", ".join(PROFILE_OF)
        raise InterpreterError(f"Triton {version} has no profile (releases: {known})")
    return PROFILE_OF[major_minor]


def model(request: dict[str, Any], profile: str) -> dict[str, Any]:
    try:
        facts = parse_request(request).facts
    except RequestError as exc:
        return {"valid": None, "fired": [], "safe": None, "note": str(exc)}
    verdict = check_facts(facts, profile)
    safe = check_facts(facts, "safe")
    return {"valid": verdict.valid, "fired": verdict.rule_ids(), "safe": safe.rule_ids()}


def _leading_only(text: str) -> bool:
    """A memdesc type whose alloc shape differs from its shape only in a leading dim its
    layout leaves out."""
    try:
        side = parse_memdesc(text, "side")
        lay = parse_layout(side.get("layout"), "side.layout")
    except RequestError:
        return False
    shape, alloc = side["shape"], side.get("alloc_shape") or side["shape"]
    rank = lay.rank if lay is not None and lay.rank else len(shape)
    return (
        len(alloc) == len(shape) and alloc[1:] == shape[1:] and alloc != shape and rank < len(shape)
    )


def _result_leading_subview(row: dict[str, Any]) -> bool:
    """3.9 lets a reinterpret's result claim a larger leading buffer dim outside its layout
    (measured: 1x1xi32 with alloc 2x1 and a 1-D layout): its result_subview check reads only
    the dims the layout covers."""
    return (
        bool(row.get("triton_ok"))
        and row.get("fired") == ["triton.reinterpret.result_subview"]
        and _leading_only(row["request"]["result"])
    )


def _prefix_reinterpret(row: dict[str, Any]) -> bool:
    """3.8 accepts a reinterpret whose source or result differs from its alloc shape only in
    a leading dim its layout leaves out (buffer 0 of 8 of a multi-buffer), sized by the alloc
    shape: the result may span buffers the view does not hold (measured: 1x2x8xf16 of 8x2x8
    reinterpreted as 2048 i1; 8x64xi1 as 1x4x1xi32 of 4x4x1)."""
    fired = set(row.get("fired", ()))
    if not row.get("triton_ok") or "triton.reinterpret.no_subview" not in fired:
        return False
    if not fired <= {"triton.reinterpret.no_subview", "triton.reinterpret.same_size"}:
        return False
    src, res = row["request"]["source"], row["request"]["result"]
    return any(_leading_only(t) for t in (src, res)) and all(
        _leading_only(t) or "x" not in _alloc_text(t) for t in (src, res)
    )


def _alloc_text(text: str) -> str:
    """The alloc shape a memdesc type states after its other parameters ('' if none)."""
    try:
        side = parse_memdesc(text, "side")
    except RequestError:
        return ""
    alloc = side.get("alloc_shape")
    return "x".join(map(str, alloc)) if alloc and alloc != side["shape"] else ""


# Disagreements that are findings about Triton, or inputs the spec does not read, not model
# errors: (release prefix, the diagnostic's text or a predicate on the row, what it is). Kept
# as short as the releases allow.
KNOWN: list[tuple[str, str | Callable[[dict[str, Any]], bool], str]] = [
    (
        "3.",
        "LinearLayout::strided1D",
        "Triton aborts converting a padded_shared layout whose stated shape has a dim that is "
        "not a power of 2 (every release 3.6-3.9); the spec does not model padded layouts, so "
        "it does not predict the abort",
    ),
    (
        "3.",
        "Mismatch in expected shape for dimension",
        "a shared_linear layout whose bases span another shape than the memdesc's (a dim that "
        "is not a power of 2): the spec does not read linear layouts' bases",
    ),
    (
        "3.8",
        _prefix_reinterpret,
        "3.8 reinterprets a source or result that differs from its alloc shape only in a "
        "leading buffer dim outside its layout as its whole allocation: the result may cover "
        "buffers the view does not hold; triton-3.8 refuses it (no subview, equal size of "
        "the views)",
    ),
    (
        "3.9",
        _result_leading_subview,
        "3.9 accepts a reinterpret result whose alloc shape is larger only in a leading dim "
        "its layout leaves out (1x1xi32, alloc 2x1, 1-D layout); triton-3.9 calls any result "
        "with another alloc shape a subview",
    ),
]


def explain(version: str, row: dict[str, Any]) -> str | None:
    for prefix, key, text in KNOWN:
        if not version.startswith(prefix):
            continue
        if key(row) if callable(key) else key in row.get("triton_error", ""):
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


def _describe(row: dict[str, Any]) -> str:
    triton = "accept" if row["triton_ok"] else "abort" if row["triton_crash"] else "reject"
    model = {True: "accept", False: "reject", None: "not modelled"}[row["model_valid"]]
    return (
        f"  {row['id']} model={model} {row['fired']} triton={triton} "
        f"{row['triton_error'][:90]!r}\n    {json.dumps(row['request'])}"
    )


def _human(result: dict[str, Any], python: str, show: int) -> str:
    s = result["summary"]
    lines = [
        f"Triton {result['version']} ({python}) against profile {result['profile']}: "
        f"{s['cases']} cases, {s['agree']} agree, {s['disagree']} disagree, "
        f"{s['findings']} known findings, {s['not_modelled']} not modelled",
        "  per op (agree / cases): "
        + ", ".join(f"{op} {d.get('agree', 0)}/{d['cases']}" for op, d in s["by_op"].items()),
        f"  Triton accepted {s['triton_accepted']}, aborted {s['triton_crashed']}; "
        f"accepted but unsafe by the safe profile: {s['accepted_but_unsafe']}",
    ]
    bad = [r for r in result["rows"] if r["status"] in ("disagree", "not_modelled")]
    if bad:
        lines.append(f"Unexplained ({len(bad)}, first {min(show, len(bad))}):")
        lines += [_describe(r) for r in bad[:show]]
    found = [r for r in result["rows"] if r["status"] == "finding"]
    lines += [f"  finding {r['id']}: {r['why']}" for r in found[:show]]
    return "\n".join(lines)


def _docs_dir(docs: str | None, write: bool, default_cases: bool) -> Path | None:
    """Where --write goes; checked before the long run so a bad option fails at once."""
    if not write:
        return None
    if docs is None:
        # The default is the committed table: docs/ of the checkout the command runs in.
        if not default_cases:
            raise BadInput(
                "--write to the committed table needs the full case set "
                "(drop --limit, --seed, --near, --random, or give --docs-dir)"
            )
        path = Path(DEFAULT_DOCS)
        if not Path("pyproject.toml").is_file() or not path.is_dir():
            raise BadInput("--write outside a source checkout needs --docs-dir DIR")
    else:
        path = Path(docs)
        if not path.is_dir():
            raise BadInput(f"--docs-dir {docs}: not a directory")
    try:
        report.load(path)
    except report.TableError as exc:
        raise BadInput(f"--docs-dir {path}: {exc}") from None
    return path


def command(
    python: str | None = None,
    write: bool = False,
    docs: str | None = None,
    seed: int | None = None,
    near: int | None = None,
    random: int | None = None,
    limit: int | None = None,
    show: int = 20,
    as_json: bool = False,
) -> int:
    """``alias-spec triton-diff``: 0 when every case agrees or is a known finding, 1 when any
    is unexplained; BadInput for a bad option or interpreter. None means the default."""
    given = python
    python = python or sys.executable
    seed = SEED if seed is None else seed
    near = NEAR if near is None else near
    random = RANDOM if random is None else random
    for name, value, low in (("--near", near, 0), ("--random", random, 0), ("--show", show, 0)):
        if value < low:
            raise BadInput(f"{name} must be at least {low}")
    if limit is not None and limit < 1:
        raise BadInput("--limit must be at least 1")
    default_cases = (seed, near, random, limit) == (SEED, NEAR, RANDOM, None)
    docs_dir = _docs_dir(docs, write, default_cases)
    if os.sep in python and not os.path.exists(python):
        raise BadInput(f"--python {python}: no such file")
    try:
        version = triton_version(python)
        profile_for(version)
    except InterpreterError as exc:
        if given is None:  # this interpreter: say what to install, not an option's fault
            raise BadInput(f"this interpreter: {exc}: pip install 'tle-alias-spec[triton]', or "
                           "name one that has Triton with --python") from None  # fmt: skip
        raise BadInput(f"--python {python}: {exc}") from None
    cases = case_gen.all_cases(seed, near, random)
    if limit is not None and limit < len(cases):
        step = len(cases) / limit  # spread over the families, not just the first ones
        cases = [cases[int(i * step)] for i in range(limit)]
    try:
        result = run(python, cases)
    except RuntimeError as exc:
        last = str(exc).strip().splitlines()[-1:] or ["no output"]
        raise BadInput(f"--python {python}: the verifier worker failed: {last[0][:200]}") from None
    written = [str(p) for p in report.update(result, docs_dir)] if docs_dir else []
    rows = result["rows"]
    unexplained = [r for r in rows if r["status"] in ("disagree", "not_modelled")]
    if as_json:
        out = {
            "version": result["version"],
            "profile": result["profile"],
            "python": python,
            "summary": result["summary"],
            "unexplained": [report.entry(r) for r in unexplained],
            "findings": [report.entry(r) for r in rows if r["status"] == "finding"],
            "written": written,
        }
        print(json.dumps(out, indent=1))
    else:
        print(_human(result, python, show))
        if written:
            print("wrote " + " and ".join(written))
    return 1 if unexplained else 0
