"""Theorems about the stock Triton view rules (issue 5), proved by z3 and re-proved by cvc5.

Same structure as ``alias_spec/semantics/theorems.py`` (``Theorem``, ``Outcome``, ``run_theorem``):

* ``unsafe_accept.<profile>.<op>``: each release's verifier accepts a view that is not
  physically safe (the ``safe`` profile, judged on the same request, rejects it). The witness
  is the smallest such request in a family of real requests (``view_family``), rebuilt as JSON
  by ``to_view_request`` and re-checked by the request parser.
* ``reinterpret_38.*``: a 3.8-valid reinterpret of a shared-memory allocation with whole-byte
  elements is a safe alias at offset 0, except that nothing checks the start of a swizzled
  NVMMA result (``alias.base.aligned``); with sub-byte elements it is not (3.8 compares bits,
  shared memory stores one byte per i1).
* ``recipe_*``: the frontend's Gluon recipes for a safe alias request (``recipe_theorems.py``).

    alias-spec prove --set triton [--only PREFIX] [--solver z3|cvc5|both] [--json]
"""

from __future__ import annotations

from typing import Any

import z3

from alias_spec.model.catalogue import SAFE, rule, rules_for
from alias_spec.model.dtypes import WIDTHS, mlir_name
from alias_spec.model.facts import OPS
from alias_spec.model.layouts import NVMMA_SWIZZLES
from alias_spec.model.memdesc import format_memdesc
from alias_spec.model.physical import DEFAULT_ALIGNMENT, swizzle_repeat
from alias_spec.semantics.lexmin import solve
from alias_spec.semantics.recipe_theorems import recipe_theorems, smallest_counterexample
from alias_spec.semantics.theorems import Outcome, Theorem, run_theorem
from alias_spec.semantics.z3expr import Env, fact_vars, holds, model_facts, term, valid
from alias_spec.semantics.z3expr import invariants as _invariants

TRITON = ("triton-3.6", "triton-3.7", "triton-3.8", "triton-3.9")
OP_CODES = {name.split("_", 1)[1]: code for name, code in OPS.items() if name.startswith("ttg.")}
POW2 = [2**k for k in range(13)]  # sizes the witness family may use
FAMILY_BITS = (8, 16, 32, 1)  # element widths the family uses (names: model.dtypes)


def _pow2(x: z3.ArithRef) -> z3.BoolRef:
    return z3.Or(*[x == p for p in POW2])


# --- the witness family ---------------------------------------------------------------------
# Requests the solver may pick, each fully described by the facts plus a few extra integers:
#   reinterpret: source [n] (1-D, unswizzled), result [r] or [r, c] with an NVMMA layout;
#   index:       source [d, m] with a 1-D layout (a buffer dim), result [m];
#   subslice:    source [n] (1-D), result [t] at offset o.
# Source and result sit at the start of a 16-byte aligned allocation, in shared memory.


def _extra(prefix: str) -> dict[str, z3.ArithRef]:
    names = ("n", "r", "c", "w", "d", "m", "t", "o")
    return {k: z3.Int(f"{prefix}x_{k}") for k in names}


def view_family(env: Env, x: dict[str, z3.ArithRef], op: str) -> z3.BoolRef:
    e = env
    code = OP_CODES[op]
    common = [
        e["op"] == code,
        e["src_space"] == 0,
        e["res_space"] == 0,
        e["src_static"],
        e["res_static"],
        e["src_base"] == 0,
        e["src_start"] == 0,
        e["align"] == DEFAULT_ALIGNMENT,
        z3.Or(*[e["src_bits"] == b for b in FAMILY_BITS]),
        z3.Or(*[e["res_bits"] == b for b in FAMILY_BITS]),
        e["src_rank"] == e["src_alloc_rank"],
        e["res_rank"] == e["res_alloc_rank"],
        z3.Not(e["src_subview"]),
        e["src_alloc_fits"],
        e["res_alloc_fits"],
        e["src_nvmma_fits"],
        e["src_nvmma_rows"],
        e["run"] == e["src_elems"],
        e["c0"] == 1,
        e["c1"] == 1,
        e["c2"] == 1,
        e["p0"] == e["run"],
        e["p1"] == e["run"],
        e["p2"] == e["run"],
        e["src_alloc_tail_pow2"] == e["src_tail_pow2"],
        e["res_alloc_tail_pow2"] == e["res_tail_pow2"],
        # One dtype name per width and one 1-D layout: equal widths mean equal types.
        e["same_elem"] == (e["src_bits"] == e["res_bits"]),
        e["same_alloc"] == (op != "reinterpret"),
    ]
    if op == "reinterpret":
        n, r, c, w = x["n"], x["r"], x["c"], x["w"]
        nvmma = e["res_rank"] == 2
        rows_ok = r >= 8
        fam = [
            e["src_rank"] == 1, e["src_lay_rank"] == 1, _pow2(n), e["src_elems"] == n,
            e["src_d0_pow2"], e["src_tail_pow2"], e["src_nonzero"],
            z3.Or(e["res_rank"] == 1, e["res_rank"] == 2), e["res_lay_rank"] == e["res_rank"],
            _pow2(r), _pow2(c), e["res_d0_pow2"], e["res_tail_pow2"], e["res_nonzero"],
            z3.Not(e["res_subview"]),
            z3.If(nvmma, e["res_elems"] == r * c, z3.And(e["res_elems"] == r, c == 1)),
            z3.Or(*[w == s for s in NVMMA_SWIZZLES]),
            z3.If(nvmma, e["swz"] == swizzle_repeat(w), z3.And(e["swz"] == 0, w == 0)),
            e["res_nvmma_fits"] == z3.Or(z3.Not(nvmma), w == 0, c * e["res_bits"] >= 8 * w),
            e["res_nvmma_rows"] == z3.Or(z3.Not(nvmma), w == 0, rows_ok),
            z3.Implies(nvmma, e["res_bits"] >= 8), e["same_enc"] == z3.Not(nvmma),
            e["off"] == 0,
        ]  # fmt: skip
        return z3.And(*common, *fam)
    if op == "index":
        d, m = x["d"], x["m"]
        fam = [
            e["src_rank"] == 2, e["src_lay_rank"] == 1, d >= 1, d <= 64, _pow2(m),
            e["src_elems"] == d * m, e["src_d0_pow2"] == _pow2(d), e["src_tail_pow2"],
            e["src_nonzero"], e["res_rank"] == 1, e["res_lay_rank"] == 1, e["res_elems"] == m,
            e["res_d0_pow2"], e["res_tail_pow2"], e["res_nonzero"], z3.Not(e["res_subview"]),
            e["res_bits"] == e["src_bits"], e["res_nvmma_fits"], e["res_nvmma_rows"],
            e["swz"] == 0, e["same_enc"],
            # A runtime index is judged for buffer 1 (request.py).
            z3.Implies(z3.Not(e["idx_static"]),
                       e["off"] == z3.If(d >= 2, term("res_bytes", e), 0)),
        ]  # fmt: skip
        return z3.And(*common, *fam)
    n, t, o = x["n"], x["t"], x["o"]
    split = t != n
    fam = [
        e["src_rank"] == 1, e["src_lay_rank"] == 1, _pow2(n), e["src_elems"] == n,
        e["src_d0_pow2"], e["src_tail_pow2"], e["src_nonzero"], e["res_rank"] == 1,
        e["res_lay_rank"] == 1, _pow2(t), e["res_d0_pow2"], e["res_tail_pow2"],
        e["res_nonzero"], e["res_alloc_rank"] == 1, e["res_subview"] == (t != n),
        e["res_bits"] == e["src_bits"], e["res_nvmma_fits"], e["res_nvmma_rows"],
        e["sub_rank_ok"], e["sub_split"] == split, e["sub_zero_ok"] == z3.Or(split, o == 0),
        e["sub_tile_ok"] == z3.Or(z3.Not(split), o % t == 0),
        e["sub_off_lt"] == z3.And(o >= 0, o < n), e["sub_in_bounds"] == z3.And(o >= 0, o + t <= n),
        e["sub_swz_ok"], e["swz"] == 0, e["res_elems"] == t, o >= -64, o <= 4096,
        e["off"] * 8 == o * e["src_bits"], e["same_enc"],
    ]  # fmt: skip
    return z3.And(*common, *fam)


def to_view_request(f: dict[str, Any], x: dict[str, int], op: str) -> dict[str, Any]:
    """The JSON request a family member stands for (memdesc text on both sides)."""
    src_dt, res_dt = mlir_name(int(f["src_bits"])), mlir_name(int(f["res_bits"]))
    sw1 = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
    space = "#ttg.shared_memory"

    def md(shape: list[int], dt: str, lay: str, m: bool, alloc: list[int] | None = None) -> str:
        return format_memdesc(shape, dt, lay, space, m, alloc or None)

    sm, rm = bool(f["src_mutable"]), bool(f["res_mutable"])
    if op == "reinterpret":
        res_lay = sw1
        shape = [x["r"]]
        if int(f["res_rank"]) == 2:
            res_lay = (
                f"#ttg.nvmma_shared<{{swizzlingByteWidth = {x['w']}, transposed = false, "
                f"elementBitWidth = {int(f['res_bits'])}}}>"
            )
            shape = [x["r"], x["c"]]
        return {
            "op": "ttg.memdesc_reinterpret",
            "source": md([x["n"]], src_dt, sw1, sm),
            "result": md(shape, res_dt, res_lay, rm),
        }
    if op == "index":
        req = {
            "op": "ttg.memdesc_index",
            "source": md([x["d"], x["m"]], src_dt, sw1, sm),
            "result": md([x["m"]], res_dt, sw1, rm),
            "index": int(f["idx"]) if f["idx_static"] else None,
        }
        return req
    return {
        "op": "ttg.memdesc_subslice",
        "source": md([x["n"]], src_dt, sw1, sm),
        "result": md([x["t"]], res_dt, sw1, rm, [x["n"]]),
        "offsets": [x["o"]],
    }


# --- theorems -------------------------------------------------------------------------------


def _env(prefix: str = "") -> dict[str, z3.ExprRef]:
    return fact_vars(prefix)


# Ways a view can be unsafe, as sets of safe rules of which at least one fires.
UNSAFE = {
    "contained": ("alias.range.fits", "alias.range.physical", "alias.offset.nonneg"),
    "mutability": ("alias.mutability",),
    "aligned": ("alias.base.aligned", "alias.address.aligned"),
}
# (profile, op, class) triples with a witness: the release accepts a view unsafe that way.
UNSAFE_CASES = (
    ("triton-3.6", "reinterpret", "contained"),
    ("triton-3.6", "subslice", "contained"),
    ("triton-3.6", "index", "contained"),
    ("triton-3.6", "reinterpret", "mutability"),
    ("triton-3.7", "reinterpret", "contained"),
    ("triton-3.7", "subslice", "contained"),
    ("triton-3.7", "index", "contained"),
    ("triton-3.7", "reinterpret", "mutability"),
    ("triton-3.8", "reinterpret", "contained"),
    ("triton-3.8", "subslice", "contained"),
    ("triton-3.8", "index", "contained"),
    ("triton-3.8", "reinterpret", "aligned"),
    ("triton-3.8", "subslice", "mutability"),
    ("triton-3.9", "index", "contained"),
    ("triton-3.9", "reinterpret", "aligned"),
    ("triton-3.9", "index", "mutability"),
)


def _unsafe_accept(profile: str, op: str, kind: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env = _env()
        x = _extra("")
        env_x = {**env, **{f"x_{k}": v for k, v in x.items()}}
        unsafe = z3.Or(*[z3.Not(holds(rule(r), env)) for r in UNSAFE[kind]])
        claim = z3.And(_invariants(env), view_family(env, x, op), valid(profile, env), unsafe)
        return claim, {"view": env_x}

    return Theorem(
        f"unsafe_accept.{profile}.{op}.{kind}",
        f"{profile} accepts a memdesc_{op} that breaks {' or '.join(UNSAFE[kind])}",
        profile,
        "exists",
        True,
        build,
    )


def _contained_39() -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env = _env()
        hyp = [
            _invariants(env),
            env["op"] == OP_CODES["reinterpret"],
            env["src_static"],
            env["res_static"],
            valid("triton-3.9", env),
        ]
        goal = z3.And(*[holds(rule(r), env) for r in UNSAFE["contained"]])
        return z3.Implies(z3.And(*hyp), goal), {"request": env}

    return Theorem(
        "contained.triton-3.9.reinterpret",
        "every 3.9-valid reinterpret with static shapes lies in its source view's footprint",
        "triton-3.9",
        "valid",
        True,
        build,
    )


def _shared_byte_reinterpret(env: Env, byte_elems: bool) -> list[z3.BoolRef]:
    hyp = [
        _invariants(env),
        env["op"] == OP_CODES["reinterpret"],
        env["src_space"] == 0,
        env["src_static"],
        env["res_static"],
        env["src_base"] == 0,
        env["align"] % DEFAULT_ALIGNMENT == 0,
        env["src_bits"] >= 1,
        env["res_bits"] >= 1,
        # Shared memory is far below 2^31 bytes.
        term("src_bytes", env) <= term("INT32_MAX", env),
        term("res_bytes", env) <= term("INT32_MAX", env),
    ]
    if byte_elems:
        # The element widths MLIR has for whole-byte types.
        hyp += [
            z3.Or(*[env[f"{side}_bits"] == b for b in WIDTHS if b % 8 == 0])
            for side in ("src", "res")
        ]
    return hyp


def _reinterpret_38(kind: str) -> Theorem:
    swizzle_rule = "alias.base.aligned"

    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env = _env()
        hyp = _shared_byte_reinterpret(env, kind != "subbyte") + [valid("triton-3.8", env)]
        if kind == "contained":
            goal = z3.And(*[holds(r, env) for r in rules_for(SAFE) if r.id != swizzle_rule])
        elif kind == "safe":
            goal = valid(SAFE, env)
        else:
            goal = holds(rule("alias.range.fits"), env)
        return z3.Implies(z3.And(*hyp), goal), {"request": env}

    statements = {
        "contained": "a 3.8-valid reinterpret of a shared-memory allocation with whole-byte "
        "elements satisfies every safe rule but alias.base.aligned: it is a safe alias at "
        "offset 0 up to the swizzle-repeat start of an NVMMA result",
        "safe": "... and alias.base.aligned too (refuted: 3.8 reinterprets a 16-byte-aligned "
        "buffer as a 128-byte-swizzled NVMMA tile)",
        "subbyte": "with sub-byte elements the result still fits (refuted: 3.8 compares bits, "
        "but shared memory holds one byte per i1)",
    }
    return Theorem(
        f"reinterpret_38.{kind}",
        statements[kind],
        "triton-3.8",
        "valid",
        kind == "contained",
        build,
    )


def all_theorems() -> list[Theorem]:
    out: list[Theorem] = []
    out += [_unsafe_accept(p, op, kind) for p, op, kind in UNSAFE_CASES]
    out.append(_contained_39())
    out += [_reinterpret_38(k) for k in ("contained", "safe", "subbyte")]
    out += recipe_theorems()
    return out


def witness_request(outcome: Outcome) -> dict[str, Any] | None:
    """For an unsafe_accept theorem: the witness as a JSON request (None otherwise)."""
    t = outcome.theorem
    ce = outcome.counterexample
    if not t.id.startswith("unsafe_accept.") or not ce:
        return None
    facts = ce["view"]["facts"]
    x = {k[2:]: v for k, v in facts.items() if k.startswith("x_")}
    return to_view_request(facts, x, t.id.split(".")[-2])


def minimal(t: Theorem, timeout_ms: int = 20000) -> dict[str, Any] | None:
    """The smallest witness of an ``exists`` theorem (lexicographic: result rank, bytes on
    both sides, non-negative offset and index, their size, then element widths and counts)."""
    claim, envs = t.build()
    return _smallest(claim, envs["view"], t.id.split(".")[-2], timeout_ms)


def family_counterexample(t: Theorem, timeout_ms: int = 20000) -> dict[str, Any] | None:
    """For a refuted ``valid`` theorem about reinterprets: the smallest counterexample among
    the family's real requests (the solver's own one is facts with no request form)."""
    claim, envs = t.build()
    env = envs["request"]
    x = _extra("")
    query = z3.And(claim.arg(0), z3.Not(claim.arg(1)), view_family(env, x, "reinterpret"))
    return _smallest(
        query, {**env, **{f"x_{k}": v for k, v in x.items()}}, "reinterpret", timeout_ms
    )


def _smallest(query: z3.BoolRef, env: Env, op: str, timeout_ms: int) -> dict[str, Any] | None:
    # Plain shapes first, then the fewest bytes, then offsets and indices past the end
    # rather than before the start, and the nearest ones; then the narrowest elements, so
    # that requests of one size do not tie.
    objectives = [env["res_rank"], term("src_bytes", env) + term("res_bytes", env)]
    for name in ("off", "idx"):
        objectives.append(z3.If(env[name] < 0, 1, 0))
        objectives.append(z3.If(env[name] >= 0, env[name], -env[name]))
    objectives += [env["src_bits"], env["res_bits"], env["src_elems"], env["res_elems"]]
    model = solve([query], objectives=objectives, timeout_ms=timeout_ms).model
    if model is None:
        return None
    facts = model_facts(model, env)
    x = {k[2:]: v for k, v in facts.items() if k.startswith("x_")}
    return {"facts": facts, "request": to_view_request(facts, x, op)}


# The recipe theorems ask each solver about several emitted ops at once; cvc5 needs up to two
# minutes on the 3.8 index recipe once alias.size.static asks for a source element of at least
# one bit (measured: 111 s on a 2-core machine), more than the default minute per part.
RECIPE_TIMEOUT_MS = 240_000


def prove(solvers: tuple[str, ...] = ("z3", "cvc5"), only: str | None = None) -> list[Outcome]:
    return [prove_one(t, solvers) for t in all_theorems() if not only or t.id.startswith(only)]


def prove_one(t: Theorem, solvers: tuple[str, ...] = ("z3", "cvc5")) -> Outcome:
    """One theorem decided as :func:`prove` decides it, with the witness it records."""
    if t.id.startswith("recipe_"):
        o = run_theorem(t, solvers, timeout_ms=RECIPE_TIMEOUT_MS)
    else:
        o = run_theorem(t, solvers)
    if t.kind == "exists" and o.status == "proved" and t.id.startswith("unsafe_accept."):
        # The smallest witness; should the optimiser time out, the solver's own one.
        facts = (o.counterexample or {}).get("view", {}).get("facts", {})
        best = minimal(t) or {"facts": facts, "request": witness_request(o)}
        o.counterexample = {"view": best}
    elif t.id.startswith("recipe_") and o.status == "finding":
        o.counterexample = smallest_counterexample(t) or o.counterexample
    elif t.id.startswith("reinterpret_38.") and o.status == "finding":
        best = family_counterexample(t)
        o.counterexample = {"view": best} if best else _facts_only(o.counterexample)
    return o


def _facts_only(ce: dict[str, Any] | None) -> dict[str, Any] | None:
    """A counterexample of view facts: the alias request form would misread them."""
    return {role: {"facts": ex["facts"]} for role, ex in ce.items()} if ce else None


def _check_witness(o: Outcome) -> bool | None:
    """A witness request re-parsed: valid under the theorem's profile, invalid under safe."""
    from alias_spec.model.interp import check_facts
    from alias_spec.model.request import parse_request

    req = (o.counterexample or {}).get("view", {}).get("request")
    if not isinstance(req, dict) or "op" not in req:
        return None
    facts = parse_request(req).facts
    return check_facts(facts, o.theorem.profile).valid and not check_facts(facts, SAFE).valid
