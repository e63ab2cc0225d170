"""The committed per-release lowering results (docs/data/lowering-releases/) against the recipe
predicate, without the releases themselves.

``alias-spec dev lowering-check`` compiled every GPU corpus case for sm_90 with Triton
3.6, 3.7, 3.8 and 3.9 and recorded, per alias step, the recipe the frontend chose and the
recipe facts it chose on. Here, from the corpus alone: the spec facts of each step are parsed
from its request, the recipe facts recomputed the way the frontend computes them, and the
generated predicate re-run for each release. A case whose steps all have a recipe must have
compiled with one allocation of the expected size addressed at the expected offset; a case
the frontend called unsupported must be one the predicate finds no recipe for.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.generated import recipes
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.dtypes import dtype_bits
from alias_spec.model.request import parse_request
from tests.paths import GPU_CORPUS, ROOT

RESULTS = ROOT / "docs" / "data" / "lowering-releases"
CORPUS = GPU_CORPUS
RERUN = "rerun `alias-spec dev lowering-check --out FILE` with that release"
RELEASES = sorted(p.removeprefix("triton-") for p in PROFILES if p.startswith("triton-"))


def _place_module() -> Any:
    # The frontend's view model is pure Python; load it without the package, which needs Triton.
    spec = importlib.util.spec_from_file_location(
        "tle_place", ROOT / "alias_spec" / "frontend" / "tle" / "place.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


place = _place_module()
CASES: list[dict[str, Any]] = json.loads(CORPUS.read_text())["cases"]
DOCS = {p.name: json.loads(p.read_text()) for p in sorted(RESULTS.glob("triton-*.json"))}


def _doc(release: str) -> dict[str, Any]:
    found = [d for d in DOCS.values() if d["triton"].startswith(release + ".")]
    assert len(found) == 1, f"want one result file for Triton {release}, found {len(found)}"
    return found[0]


# --- recomputing the facts from the corpus ---------------------------------------------------


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _layout_rank(layout: dict[str, Any]) -> int:
    return int(layout["rank"]) if layout["kind"] == "nvmma" else len(layout["order"])


def _layout_info(layout: dict[str, Any]) -> Any:
    if layout["kind"] == "nvmma":
        return place.LayoutInfo(
            "nvmma",
            _layout_rank(layout),
            swizzle_bytes=layout["swizzle_bytes"],
            row_major=not layout.get("transposed", False),
            bits=layout["element_bitwidth"],
        )
    order = list(layout["order"])
    return place.LayoutInfo(
        "swizzled",
        len(order),
        max_phase=layout["max_phase"],
        row_major=order == sorted(order, reverse=True),
    )


def _elem_bytes(dtype: str) -> int:
    return (dtype_bits(dtype, "dtype") + 7) // 8


def _sources(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Each alias step's source as Triton types it: shape, alloc shape, layout rank, and
    whether the spec's dense byte model describes its bytes (the frontend's place model)."""
    root, view = case["root"], case["view"]
    shape, alloc = list(root["shape"]), list(root["shape"])
    model = True
    if view["op"] == "index":
        shape, alloc = shape[1:], alloc[1:]
    elif view["op"] == "slice":
        shape[view["dim"]] = view["length"]
        info = _layout_info(root["layout"])
        p = place.Place.root(alloc, info, _elem_bytes(root["dtype"]))
        p = p.slice(len(alloc), view["start"], view["dim"])
        model = p.model_holds(tuple(shape))
    out = [{"shape": shape, "alloc": alloc, "lrank": _layout_rank(root["layout"]), "model": model}]
    for step in case["chain"][:-1]:
        s = list(step["shape"])
        out.append({"shape": s, "alloc": s, "lrank": _layout_rank(step["layout"]), "model": True})
    return out


def recipe_facts(case: dict[str, Any]) -> list[dict[str, int | bool]]:
    """The recipe facts of every alias step of a case (all but ``tv``)."""
    out = []
    for step, src in zip(case["chain"], _sources(case), strict=True):
        shape, lay, off = step["shape"], step["layout"], int(step["offset"])
        out.append(
            {
                "res_rank": len(shape),
                "res_d0_pow2": _pow2(shape[0]),
                "res_tail_pow2": all(_pow2(d) for d in shape[1:]),
                "res_layout_rank": _layout_rank(lay),
                "res_layout_bits": lay["element_bitwidth"] if lay["kind"] == "nvmma" else 0,
                "src_sub": src["shape"] != src["alloc"],
                "src_lead_pow2": _pow2(src["shape"][0]),
                "src_alloc_pow2": all(_pow2(d) for d in src["alloc"]),
                "src_layout_full": src["lrank"] == len(src["alloc"]),
                "src_model": src["model"],
                "gran": off & -off if off > 0 else 0,
            }
        )
    return out


def predicted(case: dict[str, Any], tv: int) -> list[tuple[str | None, list[str]]]:
    """(recipe, unsupported checks) per step, as the frontend on release ``tv`` decides."""
    out = []
    for request, extra in zip(case["requests"], recipe_facts(case), strict=True):
        facts = {**parse_request(request).facts, **extra, "tv": tv}
        reasons = [r[0] for r in recipes.unsupported(facts)]
        recipe = None if reasons else recipes.choose(facts)
        out.append((recipe, reasons or ([] if recipe else ["recipe"])))
    return out


PREDICTED: dict[int, dict[str, list[tuple[str | None, list[str]]]]] = {}


def _predicted(case: dict[str, Any], tv: int) -> list[tuple[str | None, list[str]]]:
    per = PREDICTED.setdefault(tv, {})
    if case["id"] not in per:
        per[case["id"]] = predicted(case, tv)
    return per[case["id"]]


# --- the checks ------------------------------------------------------------------------------


def problems(doc: dict[str, Any]) -> list[str]:
    """Everything in one release's results that contradicts the predicate or the corpus."""
    out: list[str] = []
    m = re.match(r"(\d+)\.(\d+)\.", doc["triton"])
    if not m or doc["tv"] != int(m.group(1)) * 100 + int(m.group(2)):
        out.append(f"tv {doc['tv']} does not match version {doc['triton']}")
    names = [k for k in recipes.RECIPE_FACTS if k != "tv"]
    if doc["fact_names"] != names:
        return out + [f"fact_names {doc['fact_names']} are not the predicate's {names}: {RERUN}"]
    if [r["id"] for r in doc["cases"]] != [c["id"] for c in CASES]:
        return out + [f"the results do not list the corpus cases in order: {RERUN}"]
    for case, rec in zip(CASES, doc["cases"], strict=True):
        out += [f"{doc['triton']} {case['id']}: {p}" for p in case_problems(case, rec, doc["tv"])]
    return out


def case_problems(case: dict[str, Any], rec: dict[str, Any], tv: int) -> list[str]:
    steps, chain, outcome = rec["steps"], case["chain"], rec["outcome"]
    want = _predicted(case, tv)
    out = []
    if outcome in ("error", "rejected"):
        out.append(f"outcome {outcome}: {rec.get('stderr') or rec.get('message')}")
    facts = recipe_facts(case)
    for i, step in enumerate(steps):
        got = dict(zip(recipes.RECIPE_FACTS[1:], step["facts"], strict=True))
        if got != facts[i]:
            diff = {k: (v, facts[i][k]) for k, v in got.items() if v != facts[i][k]}
            out.append(f"step {i}: the frontend's recipe facts differ from the corpus: {diff}")
        if (step["recipe"], step["reasons"]) != want[i]:
            out.append(f"step {i}: recorded {step['recipe']}, the predicate says {want[i][0]}")
        if step["recipe"] is None and i != len(steps) - 1:
            out.append(f"step {i} has no recipe, yet a later step was lowered")
    every = len(steps) == len(chain) and all(s["recipe"] for s in steps)
    if every and outcome != "compiled":
        out.append(f"every step had a recipe ({[s['recipe'] for s in steps]}), yet {outcome}")
    if outcome == "compiled":
        if not every:
            out.append("compiled without a recipe for every step")
        if rec["local_allocs"] != 1:
            out.append(f"{rec['local_allocs']} ttg.local_alloc ops, want 1")
        if rec["shared"] != case["expect"]["alloc_bytes"]:
            out.append(f"metadata.shared {rec['shared']}, want {case['expect']['alloc_bytes']}")
        static = not (case["view"]["op"] == "index" and case["view"].get("runtime"))
        if static and case["expect"]["abs_off"]:
            if rec.get("offset_expected") != case["expect"]["abs_off"] or not rec["offset_found"]:
                out.append(f"shared-memory offset {case['expect']['abs_off']} not found")
    if outcome == "unsupported":
        if steps and steps[-1]["recipe"] is None:
            if rec["checks"] != steps[-1]["reasons"]:
                out.append(f"error names {rec['checks']}, the step {steps[-1]['reasons']}")
        elif rec["checks"] != ["source.model"] or facts[len(steps)]["src_model"]:
            # Only the source model check fails before the predicate runs (no step recorded).
            out.append(f"unsupported ({rec['checks']}) at a step the predicate never refused")
    return out


# --- the tests -------------------------------------------------------------------------------


def test_results_are_the_four_releases() -> None:
    assert len(RELEASES) == 4
    versions = sorted(".".join(d["triton"].split(".")[:2]) for d in DOCS.values())
    assert versions == RELEASES, f"result files for {versions}, want {RELEASES}"
    for name, doc in DOCS.items():
        assert name == f"triton-{doc['triton']}.json"
        assert doc["target"] == "cuda:90" and doc["corpus"] == "tests/gpu/corpus.json"


@pytest.mark.parametrize("release", RELEASES)
def test_release_agrees_with_the_recipe_predicate(release: str) -> None:
    found = problems(_doc(release))
    assert not found, "\n".join(found[:20])


def test_releases_differ_where_the_predicate_says() -> None:
    """3.6 chose the corpus's recorded recipes (measured byte-exact on an H200); 3.8 and 3.9
    leave some cases unsupported, so the check is not vacuous."""
    doc = _doc("3.6")
    for case, rec in zip(CASES, doc["cases"], strict=True):
        assert [s["recipe"] for s in rec["steps"]] == case["recipes"], case["id"]
    for release in ("3.8", "3.9"):
        outcomes = {r["outcome"] for r in _doc(release)["cases"]}
        assert outcomes == {"compiled", "unsupported"}, (release, outcomes)


def _first(doc: dict[str, Any], outcome: str) -> dict[str, Any]:
    return next(r for r in doc["cases"] if r["outcome"] == outcome)


@pytest.mark.parametrize(
    "doctor",
    [
        # A release rejects ops of a chosen recipe.
        lambda rec: rec.update(outcome="error", message="verifier says no"),
        # The process aborted after a chosen recipe's ops were built.
        lambda rec: rec.update(outcome="error", message="process died", steps=rec["steps"][:1]),
        # The alias landed elsewhere or took new memory.
        lambda rec: rec.update(shared=rec["shared"] + 16),
        lambda rec: rec.update(local_allocs=2),
        # The frontend chose a recipe the predicate does not.
        lambda rec: rec["steps"][0].update(recipe="granule", reasons=[]),
        # A recipe fact the frontend computed wrongly on this release.
        lambda rec: rec["steps"][0]["facts"].__setitem__(0, 9),
    ],
)
def test_a_contradiction_is_reported(doctor: Any) -> None:
    doc = copy.deepcopy(_doc("3.8"))
    rec = next(r for r in doc["cases"] if r["outcome"] == "compiled" and r.get("offset_found"))
    doctor(rec)
    assert problems(doc)


def test_an_unsupported_case_with_a_recipe_is_reported() -> None:
    doc = copy.deepcopy(_doc("3.9"))
    _first(doc, "unsupported")["steps"][-1].update(recipe="index", reasons=[])
    assert any("the predicate says" in p for p in problems(doc))
    doc = copy.deepcopy(_doc("3.9"))
    _first(doc, "compiled").update(outcome="unsupported", checks=["recipe"])
    assert any("never refused" in p for p in problems(doc))


def test_recipe_decisions_are_observed_not_patched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lowering check records each recipe ``tle.gpu.alloc`` chooses through the frontend's
    public observer, never by replacing ``lowering.choose`` while the kernel compiles."""
    pytest.importorskip("triton")
    from alias_spec.difftest import lowering_check
    from alias_spec.frontend import lowering

    original = lowering.choose
    seen: list[bool] = []
    monkeypatch.setattr(lowering_check, "_KERNEL", lowering_check._kernel())  # the worker's
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # cached: no decisions
    case = json.loads(GPU_CORPUS.read_text())["cases"][0]
    rec = lowering_check.compile_case(
        case, str(tmp_path / "stderr"), announce=lambda _: seen.append(lowering.choose is original)
    )
    assert rec["outcome"] == "compiled", rec
    assert rec["steps"] and seen and all(seen), (rec["steps"], seen)
    assert not lowering._observers  # the observer is gone with the compile
