"""A random differential against Triton's real verifiers: generated view requests, shrunk on
disagreement, kept as regressions.

Each case is a structured view request (op, two memdesc sides, offsets or index) drawn over
dtypes, layouts (swizzled with any order, column-major included; NVMMA with every element width
and swizzle, transposed or not; padded; linear), shapes, subslices, indexes and reinterprets.
It is rendered to the request text ``cases.module`` turns into MLIR, judged by the release's
``triton-*`` profile and by that release's own ``mod.verify()`` (``runner.verify_modules``, one
worker process per batch). A disagreement is shrunk (smaller dims, simpler layouts and dtypes)
while Triton and the model keep their verdicts, and the minimal case is written as a regression
(``tests/regressions/triton/``), which the tests replay without Triton.

Run a campaign: ``alias-spec dev random-diff --python VENV/bin/python --cases 10000``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from alias_spec.difftest.shrink import shrink_greedy, store, stored
from alias_spec.difftest.triton import cases as case_gen
from alias_spec.difftest.triton import report
from alias_spec.difftest.triton.diff import explain, profile_for
from alias_spec.difftest.triton.runner import InterpreterError, triton_version, verify_modules
from alias_spec.engines import registry
from alias_spec.ir.procs import RunError
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.errors import RequestError
from alias_spec.model.request import parse_request

RE, SUB, IDX = case_gen.RE, case_gen.SUB, case_gen.IDX
DTYPES = ("i8", "f8E5M2", "f8E4M3FN", "f16", "bf16", "i16", "f32", "i32", "f64", "i1")
NVMMA_BITS = (8, 16, 32, 64)
NVMMA_SWIZZLES = (0, 32, 64, 128)
POW2 = (1, 2, 4, 8, 16, 32, 64, 128)
ODD = (3, 6, 48)
# Largest element count a side may have (keeps modules small and Triton fast).
MAX_ELEMS = 1 << 16
# Where regressions are kept, relative to a checkout's top.
REGRESSIONS = Path("tests") / "regressions" / "triton"

Case = dict[str, Any]
# Judges many requests at once (one Triton process): a row per request.
Judge = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


# --- layouts ----------------------------------------------------------------------------------


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def layout_text(lay: dict[str, Any], covered: Sequence[int]) -> str:
    """A layout dict as MLIR attribute text; ``covered`` are the alloc dims it spans (a
    padded or linear layout states them)."""
    kind = lay["kind"]
    if kind == "swizzled":
        return case_gen.sw(len(lay["order"]), lay["vec"], lay["per_phase"], lay["max_phase"],
                           list(lay["order"]))  # fmt: skip
    if kind == "nvmma":
        return case_gen.nv(lay["swizzle"], lay["bits"], lay["transposed"])
    order = ", ".join(map(str, lay["order"]))
    if kind == "padded":
        shape = ", ".join(map(str, covered))
        return (
            f"#ttg.padded_shared<[{lay['interval']}:+{lay['pad']}] "
            f"{{order = [{order}], shape = [{shape}]}}>"
        )
    # linear: one basis vector per bit of each covered dim, fastest dim (order[0]) first.
    bases = []
    for d in lay["order"]:
        size = covered[d] if d < len(covered) else 1
        bit = 1
        while bit < size:
            vec = [0] * len(covered)
            vec[d] = bit
            bases.append("[" + ", ".join(map(str, vec)) + "]")
            bit *= 2
    return f"#ttg.shared_linear<{{offset = [{', '.join(bases)}]}}, alignment = 16>"


def _order(rng: random.Random, rank: int) -> list[int]:
    pick = rng.random()
    if pick < 0.6:
        return list(range(rank - 1, -1, -1))  # row-major
    if pick < 0.8:
        return list(range(rank))  # column-major
    order = list(range(rank))
    rng.shuffle(order)
    return order


def random_layout(rng: random.Random, rank: int, bits: int) -> dict[str, Any]:
    """A layout for a side of ``rank`` dims and ``bits``-wide elements: mostly one that fits,
    sometimes not (a layout rank one below the shape's is a leading buffer dim)."""
    lrank = rank - 1 if rank >= 2 and rng.random() < 0.2 else rank
    pick = rng.random()
    if pick < 0.35 and lrank >= 1:
        plain = rng.random() < 0.3
        return {
            "kind": "swizzled",
            "order": _order(rng, lrank),
            "vec": 1 if plain else rng.choice((1, 2, 4, 8)),
            "per_phase": 1 if plain else rng.choice((1, 2, 4)),
            "max_phase": 1 if plain else rng.choice((1, 2, 4, 8)),
        }
    if pick < 0.8 and rank >= 2:
        own = bits if bits in NVMMA_BITS else 8
        return {
            "kind": "nvmma",
            "swizzle": rng.choice(NVMMA_SWIZZLES),
            "bits": own if rng.random() < 0.7 else rng.choice(NVMMA_BITS),
            "transposed": rng.random() < 0.3,
        }
    if pick < 0.9:
        return {"kind": "padded", "order": _order(rng, lrank), "lrank": lrank,
                "interval": rng.choice((16, 32, 64)), "pad": rng.choice((1, 2, 4, 8))}  # fmt: skip
    return {"kind": "linear", "order": _order(rng, lrank), "lrank": lrank}


def layout_rank(lay: dict[str, Any]) -> int:
    if lay["kind"] == "nvmma":
        return 2
    return lay.get("lrank", len(lay.get("order", ())))


# --- sides and requests -----------------------------------------------------------------------


def side_text(side: dict[str, Any]) -> str:
    shape, alloc = side["shape"], side.get("alloc") or side["shape"]
    lay = side["layout"]
    covered = alloc[max(len(alloc) - layout_rank(lay), 0) :]
    return case_gen.md(shape, side["dtype"], layout_text(lay, covered), side["mutable"],
                       side.get("alloc"))  # fmt: skip


def request_of(case: Case) -> dict[str, Any]:
    """The case as a request (both sides as memdesc text), what ``cases.module`` renders."""
    out: dict[str, Any] = {
        "op": case["op"],
        "source": side_text(case["src"]),
        "result": side_text(case["res"]),
    }
    if case["op"] == SUB:
        out["offsets"] = list(case["offsets"])
    elif case["op"] == IDX:
        out["index"] = case["index"]
    return out


def _dims(rng: random.Random, rank: int) -> list[int]:
    out = [rng.choice(POW2[1:]) if rng.random() > 0.05 else rng.choice(ODD) for _ in range(rank)]
    while _prod(out) > MAX_ELEMS:
        out[out.index(max(out))] //= 2
    return out


def _prod(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _side(rng: random.Random, shape: list[int], dtype: str, lay: dict | None = None) -> dict:
    return {
        "shape": shape,
        "dtype": dtype,
        "layout": lay if lay is not None else random_layout(rng, len(shape), DTYPE_BITS[dtype]),
        "mutable": rng.random() < 0.9,
        "alloc": None,
    }


def _random_subslice(rng: random.Random) -> Case:
    rank = rng.choice((1, 2, 2, 2, 3))
    dtype = rng.choice(DTYPES)
    src = _side(rng, _dims(rng, rank), dtype)
    shape = src["shape"]
    if rng.random() < 0.15:  # a subview source: its allocation is larger in one dim
        d = rng.randrange(rank)
        src["alloc"] = [s * (2 if i == d else 1) for i, s in enumerate(shape)]
    dst, offs = [], []
    for s in shape:
        if rng.random() < 0.55 and s > 1:
            t = max(s >> rng.randint(1, 3), 1)
            k = rng.randrange(max(s // t, 1))
            off = t * k
            r = rng.random()
            if r < 0.08:
                off += rng.choice((1, t // 2 or 1))  # touches the tile
            elif r < 0.12:
                off = s  # past the end
            dst.append(t)
            offs.append(off)
        else:
            dst.append(s)
            offs.append(0 if rng.random() > 0.03 else rng.choice((1, s)))
    res = dict(copy.deepcopy(src), shape=dst, alloc=list(src["alloc"] or shape))
    if rng.random() < 0.05:
        res["layout"] = random_layout(rng, rank, DTYPE_BITS[dtype])
    if rng.random() < 0.03:
        res["alloc"] = None
    res["mutable"] = src["mutable"] if rng.random() < 0.95 else not src["mutable"]
    return {"op": SUB, "src": src, "res": res, "offsets": offs}


def _random_index(rng: random.Random) -> Case:
    inner = _dims(rng, rng.choice((1, 2, 2, 3)))
    buffers = rng.choice((1, 2, 3, 4, 8))
    dtype = rng.choice(DTYPES)
    bits = DTYPE_BITS[dtype]
    lay = random_layout(rng, len(inner), bits)  # mostly leaves the buffer dim out
    if rng.random() < 0.15:
        lay = random_layout(rng, len(inner) + 1, bits)
    src = _side(rng, [buffers, *inner], dtype, lay)
    if rng.random() < 0.1:
        src["alloc"] = [buffers * 2, *inner]  # a prefix subview
    res = _side(rng, list(inner), dtype, copy.deepcopy(lay))
    res["mutable"] = src["mutable"]
    r = rng.random()
    if r < 0.05:
        res["shape"] = [max(inner[0] // 2, 1), *inner[1:]]
    elif r < 0.1:
        res["dtype"] = rng.choice(DTYPES)
    elif r < 0.2:
        res["layout"] = random_layout(rng, len(inner), bits)
    index = rng.choice((0, 1, buffers - 1, buffers, -1, None))
    return {"op": IDX, "src": src, "res": res, "index": index}


def _random_reinterpret(rng: random.Random) -> Case:
    dtype = rng.choice(DTYPES)
    src = _side(rng, _dims(rng, rng.choice((1, 2, 2, 3))), dtype)
    shape = src["shape"]
    if rng.random() < 0.15:
        d = rng.randrange(len(shape))
        src["alloc"] = [s * (2 if i == d else 1) for i, s in enumerate(shape)]
    rdtype = dtype if rng.random() < 0.4 else rng.choice(DTYPES)
    src_bits = _prod(shape) * DTYPE_BITS[dtype]
    total = max(src_bits * rng.choice((1, 1, 1, 2, 4)) // rng.choice((1, 1, 2, 4)), 1)
    count = max(total // DTYPE_BITS[rdtype], 1)
    rrank = rng.choice((1, 2, 2, 3))
    rshape = [1] * rrank
    while count > 1:  # factor the count over the dims, trailing dims first
        d = rng.randrange(rrank)
        if count % 2:
            rshape[0] *= count
            break
        rshape[d] *= 2
        count //= 2
    res = _side(rng, rshape, rdtype)
    res["mutable"] = src["mutable"] if rng.random() < 0.9 else not src["mutable"]
    if rng.random() < 0.03:
        res["alloc"] = [rshape[0] * 2, *rshape[1:]]
    return {"op": RE, "src": src, "res": res}


def random_case(rng: random.Random) -> Case:
    return rng.choice((_random_subslice, _random_index, _random_reinterpret))(rng)


def generate(seed: int, count: int) -> list[Case]:
    """``count`` cases, deterministic for ``seed``; no two render the same request."""
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < count:
        c = random_case(rng)
        key = json.dumps(request_of(c), sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


# --- judging ----------------------------------------------------------------------------------


def model_verdict(request: dict[str, Any], profile: str) -> tuple[str, list[str]]:
    """("valid" | "invalid" | "partial" | "error", rules fired) by the profile, judging only
    what the spec models (a padded or linear layout leaves rules unjudged: ``partial``)."""
    try:
        req = parse_request(request)
    except RequestError as exc:
        return "error", [str(exc)]
    fired, skipped = registry.judge_facts(req.facts, profile, req.unknown)
    if fired:
        return "invalid", [v.rule for v in fired]
    return ("partial", skipped) if skipped else ("valid", [])


def _row(version: str, request: dict, model: tuple[str, list[str]], t: dict) -> dict[str, Any]:
    status, fired = model
    row = {"request": request, "model": status, "fired": fired, "triton_ok": t["ok"],
           "triton_crash": t["crash"], "triton_error": t["error"]}  # fmt: skip
    if status in ("partial", "error"):
        row["status"] = "not_modelled"
    elif (status == "valid") == t["ok"]:
        row["status"] = "agree"
    else:
        row["status"] = "finding" if explain(version, row) else "disagree"
    return row


def judge(
    requests: Sequence[dict[str, Any]], python: str, version: str | None = None
) -> list[dict[str, Any]]:
    """One row per request: the profile's verdict, Triton's, and whether they agree."""
    version = version or triton_version(python)
    profile = profile_for(version)
    mods = [(str(i), case_gen.module(r)) for i, r in enumerate(requests)]
    results = verify_modules(mods, python)
    return [
        _row(version, r, model_verdict(r, profile), results[str(i)]) for i, r in enumerate(requests)
    ]


def _signature(row: dict[str, Any]) -> tuple[Any, ...]:
    """What a shrink step must keep: both verdicts, Triton's diagnostic (without numbers) and
    the rules the model fired."""
    error = "".join(ch for ch in row["triton_error"] if not ch.isdigit())[:60]
    return row["triton_ok"], error, row["model"], tuple(row["fired"])


# --- shrinking --------------------------------------------------------------------------------


def _simpler_layouts(lay: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    rank = layout_rank(lay)
    if lay["kind"] != "swizzled" and rank >= 1:
        out.append({"kind": "swizzled", "order": list(range(rank - 1, -1, -1)), "vec": 1,
                    "per_phase": 1, "max_phase": 1})  # fmt: skip
    if lay["kind"] == "swizzled":
        for key in ("vec", "per_phase", "max_phase"):
            if lay[key] > 1:
                out.append(dict(lay, **{key: 1}))
        row_major = list(range(len(lay["order"]) - 1, -1, -1))
        if lay["order"] != row_major:
            out.append(dict(lay, order=row_major))
    if lay["kind"] == "nvmma":
        if lay["transposed"]:
            out.append(dict(lay, transposed=False))
        if lay["swizzle"]:
            out.append(dict(lay, swizzle=lay["swizzle"] // 2 if lay["swizzle"] > 32 else 0))
    return out


def shrink_candidates(case: Case) -> list[Case]:
    """Cases one step simpler than ``case``: a dim halved (on every list it appears in at that
    position), an offset or index moved towards 0, a layout or dtype made plainer."""
    out: list[Case] = []
    for who in ("src", "res"):
        side = case[who]
        for lay in _simpler_layouts(side["layout"]):
            c = copy.deepcopy(case)
            c[who]["layout"] = lay
            if case["op"] in (SUB, IDX) and case["src"]["layout"] == case["res"]["layout"]:
                other = "res" if who == "src" else "src"
                c[other]["layout"] = copy.deepcopy(lay)
            out.append(c)
        if not side["mutable"]:
            c = copy.deepcopy(case)
            c[who]["mutable"] = True
            out.append(c)
        for key in ("shape", "alloc"):
            dims = side.get(key)
            for i, d in enumerate(dims or ()):
                for smaller in sorted({1, d // 4, d // 2} - {0, d}):  # big steps first
                    c = copy.deepcopy(case)
                    c[who][key][i] = smaller
                    out.append(c)
                    # The same dim on the other lists of a subslice or index.
                    c2 = copy.deepcopy(c)
                    for w2 in ("src", "res"):
                        for k2 in ("shape", "alloc"):
                            lst = c2[w2].get(k2)
                            if lst is not None and len(lst) == len(dims) and lst[i] == d:
                                lst[i] = smaller
                    if case["op"] == SUB and len(case["offsets"]) == len(dims):
                        c2["offsets"][i] = c2["offsets"][i] * smaller // d
                    out.append(c2)
    if case["op"] == SUB:
        for i, o in enumerate(case["offsets"]):
            for smaller in sorted({0, o // 2} - {o}):
                c = copy.deepcopy(case)
                c["offsets"][i] = smaller
                out.append(c)
    if case["op"] == IDX and case["index"] not in (0, None):
        c = copy.deepcopy(case)
        c["index"] = 0
        out.append(c)
    plainest = ("i8", "f16")
    here = case["src"]["dtype"]
    for dtype in plainest[: plainest.index(here)] if here in plainest else plainest:
        c = copy.deepcopy(case)
        c["src"]["dtype"] = dtype
        if case["op"] != RE:
            c["res"]["dtype"] = dtype
        out.append(c)
    return out


def shrink(case: Case, judge_batch: Judge, rounds: int = 60) -> Case:
    """Greedy shrinking (``shrink.shrink_greedy``): take the first simpler case that keeps the
    disagreement's signature, until none does. ``judge_batch`` judges many requests at once
    (one Triton process), so each step's candidates go to it together."""
    want = _signature(judge_batch([request_of(case)])[0])

    def keeps(_: Case, cands: Sequence[Case]) -> list[bool]:
        rows = judge_batch([request_of(c) for c in cands])
        return [r["status"] == "disagree" and _signature(r) == want for r in rows]

    return shrink_greedy(case, shrink_candidates, keeps, rounds=rounds, batch=True)


# --- regressions and the campaign -------------------------------------------------------------


def regression_entry(version: str, case: Case, row: dict[str, Any]) -> dict[str, Any]:
    """What a regression file holds: Triton's verdict on the case is the truth it keeps."""
    return {
        "release": ".".join(version.split(".")[:2]),
        "triton_version": version,
        "case": case,
        "request": request_of(case),
        "triton_ok": row["triton_ok"],
        "triton_crash": row["triton_crash"],
        "triton_error": row["triton_error"][:300],
    }


def save_regression(entry: dict[str, Any], folder: Path) -> Path:
    """The entry in the one regression store (``shrink.store``), found by its request and
    release; its keys stay in the order written (release first), as the kept files have them."""
    key = json.dumps(entry["request"], sort_keys=True) + entry["release"]
    return store(entry, folder, entry["release"], key, sort_keys=False)


def regressions(folder: Path = REGRESSIONS) -> list[tuple[Path, dict[str, Any]]]:
    """The kept regressions (``shrink.stored``), each with Triton's verdict on its request."""
    return stored(folder)


def campaign(
    python: str,
    count: int,
    seed: int = 0,
    batch: int = 2500,
    shrink_max: int = 10,
    keep: Path | None = None,
) -> dict[str, Any]:
    """Judge ``count`` random cases by the release ``python`` imports and its profile; shrink
    up to ``shrink_max`` disagreements (one per distinct signature) and, with ``keep``, write
    them there as regressions."""
    version = triton_version(python)
    cases = generate(seed, count)
    rows: list[dict[str, Any]] = []
    for start in range(0, len(cases), batch):
        part = [request_of(c) for c in cases[start : start + batch]]
        rows += judge(part, python, version)
    status = Counter(r["status"] for r in rows)
    shrunk: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for c, r in zip(cases, rows, strict=True):
        if r["status"] != "disagree" or len(shrunk) >= shrink_max:
            continue
        sig = _signature(r)
        if sig in seen:
            continue
        seen.add(sig)
        small = shrink(c, lambda reqs: judge(reqs, python, version))
        small_row = judge([request_of(small)], python, version)[0]
        entry = regression_entry(version, small, small_row)
        entry["model"], entry["fired"] = small_row["model"], small_row["fired"]
        if keep is not None:
            entry["path"] = str(save_regression(
                {k: v for k, v in entry.items() if k not in ("model", "fired")}, keep))  # fmt: skip
        shrunk.append(entry)
    by_why: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["status"] == "finding":
            why = explain(version, r) or ""
            by_why.setdefault(why, {"count": 0, "example": r["request"]})["count"] += 1
    return {
        "version": version,
        "profile": profile_for(version),
        "seed": seed,
        "findings_by_why": [{"why": k, **v} for k, v in sorted(by_why.items())],
        "cases": len(rows),
        "agree": status["agree"],
        "disagree": status["disagree"],
        "findings": status["finding"],
        "not_modelled": status["not_modelled"],
        "triton_accepted": sum(1 for r in rows if r["triton_ok"]),
        "triton_crashed": sum(1 for r in rows if r["triton_crash"]),
        "by_op": {
            op: dict(Counter(r["status"] for r in rows if r["request"]["op"] == op))
            for op in (RE, SUB, IDX)
        },
        "shrunk": shrunk,
        "rows": rows,
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="alias-spec dev random-diff",
        description="A random differential against a Triton release's own verifiers: generated "
        "view requests judged by the release and by its triton-* profile, each disagreement "
        "shrunk to a minimal case (kept with --keep). Exit 1 on a disagreement.",
    )
    p.add_argument("--python", default=sys.executable, help="interpreter with the Triton to test")
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", help="write shrunk disagreements to this folder")
    p.add_argument("--json", action="store_true")
    p.add_argument("--write", metavar="DOCS", nargs="?", const="docs",
                   help="record it in DOCS/triton-agreement.{json,md} (default docs)")  # fmt: skip
    args = p.parse_args(argv)
    keep = Path(args.keep) if args.keep else None
    try:
        out = campaign(args.python, args.cases, args.seed, keep=keep)
    except InterpreterError as exc:  # a bad --python: one line, as every command says it
        print(f"alias-spec: error: --python {args.python}: {exc}", file=sys.stderr)
        return 2
    except RunError as exc:  # its verifier worker died or ran past its time: one line too
        print(f"alias-spec: error: {exc}", file=sys.stderr)
        return 2
    if args.write:
        report.update_random(out, Path(args.write))
    del out["rows"]
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(
            f"Triton {out['version']} / {out['profile']}: {out['cases']} cases, {out['agree']} "
            f"agree, {out['disagree']} disagree, {out['findings']} known findings, "
            f"{out['not_modelled']} not modelled (accepted {out['triton_accepted']}, "
            f"aborted {out['triton_crashed']})"
        )
        for e in out["shrunk"]:
            t = "accept" if e["triton_ok"] else "reject"
            print(f"  triton {t} {e['triton_error'][:90]!r} model {e['model']} {e['fired']}")
            print(f"    {json.dumps(e['request'])}")
    return 1 if out["disagree"] else 0
