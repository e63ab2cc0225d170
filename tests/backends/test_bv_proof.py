"""Translation validation of the generated C++ arithmetic (alias_spec/difftest/bv_proof.py)."""

from __future__ import annotations

import pytest

from alias_spec.backends.gen_cpp import cpp_trees
from alias_spec.difftest import bv_proof
from alias_spec.model import dsl
from alias_spec.model.catalogue import RULES, rule
from alias_spec.model.interp import violated

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@pytest.fixture(scope="module")
def results() -> list[dict]:
    return bv_proof.prove_all()


def test_every_rule_is_proved(results: list[dict]) -> None:
    assert [r["rule"] for r in results] == [r.id for r in RULES]
    failed = [r for r in results if r["status"] != "proved"]
    assert not failed, failed
    for r in results:
        assert set(r["parts"]) == {"helper", "overflow", "divisors", "logic"}
        assert r["seconds"] < 30, r


def test_int64_multiplication_is_refuted() -> None:
    # A rendering that multiplies in int64 instead of __int128 overflows on valid sizes.
    r = bv_proof.prove_rule("alias.size.static", mul_bits=64)
    assert r["status"] == "failed"
    assert r["failed_part"] == "overflow"
    cex = r["counterexample"]
    eb = (cex["src_bits"] + 7) // 8
    products = [cex["src_elems"] * eb, cex["res_elems"] * ((cex["res_bits"] + 7) // 8)]
    assert any(not INT64_MIN <= p <= INT64_MAX for p in products)


def _flip_first(e: dsl.Expr, old: str, new: str) -> tuple[dsl.Expr, bool]:
    if e.op == old:
        return dsl.Expr(new, e.args, e.value), True
    args, done = [], False
    for a in e.args:
        if not done:
            a, done = _flip_first(a, old, new)
        args.append(a)
    return dsl.Expr(e.op, tuple(args), e.value), done


def test_a_wrong_comparison_is_refuted() -> None:
    # Print `>=` where the header needs `>`: the logic part finds an input where they differ.
    # (A rule without products keeps the counterexample search short.)
    guard, fire = cpp_trees("alias.offset.i32")
    broken, done = _flip_first(fire, ">", ">=")
    assert done
    part = bv_proof.prove_logic("alias.offset.i32", trees=(guard, broken))
    assert part.status == "failed"
    cex = part.counterexample
    assert cex is not None
    wrong = bool(dsl.evaluate(guard, cex)) and bool(dsl.evaluate(broken, cex))
    assert wrong != violated(rule("alias.offset.i32"), cex)
    assert cex["off"] == 2**31 - 1


def test_helper_lemmas_hold() -> None:
    assert bv_proof.prove_helper().status == "proved"


def test_cli_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert bv_proof.main(["alias.offset.aligned"]) == 0
    out = capsys.readouterr().out
    assert "proved" in out and "alias.offset.aligned" in out
