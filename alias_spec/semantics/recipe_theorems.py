"""Theorems about the frontend's Gluon recipes (alias_spec/model/recipes.py).

``tle.gpu.alloc(alias=...)`` on stock Triton is lowered to a short sequence of Gluon view ops,
chosen by the generated recipe predicate. For a request the ``safe`` profile accepts and the
frontend lowers with a recipe on a release, these theorems say:

* ``recipe_view.<release>``: ``src._reinterpret(D, S, L)`` (offset 0) is accepted by the
  release and is itself a safe view.
* ``recipe_index.<release>``: ``src._reinterpret(D, [M, *S], L).index(k)._reinterpret(D, S, L)``
  with ``k = off // B`` (``B`` the result's bytes): the release accepts all three ops, ``k``
  lies in ``[0, M)``, the index lands exactly ``off`` bytes after the source view's start, and
  the index and the last reinterpret are safe views. The stacked view is contained in the
  source's bytes when the source is dense (``recipe_index_stack.*``).
* ``recipe_granule.triton-3.6``: the same through byte granules ``g`` (the largest power of 2
  dividing ``off``): accepted, in range, lands at ``off``, so the last op's result is the
  alias itself. Its stacked byte view can reach past the source (``recipe_granule_stack``, a
  finding: harmless, since nothing reads through it), and a granule row can be smaller than
  the result, so the intermediate views are not claimed safe.

Each emitted op is described by the spec's own facts, built from the alias request's facts the
way the request parser would build them for the op's memdesc types (``_type_of`` /
``_view``); ``tests/semantics/test_triton_profiles.py`` checks that construction against the
parser on concrete lowerings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import z3

from alias_spec.model import recipes as recipe_model
from alias_spec.model.catalogue import SAFE, rule
from alias_spec.model.dtypes import DTYPE_BITS, WIDTHS
from alias_spec.model.facts import CONSTANTS, OPS
from alias_spec.model.physical import DEFAULT_ALIGNMENT
from alias_spec.semantics.lexmin import solve
from alias_spec.semantics.theorems import Theorem
from alias_spec.semantics.z3expr import (
    Env,
    fact_vars,
    holds,
    invariants,
    model_facts,
    term,
    to_z3,
    valid,
)

# The installed Triton version the recipe predicate reads, per profile.
TV = {"triton-3.6": 306, "triton-3.7": 307, "triton-3.8": 308, "triton-3.9": 309}
SMEM = CONSTANTS["SMEM"]
POW2_31 = [2**k for k in range(32)]

# Facts that describe one memdesc type (a side of a view op), without the side's prefix.
TYPE_FACTS = (
    "rank",
    "alloc_rank",
    "lay_rank",
    "d0_pow2",
    "tail_pow2",
    "nonzero",
    "alloc_fits",
    "alloc_tail_pow2",
    "subview",
    "nvmma_fits",
    "nvmma_rows",
    "bits",
    "elems",
    "static",
    "space",
    "mutable",
)
# The physical placement of a source view (where its bytes are in the allocation).
CS = ("c0", "c1", "c2")
GEOMETRY = ("src_base", "src_start", "run", "p0", "c0", "p1", "c1", "p2", "c2", "align")

# Recipe facts that are spec facts under another name.
_RECIPE_LINKS = {
    "res_rank": "res_rank",
    "res_d0_pow2": "res_d0_pow2",
    "res_tail_pow2": "res_tail_pow2",
    "res_layout_rank": "res_lay_rank",
    "src_sub": "src_subview",
    "src_lead_pow2": "src_d0_pow2",
}

Type = dict[str, z3.ExprRef]


def _type_of(env: Env, side: str) -> Type:
    return {k: env[f"{side}_{k}"] for k in TYPE_FACTS}


def _result_type(alias: Env) -> Type:
    """The alias's result as the frontend types it: shape S, layout L, alloc shape S."""
    t = _type_of(alias, "res")
    t.update(
        alloc_rank=t["rank"],
        alloc_fits=z3.BoolVal(True),
        # Its alloc shape is its shape: the dims the layout covers are the shape's.
        alloc_tail_pow2=z3.And(t["tail_pow2"], z3.Or(t["lay_rank"] < t["rank"], t["d0_pow2"])),
        subview=z3.BoolVal(False),
        static=z3.BoolVal(True),
        space=z3.IntVal(SMEM),
        mutable=z3.BoolVal(True),
    )
    return t


def _stacked(inner: Type, count: z3.ArithRef, name: str) -> Type:
    """``[count, *inner]`` with inner's layout (which leaves the new leading dim outside it)."""
    t = dict(inner)
    t.update(
        rank=inner["rank"] + 1,
        alloc_rank=inner["rank"] + 1,
        d0_pow2=z3.Bool(f"{name}_d0_pow2"),  # whether count is a power of 2 does not matter
        tail_pow2=z3.And(inner["d0_pow2"], inner["tail_pow2"]),
        nonzero=z3.And(inner["nonzero"], count >= 1),
        # The layout covers inner's dims (or all but inner's first), never the new one.
        alloc_tail_pow2=z3.And(
            inner["tail_pow2"], z3.Or(inner["lay_rank"] < inner["rank"], inner["d0_pow2"])
        ),
        elems=count * inner["elems"],
    )
    # The NVMMA checks read the dims the layout covers, which are inner's.
    return t


def _bytes_1d(elems: z3.ArithRef) -> Type:
    """``[elems] x i8`` with a 1-D unswizzled layout (the granule recipe's rows)."""
    true = z3.BoolVal(True)
    return {
        "rank": z3.IntVal(1),
        "alloc_rank": z3.IntVal(1),
        "lay_rank": z3.IntVal(1),
        "d0_pow2": true,  # the granule is a power of 2
        "tail_pow2": true,
        "nonzero": elems >= 1,
        "alloc_fits": true,
        "alloc_tail_pow2": true,
        "subview": z3.BoolVal(False),
        "nvmma_fits": true,
        "nvmma_rows": true,
        "bits": z3.IntVal(DTYPE_BITS["i8"]),
        "elems": elems,
        "static": true,
        "space": z3.IntVal(SMEM),
        "mutable": true,
    }


def _dense_at(base: z3.ArithRef, elems: z3.ArithRef, align: z3.ExprRef) -> dict[str, z3.ExprRef]:
    """Geometry of a fresh (non-subview) descriptor: one run starting ``base`` bytes in."""
    one = z3.IntVal(1)
    return dict(
        src_base=base, src_start=z3.IntVal(0), run=elems, p0=elems, c0=one, p1=elems, c1=one,
        p2=elems, c2=one, align=align,
    )  # fmt: skip


def _view(
    name: str,
    op: str,
    src: Type,
    res: Type,
    geometry: Mapping[str, z3.ExprRef],
    swz: z3.ExprRef,
    **op_facts: z3.ExprRef | int | bool,
) -> Env:
    """The facts of one emitted view op. Facts not named here stay free (universally
    quantified in a ``valid`` claim): the element-type and layout equalities of a reinterpret,
    which no reinterpret rule reads, and ``src_prefix_sub``."""
    v = fact_vars(f"{name}_")
    for k in TYPE_FACTS:
        v[f"src_{k}"] = src[k]
        v[f"res_{k}"] = res[k]
    v.update(geometry)
    neutral: dict[str, z3.ExprRef | int | bool] = dict(
        src_buffered=True, init_given=False, scope=SMEM, off_int=True, off=0, idx_static=True,
        idx=0, idx_shape_ok=True, sub_rank_ok=True, sub_split=False, sub_zero_ok=True,
        sub_tile_ok=True, sub_off_lt=True, sub_in_bounds=True, sub_swz_ok=True,
    )  # fmt: skip
    neutral.update(op_facts)
    for k, val in neutral.items():
        v[k] = z3.BoolVal(val) if isinstance(val, bool) else (
            z3.IntVal(val) if isinstance(val, int) else val
        )  # fmt: skip
    v["op"] = z3.IntVal(OPS[op])
    v["swz"] = swz
    return v


def _recipe_env(alias: Env) -> dict[str, z3.ExprRef]:
    env: dict[str, z3.ExprRef] = dict(alias)
    for f in recipe_model.RECIPE_FACTS:
        if f.name in _RECIPE_LINKS:
            env[f.name] = alias[_RECIPE_LINKS[f.name]]
        elif f.name == "src_layout_full":
            env[f.name] = alias["src_lay_rank"] == alias["src_alloc_rank"]
        else:
            env[f.name] = (z3.Bool if f.sort == "bool" else z3.Int)(f"recipe_{f.name}")
    return env


def _recipe_formula(text: str, env: Mapping[str, z3.ExprRef]) -> z3.BoolRef:
    return to_z3(recipe_model.expand(text), dict(env))


def _recipe(name: str) -> recipe_model.Recipe:
    return next(r for r in recipe_model.RECIPES if r.name == name)


def _src_type_valid(profile: str, env: Env) -> z3.BoolRef:
    """The source is an existing descriptor: its own type passes the release's type rules."""
    parts = [
        env["src_rank"] >= 1,
        env["src_rank"] - env["src_lay_rank"] >= 0,
        env["src_rank"] - env["src_lay_rank"] <= 1,
        env["src_alloc_rank"] >= env["src_rank"],
        env["src_alloc_fits"],
        env["src_tail_pow2"],
        # Triton aborts on a non-power-of-2 1-D shared view, so no such source exists.
        z3.Or(env["src_rank"] >= 2, env["src_d0_pow2"]),
    ]
    if profile != "triton-3.6":
        parts += [env["src_nonzero"], env["src_nvmma_fits"]]
    if profile == "triton-3.9":
        parts += [
            z3.Or(env["src_d0_pow2"], env["src_lay_rank"] < env["src_rank"]),
            env["src_alloc_tail_pow2"],
            env["src_bits"] % 8 == 0,
            env["src_bits"] >= 8,
        ]
    return z3.And(*parts)


ASSUMPTIONS = {"dense": "a source that is not a subview"}


def _alias_hypotheses(profile: str, recipe: str, assume: tuple[str, ...]) -> tuple[Env, list]:
    """A safe alias request, lowered on ``profile``'s release with ``recipe``: every support
    condition holds and the recipe predicate chose it (earlier recipes may hold too: the
    frontend takes the first, and each is proved on its own)."""
    a = fact_vars("alias_")
    r = _recipe_env(a)
    hyp = [
        invariants(a),
        a["op"] == OPS["tle.memdesc_alias"],
        valid(SAFE, a),
        r["tv"] == TV[profile],
        *[_recipe_formula(s.formula, r) for s in recipe_model.SUPPORT],
        _recipe_formula(_recipe(recipe).formula, r),
        _src_type_valid(profile, a),
        a["align"] % DEFAULT_ALIGNMENT == 0,
        a["res_mutable"],  # the frontend's aliases are always mutable
        term("src_bytes", a) <= term("INT32_MAX", a),  # shared memory is far below 2 GiB
        # The result layout is one the frontend builds for the result: it fits.
        a["res_nvmma_fits"],
        a["res_nvmma_rows"],
        a["src_nvmma_rows"],
    ]
    # The element widths MLIR's types have (i1 is one byte per element in shared memory).
    hyp += [z3.Or(*[a[f"{side}_bits"] == b for b in WIDTHS]) for side in ("src", "res")]
    # A source whose type is not a subview is one dense run from its base (as the request
    # parser and the frontend build it; the spec's invariants leave alias facts free here).
    one_run = [a["src_start"] == 0, a["run"] == a["src_elems"]]
    hyp.append(z3.Implies(z3.Not(a["src_subview"]), z3.And(*one_run, *[a[c] == 1 for c in CS])))
    if "dense" in assume:
        hyp.append(z3.Not(a["src_subview"]))
    if recipe == "granule":
        g = r["gran"]
        # gran is the largest power of 2 dividing off (alias_spec/frontend/tle/place.py).
        hyp += [z3.Or(*[g == p for p in POW2_31]), a["off"] % g == 0, (a["off"] / g) % 2 == 1]
    return a | {f"recipe_{k}": v for k, v in r.items() if k not in a}, hyp


def _start(a: Env) -> z3.ArithRef:
    """Bytes from the allocation's start to the source view's first element."""
    return a["src_base"] + a["src_start"] * term("src_eb", a)


def _source_view(name: str, a: Env, res: Type, swz: z3.ExprRef) -> Env:
    """``src._reinterpret(...)`` to ``res``: the alias's own source, its placement kept."""
    geometry = {k: a[k] for k in GEOMETRY}
    return _view(name, "ttg.memdesc_reinterpret", _type_of(a, "src"), res, geometry, swz)


def _sequence(
    a: Env, recipe: str, profile: str
) -> tuple[list[Env], dict[str, z3.ExprRef], list[z3.BoolRef]]:
    """The emitted ops' facts, in order, the recipe's own numbers (count, index, row bytes)
    and what defines them. The quotients the lowering computes (alias_spec/frontend/lowering.py)
    are named, not divided: ``off == k * row`` pins ``k`` to ``off // row`` because the recipe
    predicate demands ``off % row == 0``, and the solvers do far better without division."""
    out = _result_type(a)
    if recipe == "view":
        return [_source_view("v1", a, out, a["swz"])], {}, []
    k, count = z3.Int("recipe_k"), z3.Int("recipe_count")
    if recipe == "index":
        row, row_bytes, swz = out, term("res_bytes", a), a["swz"]
    else:
        row, row_bytes, swz = _bytes_1d(a["recipe_gran"]), a["recipe_gran"], z3.IntVal(0)
    defs = [row_bytes >= 1, a["off"] == k * row_bytes]
    if TV[profile] == 308:
        # 3.8 wants the stacking reinterpret to cover the source exactly.
        defs.append(term("src_bytes", a) == count * row_bytes)
    else:
        defs.append(count == k + 1)
    stacked = _stacked(row, count, "stack")
    v1 = _source_view("v1", a, stacked, swz)
    index_at = _start(a)
    v2 = _view(
        "v2", "ttg.memdesc_index", stacked, row, _dense_at(index_at, stacked["elems"], a["align"]),
        swz, idx=k, off=k * row_bytes, same_elem=True, same_enc=True,
    )  # fmt: skip
    lands = index_at + k * row_bytes
    same = recipe == "index"  # the last reinterpret changes nothing but the alloc shape
    v3 = _view(
        "v3", "ttg.memdesc_reinterpret", row, out, _dense_at(lands, row["elems"], a["align"]),
        a["swz"], **({"same_elem": True, "same_enc": True, "same_alloc": True} if same else {}),
    )  # fmt: skip
    return [v1, v2, v3], {"count": count, "k": k, "row_bytes": row_bytes, "lands": lands}, defs


CASES: dict[str, tuple[str, str, tuple[str, ...], bool, str]] = {
    # id: (recipe, profile, assumptions, expected to hold, what a refutation means)
    "recipe_view.triton-3.6": ("view", "triton-3.6", (), True, ""),
    "recipe_view.triton-3.7": ("view", "triton-3.7", (), True, ""),
    "recipe_view.triton-3.8": ("view", "triton-3.8", (), True, ""),
    "recipe_view.triton-3.9": ("view", "triton-3.9", (), True, ""),
    "recipe_index.triton-3.6": ("index", "triton-3.6", (), True, ""),
    "recipe_index.triton-3.7": ("index", "triton-3.7", (), True, ""),
    "recipe_index.triton-3.8": ("index", "triton-3.8", (), True, ""),
    "recipe_index.triton-3.9": ("index", "triton-3.9", (), True, ""),
    "recipe_granule.triton-3.6": ("granule", "triton-3.6", (), True, ""),
    "recipe_granule.triton-3.7": ("granule", "triton-3.7", (), True, ""),
}
STACK_CASES: dict[str, tuple[str, str, tuple[str, ...], bool, str]] = {
    "recipe_index_stack.triton-3.6": ("index", "triton-3.6", ("dense",), True, ""),
    "recipe_index_stack.triton-3.6.subview": (
        "index",
        "triton-3.6",
        (),
        False,
        "refuted: over a strided subview the stacked view spans the gaps between its runs "
        "(bytes of the allocation outside the source view, never read through it)",
    ),
    "recipe_index_stack.triton-3.8": ("index", "triton-3.8", (), True, ""),
    "recipe_index_stack.triton-3.9": ("index", "triton-3.9", ("dense",), True, ""),
    "recipe_granule_stack.triton-3.6": (
        "granule",
        "triton-3.6",
        ("dense",),
        False,
        "refuted: the granule can be larger than the result, so the stacked byte view reaches "
        "past the source's end (never read through it)",
    ),
}


def _claim(
    recipe: str,
    profile: str,
    assume: tuple[str, ...],
    goal: Callable[..., list[z3.BoolRef]],
    chosen: bool = False,
) -> Callable[[], tuple[z3.BoolRef, dict[str, Env]]]:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        a, hyp = _alias_hypotheses(profile, recipe, assume)
        ops, nums, defs = _sequence(a, recipe, profile)
        hyp += defs
        if chosen:  # no earlier recipe holds, so the lowering really emits this one
            r = {**a, **{k.removeprefix("recipe_"): v for k, v in a.items()}}
            for earlier in recipe_model.RECIPES[: recipe_model.RECIPES.index(_recipe(recipe))]:
                hyp.append(z3.Not(_recipe_formula(earlier.formula, r)))
        # Every emitted op is a well-formed request of its own (the construction's duty; a
        # violation would make the claim vacuous, so tests check the hypotheses satisfiable).
        hyp += [invariants(v) for v in ops]
        return z3.Implies(z3.And(*hyp), z3.And(*goal(a, ops, nums))), {"alias": a}

    return build


def _accepted(recipe: str, profile: str) -> Callable[..., list[z3.BoolRef]]:
    def goal(a: Env, ops: list[Env], nums: dict[str, z3.ExprRef]) -> list[z3.BoolRef]:
        out = [valid(profile, v) for v in ops]
        if not nums:  # one reinterpret with the alias's own source and result
            return out + [valid(SAFE, ops[0])]
        out += [
            nums["k"] >= 0,
            nums["k"] < nums["count"],
            # The index lands at the alias's offset, so the last op's result (the alias's
            # type) starts at the alias's address: it is the alias, safe as the alias is.
            ops[1]["off"] == a["off"],
        ]
        if recipe == "index":
            # Rows are the result itself, so the index and the last reinterpret are safe
            # views in their own right. (A granule row can be smaller than the result.)
            out += [valid(SAFE, ops[1]), valid(SAFE, ops[2])]
        return out

    return goal


def _stack_contained(a: Env, ops: list[Env], nums: dict[str, z3.ExprRef]) -> list[z3.BoolRef]:
    return [holds(rule(r), ops[0]) for r in ("alias.range.fits", "alias.range.physical")]


def _statement(recipe: str, profile: str, assume: tuple[str, ...], stack: bool) -> str:
    given = ", ".join(ASSUMPTIONS[k] for k in assume)
    ops = _recipe(recipe).ops
    head = f"for a safe alias that the frontend lowers with recipe '{recipe}' ({ops}) on "
    head += f"{profile} ({given}), " if given else f"{profile}, "
    if stack:
        return head + "the first reinterpret's result lies within the source view's bytes"
    if recipe == "view":
        return head + "the emitted memdesc_reinterpret is accepted by the release and is safe"
    head += (
        "the release accepts every emitted op, and the index is within the stacked view and "
        "lands at the alias's offset"
    )
    if recipe == "index":
        head += "; the index and the last reinterpret are safe views"
    return head


def recipe_theorems() -> list[Theorem]:
    out: list[Theorem] = []
    for table, stack in ((CASES, False), (STACK_CASES, True)):
        for tid, (recipe, profile, assume, expect, refutation) in table.items():
            goal = _stack_contained if stack else _accepted(recipe, profile)
            statement = _statement(recipe, profile, assume, stack)
            if refutation:
                statement += f" ({refutation})"
            build = _claim(recipe, profile, assume, goal, chosen=stack)
            out.append(Theorem(tid, statement, profile, "valid", expect, build))
    return out


def hypotheses_satisfiable(t: Theorem, timeout_ms: int = 60000) -> bool:
    """The theorem is not vacuous: some alias request meets all its hypotheses."""
    claim, _ = t.build()
    return solve(lambda: [claim.arg(0)], timeout_ms=timeout_ms).result == z3.sat


def smallest_counterexample(t: Theorem, timeout_ms: int = 20000) -> dict[str, Any] | None:
    """For a refuted recipe theorem: the smallest alias that refutes it (whole-byte types
    first, then the fewest bytes, the smallest offsets), as the facts that matter and the
    recipe's numbers. (No JSON request: the alias's type facts and its placement are separate
    facts here, and a request could not pin both.)"""
    claim, envs = t.build()
    a = envs["alias"]
    # Sub-byte elements count only where no whole-byte alias refutes the claim.
    objectives = [
        sum(z3.If(a[f"{side}_bits"] % 8 == 0, 0, 1) for side in ("src", "res")),
        term("src_bytes", a) + term("res_bytes", a),
        a["off"] + a["src_base"] + a["src_start"] + a["align"] + a["p0"],
    ]
    refuted = z3.And(claim.arg(0), z3.Not(claim.arg(1)))
    m = solve([refuted], objectives=objectives, timeout_ms=timeout_ms).model
    del refuted  # freed with the solver: the ids of later terms, so later models, depend on it
    if m is None:
        return None
    shown = (
        "src_bits", "src_elems", "src_subview", "src_base", "src_start", "run", "c0", "p0",
        "c1", "p1", "c2", "p2", "align", "res_bits", "res_elems", "res_rank", "res_lay_rank",
        "off", "swz",
    )  # fmt: skip
    env = {k: a[k] for k in shown}
    env |= {"stack_count": z3.Int("recipe_count"), "index": z3.Int("recipe_k")}
    if "recipe_gran" in a:
        env["granule"] = a["recipe_gran"]
    return {"alias": {"facts": model_facts(m, env)}}
