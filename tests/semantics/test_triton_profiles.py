"""The triton-3.6/3.8/3.9 profiles: catalogue shape, view requests, facts, engines, theorems and
the differential test against the installed Triton's real C++ verifiers.

Expected verdicts below come from Triton's behaviour (the releases' diagnostics, observed once
and written down here), not from the code under test. Runtime on a 2-core machine: the
differential run (triton 3.6.0 installed: about 1800 modules, each verified in a forked child)
about 30 s; the theorems, one test each (``test_theorem_as_declared[<id>]``, z3 and cvc5), about
a minute together, recipe_index.triton-3.8 the longest (about 25 s). The fast tier proves the
cheap theorems of most kinds (FAST_THEOREMS) and leaves the full differential run to the slow
tier (tests/difftest/test_triton_diff_cli.py runs a short one).
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest

from alias_spec.difftest.triton import cases as case_gen
from alias_spec.difftest.triton import diff, report
from alias_spec.engines import cpp_engine, py_engine
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, compiled, rules_for
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, INVARIANTS, expand
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from alias_spec.semantics import triton_theorems
from alias_spec.semantics.theorems import Outcome
from tests.paths import GPU_CORPUS, ROOT
from tests.semantics.test_solver_files import check_theorem_file

TRITON = ("triton-3.6", "triton-3.7", "triton-3.8", "triton-3.9")
OBSERVED_ON = ("triton-3.6", "triton-3.8", "triton-3.9")  # the releases of OBSERVED's columns
SW2 = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
SW1 = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
SW8 = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
NV = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
# The facts and rules that existed before the Triton profiles: alias verdicts depend on these
# only, so adding facts and rules cannot change any of them.
ALIAS_FACTS = {
    "src_buffered", "init_given", "scope", "src_space", "res_space", "src_mutable",
    "res_mutable", "off_int", "off", "src_bits", "res_bits", "src_static", "res_static",
    "src_elems", "res_elems", "src_start", "src_base", "run", "p0", "c0", "p1", "c1", "p2",
    "c2", "align", "swz",
}  # fmt: skip
SAFE_RULES = [
    "alias.source.kind", "alias.init_value", "alias.scope.smem", "alias.space.match",
    "alias.mutability", "alias.offset.constexpr", "alias.offset.nonneg", "alias.offset.i32",
    "alias.dtype.addressable", "alias.offset.aligned", "alias.size.static", "alias.range.fits",
    "alias.range.physical", "alias.address.aligned", "alias.address.i32", "alias.base.aligned",
]  # fmt: skip


def md(shape: str, layout: str = SW2, mutable: bool = True, alloc: str | None = None) -> str:
    parts = [shape, layout, "#ttg.shared_memory"] + (["mutable"] if mutable else [])
    return "!ttg.memdesc<" + ", ".join(parts + ([alloc] if alloc else [])) + ">"


def verdict(request: dict[str, Any], profile: str) -> list[str]:
    return check_facts(parse_request(request).facts, profile).rule_ids()


# --- the catalogue --------------------------------------------------------------------------


def test_profiles_and_rule_ids() -> None:
    assert set(TRITON) <= set(PROFILES)
    ids = [r.id for r in RULES]
    assert ids[: len(SAFE_RULES)] == SAFE_RULES  # appended, existing order untouched
    assert [r.id for r in rules_for("safe")] == SAFE_RULES
    for r in RULES:
        if r.id.startswith("triton."):
            assert set(r.profiles) <= set(TRITON), r.id
            assert r.prose and r.provenance and r.message, r.id
        else:
            assert not set(r.profiles) & set(TRITON), r.id
    for p in TRITON:
        assert all(r.id.startswith("triton.") for r in rules_for(p))


def test_alias_rules_read_only_the_alias_facts() -> None:
    for r in RULES:
        if r.id.startswith("alias."):
            guard, formula = compiled(r.id)
            # A guard may also ask which op it judges (every alias request is OP_ALIAS, so that
            # cannot change an alias verdict): alias.scope.smem speaks of alias mode only.
            assert dsl.free_vars(guard) <= ALIAS_FACTS | {"op"}, r.id
            assert dsl.free_vars(formula) <= ALIAS_FACTS, r.id


def test_invariants_hold_on_every_parsed_request() -> None:
    invariants = [(t, expand(t)) for t in INVARIANTS]
    requests = [c["request"] for c in case_gen.all_cases()]
    corpus = json.loads(GPU_CORPUS.read_text())
    requests += [r for c in corpus["cases"] for r in c["requests"]]
    for req in requests:
        facts = parse_request(req).facts
        assert set(facts) == {f.name for f in FACTS}
        bad = [t for t, e in invariants if not dsl.evaluate(e, facts)]
        assert not bad, (bad, req)


# --- requests -------------------------------------------------------------------------------


def test_view_request_errors() -> None:
    src, res = md("64x64xf16"), md("16x64xf16", alloc="64x64")
    with pytest.raises(RequestError, match="op"):
        parse_request({"op": "ttg.memdesc_view", "source": src, "result": res})
    with pytest.raises(RequestError, match="alias_offset_bytes"):
        parse_request({"op": "ttg.memdesc_subslice", "source": src, "result": res,
                       "offsets": [0, 0], "alias_offset_bytes": 0})  # fmt: skip
    with pytest.raises(RequestError, match="offsets"):
        parse_request({"op": "ttg.memdesc_subslice", "source": src, "result": res})
    with pytest.raises(RequestError, match="index"):
        parse_request({"op": "ttg.memdesc_index", "source": src, "result": res, "index": "1"})
    # The default op is FlagTree's alias; its requests parse as before.
    alias = parse_request({"source": src, "result": md("16x64xf16"), "alias_offset_bytes": 128})
    assert alias.facts["op"] == 0 and alias.facts["off"] == 128


# Verdicts of Triton's real verifiers on these modules (observed with 3.6.0, 3.8.0, 3.9.0):
# (request, rejected by 3.6?, by 3.8?, by 3.9?). An abort counts as a rejection.
OBSERVED = [
    # A 512-byte buffer reinterpreted as 8192 bytes: only 3.6 accepts it.
    ({"op": "ttg.memdesc_reinterpret", "source": md("16x16xf16"), "result": md("64x64xf16")},
     False, True, True),
    # Half the bytes: 3.8 wants equal sizes, 3.9 accepts a smaller result.
    ({"op": "ttg.memdesc_reinterpret", "source": md("16x16xf16"), "result": md("256xi8", SW1)},
     False, True, False),
    # Rows of a subview are contiguous (3.9 accepts), columns are not (3.9 rejects).
    ({"op": "ttg.memdesc_reinterpret", "source": md("16x16xf16", alloc="32x16"),
      "result": md("512xi8", SW1)}, False, True, False),
    ({"op": "ttg.memdesc_reinterpret", "source": md("16x16xf16", alloc="16x32"),
      "result": md("512xi8", SW1)}, False, True, True),
    # Rows 64..79 of a 64-row buffer: 3.6 does not bound-check subslices.
    ({"op": "ttg.memdesc_subslice", "source": md("64x64xf16"),
      "result": md("16x64xf16", alloc="64x64"), "offsets": [64, 0]}, False, True, True),
    # Offset 8 for 16 rows touches the tile everywhere.
    ({"op": "ttg.memdesc_subslice", "source": md("64x64xf16"),
      "result": md("16x64xf16", alloc="64x64"), "offsets": [8, 0]}, True, True, True),
    # 4 rows of an 8-phase swizzle cut the pattern; 8 rows do not.
    ({"op": "ttg.memdesc_subslice", "source": md("64x64xf16", SW8),
      "result": md("4x64xf16", SW8, alloc="64x64"), "offsets": [4, 0]}, True, True, True),
    ({"op": "ttg.memdesc_subslice", "source": md("64x64xf16", SW8),
      "result": md("8x64xf16", SW8, alloc="64x64"), "offsets": [8, 0]}, False, False, False),
    ({"op": "ttg.memdesc_subslice", "source": md("64x64xf16", NV),
      "result": md("4x64xf16", NV, alloc="64x64"), "offsets": [4, 0]}, True, True, True),
    # A subslice of a leading buffer dim: 3.6 and 3.8 abort, 3.9 accepts.
    ({"op": "ttg.memdesc_subslice", "source": md("2x64x64xf16"),
      "result": md("1x64x64xf16", alloc="2x64x64"), "offsets": [1, 0, 0]}, True, True, False),
    # Buffer 5 of 2: no release checks a constant index.
    ({"op": "ttg.memdesc_index", "source": md("2x16x16xf16"), "result": md("16x16xf16"),
      "index": 5}, False, False, False),
    # A subview trimming only the leading dim: 3.9 indexes it.
    ({"op": "ttg.memdesc_index", "source": md("2x16x16xf16", alloc="4x16x16"),
      "result": md("16x16xf16"), "index": 0}, True, True, False),
    # A 3-D layout on the source, 2-D on the result: 3.8+ want the same encoding.
    ({"op": "ttg.memdesc_index",
      "source": md("2x16x16xf16", SW2.replace("[1, 0]", "[2, 1, 0]")),
      "result": md("16x16xf16"), "index": 0}, False, True, True),
    # A non-power-of-2 leading source dim: 3.8 aborts, 3.9 rejects the type, 3.6 accepts.
    ({"op": "ttg.memdesc_reinterpret", "source": md("3x16xf16"), "result": md("96xi8", SW1)},
     False, True, True),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(OBSERVED)))
def test_profiles_match_observed_verdicts(index: int) -> None:
    request, *rejected = OBSERVED[index]
    for profile, want in zip(OBSERVED_ON, rejected, strict=True):
        assert bool(verdict(request, profile)) == want, (profile, verdict(request, profile))


def test_3_7_is_3_6_plus_two_type_checks() -> None:
    # Seen on 3.7.0 by the differential test: 3.6's view-op rules, plus no zero dim and the
    # NVMMA width check on every memdesc type.
    extra = {r.id for r in rules_for("triton-3.7")} - {r.id for r in rules_for("triton-3.6")}
    assert extra == {"triton.type.nonzero", "triton.type.nvmma_width"}
    assert {r.id for r in rules_for("triton-3.6")} <= {r.id for r in rules_for("triton-3.7")}
    zero = {"op": "ttg.memdesc_reinterpret", "source": md("0x16xf16"), "result": md("16xf16", SW1)}
    narrow = {
        "op": "ttg.memdesc_reinterpret",
        "source": md("64x64xf16"),
        "result": md("64x8xf16", NV),  # 16 bytes of a 128-byte swizzle row
    }
    for request, rule_id in ((zero, "triton.type.nonzero"), (narrow, "triton.type.nvmma_width")):
        assert rule_id not in verdict(request, "triton-3.6"), request
        assert rule_id in verdict(request, "triton-3.7"), request


def test_safe_judges_stock_views_physically() -> None:
    # The 3.6-accepted overflow and the out-of-range index are not contained.
    assert "alias.range.fits" in verdict(OBSERVED[0][0], "safe")
    assert "alias.range.fits" in verdict(OBSERVED[10][0], "safe")
    # A row subslice inside the buffer, and a reinterpret of a contiguous row subview are.
    assert verdict(OBSERVED[7][0], "safe") == []
    assert verdict(OBSERVED[2][0], "safe") == []
    # Reinterpreting 512 bytes of a column subview spans the gaps between its rows.
    assert verdict(OBSERVED[3][0], "safe") == ["alias.range.physical"]


# --- engines --------------------------------------------------------------------------------


def _view_facts(n: int) -> list[dict[str, int | bool]]:
    rng = random.Random(9)
    cases = case_gen.all_cases()
    return [parse_request(c["request"]).facts for c in rng.sample(cases, n)]


@pytest.mark.parametrize("profile", TRITON)
def test_generated_python_agrees(profile: str) -> None:
    for facts in _view_facts(300):
        want = check_facts(facts, profile)
        got = py_engine.check_facts(facts, profile)
        assert got.violations == want.violations


@pytest.mark.skipif(cpp_engine.compiler() is None, reason="no C++ compiler")
@pytest.mark.parametrize("profile", TRITON)
def test_generated_cpp_agrees(profile: str) -> None:
    facts = _view_facts(600)
    got = cpp_engine.check_batch(facts, profile)
    want = [check_facts(f, profile).rule_ids() for f in facts]
    assert got == want
    assert sum(1 for w in want if w) > 100 and sum(1 for w in want if not w) > 50


# --- the committed agreement table -----------------------------------------------------------


def _table() -> dict[str, Any]:
    return json.loads((ROOT / "docs" / "triton-agreement.json").read_text())


def test_snapshot_agreement_table_is_committed_and_clean() -> None:
    # Snapshot: written by `alias-spec triton-diff --write` (one release's row per run, in an
    # environment with that release). The independent truths: OBSERVED above (each release's
    # verdicts written down by hand), the committed rows re-verified by the installed Triton
    # (test_committed_rows_are_what_the_installed_verifier_says), the full run (slow tier).
    releases = _table()["releases"]
    assert set(releases) == {"3.6.0", "3.7.1", "3.8.0", "3.9.0"}
    n = len(case_gen.all_cases())
    for version, r in releases.items():
        s = r["summary"]
        assert r["profile"] == diff.profile_for(version)
        assert s["cases"] == n, "regenerate: alias-spec triton-diff --write"
        assert s["agree"] == n and s["disagree"] == 0 and r["disagreements"] == []
    md = (ROOT / "docs" / "triton-agreement.md").read_text()
    assert md == report.render(_table())


def test_disagreements_would_be_caught() -> None:
    # A model that forgot 3.8's size check accepts what 3.8 rejected: the comparison sees it.
    rows = [{"status": "agree", "op": "x", "triton_ok": True, "triton_crash": False,
             "safe_fired": []}] * 3  # fmt: skip
    bad = {"status": "disagree", "op": "x", "triton_ok": False, "triton_crash": False,
           "safe_fired": []}  # fmt: skip
    assert diff.summarize([*rows, bad])["disagree"] == 1


# --- against the installed Triton (CI: 3.6.0) -------------------------------------------------


def _installed_triton() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return triton.__version__


@pytest.mark.slow
@pytest.mark.skipif(
    not (_installed_triton() or "").startswith(("3.6.", "3.8.", "3.9.")),
    reason="needs triton 3.6, 3.8 or 3.9",
)
def test_differential_against_installed_triton() -> None:
    result = diff.run()
    bad = [r for r in result["rows"] if r["status"] not in ("agree", "finding")]
    assert not bad, [(r["id"], r["request"], r["triton_error"]) for r in bad[:5]]
    committed = _table()["releases"].get(result["version"])
    if committed is not None:
        assert result["summary"] == committed["summary"]


def _installed_row() -> tuple[str, dict[str, Any]]:
    version = _installed_triton()
    row = _table()["releases"].get(version or "")
    if row is None:
        pytest.skip(f"no committed row for the installed Triton ({version or 'none'})")
    return str(version), row


def test_committed_rows_are_what_the_installed_verifier_says() -> None:
    """Every module the installed release's row keeps (aborts, accepted-but-unsafe examples,
    findings, disagreements), as stored, parsed and verified again by that Triton's own C++
    verifier: the row says what the verifier does, not what the model did."""
    from alias_spec.difftest.triton.runner import verify_modules

    version, row = _installed_row()
    kept = [e for key in ("aborts", "accepted_but_unsafe", "findings", "disagreements")
            for e in row[key]]  # fmt: skip
    assert len(kept) >= 10 and {e["triton"] for e in kept} >= {"accept", "abort"}, version
    results = verify_modules([(e["id"], e["module"]) for e in kept])
    for e in kept:
        t = results[e["id"]]
        got = "accept" if t["ok"] else "abort" if t["crash"] else "reject"
        assert got == e["triton"], (version, e["id"], t["error"][:200])


# --- theorems -------------------------------------------------------------------------------


# The fast tier's theorems (id prefixes): the cheap ones of most kinds, the 3.6 witnesses the
# tests below re-check included (about 3 s on two cores); the others are marked slow. One test
# per theorem, so that pytest-xdist spreads them, each proved once per process (``proved``).
FAST_THEOREMS = (
    "unsafe_accept.triton-3.6.",
    "contained.",
    "recipe_view.triton-3.6",
    "recipe_granule.triton-3.6",
)
THEOREMS = {t.id: t for t in triton_theorems.all_theorems()}
# The theorems, by name; every recipe on every release it is chosen for, with no
# assumption beyond the lowering's. The others: proved or refuted as each declares.
NAMED = {
    "unsafe_accept.triton-3.6.reinterpret.contained": "proved",
    "reinterpret_38.contained": "proved",
    "reinterpret_38.safe": "finding",
    "recipe_view.triton-3.6": "proved",
    **{
        f"recipe_{recipe}.{release}": "proved" for release in TRITON for recipe in ("view", "index")
    },
    "recipe_granule.triton-3.6": "proved",
    "recipe_granule.triton-3.7": "proved",
    "recipe_granule_stack.triton-3.6": "finding",
}


@functools.cache
def proved(tid: str) -> Outcome:
    """The theorem decided by both solvers as ``alias-spec prove`` decides it (its smallest
    witness recorded), once per process."""
    return triton_theorems.prove_one(THEOREMS[tid], ("z3", "cvc5"))


def test_the_named_theorems_exist() -> None:
    assert set(NAMED) <= set(THEOREMS)
    assert all(any(k.startswith(prefix) for k in THEOREMS) for prefix in FAST_THEOREMS)


def _witness_is_real(tid: str, o: Outcome) -> None:
    request = o.counterexample["view"]["request"]
    facts = parse_request(request).facts
    assert check_facts(facts, o.theorem.profile).valid, (tid, request)
    assert not check_facts(facts, "safe").valid, (tid, request)


def _smallest_overflow(tid: str, o: Outcome) -> None:
    # 3.6: a reinterpret larger than its source, minimal (1 byte viewed as 2). Several
    # requests tie at that size (2 x i1, 1 x f16, ...), so the bytes are what is pinned.
    w = o.counterexample["view"]
    f = parse_request(w["request"]).facts
    sizes = tuple(dsl.evaluate(expand(name), f) for name in ("src_bytes", "res_bytes"))
    assert sizes == (1, 2), w["request"]


def _unaligned_base(tid: str, o: Outcome) -> None:
    # Accepted by 3.8 and unsafe: the request re-parses to a counterexample of the claim.
    safe = o.counterexample["view"]["request"]
    facts = parse_request(safe).facts
    assert check_facts(facts, "triton-3.8").valid, safe
    assert check_facts(facts, "safe").rule_ids() == ["alias.base.aligned"], safe


def _subbyte_overflow(tid: str, o: Outcome) -> None:
    sub = o.counterexample["view"]["request"]
    facts = parse_request(sub).facts
    assert check_facts(facts, "triton-3.8").valid, sub
    assert "alias.range.fits" in check_facts(facts, "safe").rule_ids(), sub


# What a theorem's witness or counterexample must be (by id prefix), re-checked by the
# interpreter on the request it stands for.
WITNESS_CHECKS = {
    "unsafe_accept.": _witness_is_real,
    "unsafe_accept.triton-3.6.reinterpret.contained": _smallest_overflow,
    "reinterpret_38.safe": _unaligned_base,
    "reinterpret_38.subbyte": _subbyte_overflow,
}


@pytest.mark.parametrize(
    "tid",
    [
        pytest.param(k, id=k, marks=[] if k.startswith(FAST_THEOREMS) else [pytest.mark.slow])
        for k in THEOREMS
    ],
)
def test_theorem_as_declared(tid: str) -> None:
    o = proved(tid)
    assert o.status in ("proved", "finding"), (tid, o.solvers)
    assert set(o.solvers) == {"z3", "cvc5"}, tid
    assert set(o.solvers.values()) <= {"holds", "refuted"}, tid
    assert o.status == NAMED.get(tid, o.status), tid
    check_theorem_file(o)
    for prefix, check in WITNESS_CHECKS.items():
        if tid.startswith(prefix):
            check(tid, o)


@pytest.mark.skipif(not (_installed_triton() or "").startswith("3.6."), reason="needs triton 3.6")
def test_3_6_witnesses_verify_on_real_triton() -> None:
    from alias_spec.difftest.triton.runner import verify_modules

    ids = [k for k in THEOREMS if k.startswith("unsafe_accept.triton-3.6.")]
    # Read from the proofs test_theorem_as_declared made in this process (made here if it
    # ran them elsewhere): the witnesses are the same theorems' smallest ones.
    mods = [(k, case_gen.module(proved(k).counterexample["view"]["request"])) for k in ids]
    results = verify_modules(mods)
    assert len(results) == len(ids) and all(r["ok"] for r in results.values()), results
