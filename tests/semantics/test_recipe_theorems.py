"""The recipe theorems' premises (alias_spec/semantics/recipe_theorems.py).

The theorems themselves are proved in tests/semantics/test_triton_profiles.py. Here: each theorem's
hypotheses can be met (a vacuous theorem proves nothing), and the facts the theorems build for
every emitted op are the facts the request parser reads off the ops the frontend really emits,
on lowerings compiled by the installed Triton.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
import z3

from alias_spec.model.facts import FACTS
from alias_spec.model.request import parse_request
from alias_spec.semantics import recipe_theorems as rt
from alias_spec.semantics.z3expr import pin
from tests.paths import GPU_CORPUS

CORPUS = GPU_CORPUS


@pytest.mark.parametrize("theorem", rt.recipe_theorems(), ids=lambda t: t.id)
def test_hypotheses_can_be_met(theorem: rt.Theorem) -> None:
    assert rt.hypotheses_satisfiable(theorem), theorem.id


def test_every_recipe_and_release_has_a_theorem() -> None:
    ids = {t.id for t in rt.recipe_theorems()}
    for recipe in ("view", "index"):
        for release in rt.TV:
            assert any(i.startswith(f"recipe_{recipe}.{release}") for i in ids), (recipe, release)
    assert "recipe_granule.triton-3.6" in ids  # the granule recipe is 3.6-only


# --- the construction against the parser, on real lowerings ----------------------------------

HAVE_TRITON = importlib.util.find_spec("triton") is not None
# Placement of views after the first (where the stacked view and the row start in the
# allocation) is not in the op's types; test_frontend_cpu.py checks it in the LLVM IR and the
# GPU corpus checks it byte for byte.
PLACEMENT = {"src_base", "align"}


def _free(e: z3.ExprRef, op_index: int) -> bool:
    """A fact the construction leaves free (quantified over), not one it claims."""
    if not z3.is_const(e) or z3.is_int_value(e) or z3.is_true(e) or z3.is_false(e):
        return False
    return e.decl().name().startswith((f"v{op_index + 1}_", "stack_"))


def expected_ops(request: dict[str, Any], recipe: str, gran: int) -> list[dict[str, Any]]:
    """The construction's facts for each emitted op, for one concrete alias request on 3.6
    (None where the construction leaves a fact free)."""
    facts = parse_request(request).facts
    a, _ = rt._alias_hypotheses("triton-3.6", recipe, ())
    ops, _, defs = rt._sequence(a, recipe, "triton-3.6")
    s = z3.Solver()
    s.add(*pin(a, facts), *defs, a["recipe_gran"] == gran)
    assert s.check() == z3.sat, request
    m = s.model()
    out = []
    for i, v in enumerate(ops):
        row: dict[str, Any] = {}
        for f in FACTS:
            e = v[f.name]
            if _free(e, i):
                row[f.name] = None
                continue
            val = m.eval(e, model_completion=True)
            row[f.name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
        out.append(row)
    return out


def _cases() -> list[dict[str, Any]]:
    """Corpus cases whose first alias is of the root allocation: one per recipe, layout kinds
    and ranks."""
    picked: dict[tuple[str, str], dict[str, Any]] = {}
    for c in json.loads(CORPUS.read_text())["cases"]:
        if c["view"]["op"] == "none":
            step = c["chain"][0]
            key = (
                c["recipes"][0],
                c["root"]["layout"]["kind"],
                step["layout"]["kind"],
                len(c["root"]["shape"]),
                len(step["shape"]),
            )
            picked.setdefault(key, c)
    return list(picked.values())


def _lower(case: dict[str, Any]) -> tuple[str, list[Any], str]:
    """Compile the case's first alias alone; the source IR and its memdesc view ops."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from alias_spec.lint.mlir_views import read_module
    from tests.gpu import corpus_kernel as ck
    from tests.semantics.recipe_kernel import one_alias

    root, step = case["root"], case["chain"][0]
    cx = {
        "S0": root["shape"],
        "D0": ck.DTYPES[root["dtype"]],
        "L0": ck.make_layout(root["layout"]),
        "S1": step["shape"],
        "D1": ck.DTYPES[step["dtype"]],
        "L1": ck.make_layout(step["layout"]),
        "OFF": step["offset"],
    }
    sig = {"out_ptr": "*fp16", **{k: "constexpr" for k in cx}}
    src = GluonASTSource(one_alias, signature=sig, constexprs=cx)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    text = k.asm["source"]
    module = read_module(text)
    all_ops = [o for f in module.functions for o in f.ops]
    ops = [o for o in all_ops if o.name.startswith("ttg.memdesc_")]
    alloc = next(o for o in all_ops if o.name == "ttg.local_alloc")
    consts = {n: v for f in module.functions for n, v in f.constants.items()}
    return text, [(o, consts, module.aliases) for o in ops], alloc.res_type


def _parsed(op: Any, consts: dict[str, int], aliases: dict[str, str]) -> dict[str, Any]:
    req: dict[str, Any] = {"op": op.name, "source": op.src_type, "result": op.res_type}
    req["attributes"] = aliases
    if op.name == "ttg.memdesc_index":
        req["index"] = consts[op.operands[1]]
    return dict(parse_request(req).facts)


def _tiered(cases: list[dict[str, Any]]) -> list[Any]:
    """The first case of each recipe and source layout kind in the fast tier, the rest slow
    (each is a Triton compile)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in cases:
        key = (c["recipes"][0], c["root"]["layout"]["kind"])
        marks = () if key not in seen else (pytest.mark.slow,)
        seen.add(key)
        out.append(pytest.param(c, marks=marks, id=f"{c['id']}-{c['recipes'][0]}"))
    return out


@pytest.mark.skipif(not HAVE_TRITON, reason="needs triton")
@pytest.mark.parametrize("case", _tiered(_cases()))
def test_construction_matches_the_parser_on_real_lowerings(case: dict[str, Any]) -> None:
    import triton

    if not triton.__version__.startswith("3.6."):
        pytest.skip("the corpus lowerings are for Triton 3.6")
    recipe = case["recipes"][0]
    off = int(case["chain"][0]["offset"])
    text, emitted, alloc_type = _lower(case)
    # The alias request as the frontend sees it: the allocation's type and the alias's type,
    # with their layouts as compiled (the corpus JSON does not carry a layout's rank).
    aliases = emitted[0][2]
    request = {
        "source": alloc_type,
        "result": emitted[-1][0].res_type,
        "alias_offset_bytes": off,
        "attributes": aliases,
    }
    want = expected_ops(request, recipe, off & -off if off else 0)
    assert len(emitted) == len(want), text
    for i, ((op, consts, aliases), exp) in enumerate(zip(emitted, want, strict=True)):
        got = _parsed(op, consts, aliases)
        skip = PLACEMENT if i > 0 else set()
        diff = {
            k: (v, got[k])
            for k, v in exp.items()
            if v is not None and k not in skip and v != got[k]
        }
        assert not diff, (case["id"], recipe, i, op.text, diff)
