"""Boundary cases: for every rule, requests on both sides of its boundary, found by z3.

For each profile and rule the solver finds a request that violates that rule alone, then the
valid request nearest to it (``lexmin.optimum``, L1 distance over the integer facts), then the
violating-alone request nearest to that one: the two sit on either side of the rule's edge.
Fixed edges (i32 and int64 limits, offset = source bytes - result bytes) are added as
explicit requests. Each case records its expected verdict per profile, judged by z3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import z3

from alias_spec.model import dsl
from alias_spec.model.catalogue import compiled, rules_for
from alias_spec.model.facts import INT32_MAX, INT64_MAX, Facts
from alias_spec.model.request import parse_request
from alias_spec.semantics.check import check_facts
from alias_spec.semantics.lexmin import optimum, solve
from alias_spec.semantics.witness import family, small, to_request
from alias_spec.semantics.z3expr import Env, fact_vars, fires, holds, invariants, model_facts, pin

PROFILES = ("flagtree", "safe")
# Where a checkout keeps the corpus (the tests replay it); `write` goes where it is told.
CORPUS = "tests/corpus/boundary.jsonl"


# What may always move between the two sides of an edge: the offset and the result's size.
FREE = ("off", "res_elems", "off_int")


def _free(rule_id: str) -> tuple[str, ...]:
    """The facts a rule reads, plus FREE: everything else stays put across its edge."""
    guard, formula = compiled(rule_id)
    return tuple(sorted(set(FREE) | dsl.free_vars(guard) | dsl.free_vars(formula)))


def _distance(
    env: Env, target: Facts, free: tuple[str, ...]
) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
    terms, cons = [], []
    for name, v in target.items():
        if isinstance(v, bool) or name not in free:
            continue
        d = z3.Int(f"__d_{name}")
        cons += [d >= env[name] - v, d >= v - env[name]]
        terms.append(d)
    return z3.Sum(terms), cons


def _optimise(
    constraints: list[z3.BoolRef],
    env: Env,
    near: Facts | None,
    free: tuple[str, ...] = FREE,
) -> Facts | None:
    base = [invariants(env), family(env), *constraints]
    objectives: list[z3.ArithRef] = []
    if near is not None:
        dist, cons = _distance(env, near, free)
        # Everything else stays put, so the pair differs only where the rule looks.
        pinned = pin(env, {k: v for k, v in near.items() if not isinstance(v, bool)}, skip=free)
        extra = [*cons, *pinned]
        objectives.append(dist)
    else:
        extra = [small(env)]  # readable witnesses; the fixed edges cover the big numbers
    found = optimum(base, extra, minimize=objectives, timeout_ms=10000)
    return None if found.model is None else model_facts(found.model, env)


def _alone(profile: str, rule_id: str, env: Env) -> list[z3.BoolRef]:
    return [fires(r, env) if r.id == rule_id else holds(r, env) for r in rules_for(profile)]


def _pair(profile: str, rule_id: str, free: tuple[str, ...]):
    """A violating-alone request and a valid one that differ only in ``free`` facts."""
    bad_env, good_env = fact_vars(), fact_vars("good_")
    found = solve(
        lambda: [invariants(bad_env), family(bad_env), invariants(good_env), family(good_env)],
        lambda: [
            *_alone(profile, rule_id, bad_env),
            *[holds(r, good_env) for r in rules_for(profile)],
        ],
        lambda: [bad_env[k] == good_env[k] for k in bad_env if k not in free],
        timeout_ms=20000,
    )
    if found.model is None:
        return None
    return model_facts(found.model, bad_env), model_facts(found.model, good_env)


def rule_edges(profile: str, rule_id: str) -> list[tuple[str, Facts]]:
    env = fact_vars()
    bad = _optimise(_alone(profile, rule_id, env), env, None)
    if bad is None:  # some rules need big numbers (i32, int64 limits)
        bad = _pair(profile, rule_id, _free(rule_id))
        bad = bad[0] if bad else None
    if bad is None:
        return []
    free = _free(rule_id)
    good = _optimise([holds(r, env) for r in rules_for(profile)], env, bad, free)
    if good is None:
        # This violation hides others behind its guard: search the pair jointly instead.
        pair = _pair(profile, rule_id, free)
        if pair is not None:
            bad, good = pair
    out = [(f"{rule_id} violated alone ({profile})", bad)]
    if good is not None:
        out.append((f"{rule_id} nearest valid ({profile})", good))
        edge = _optimise(_alone(profile, rule_id, env), env, good, free)
        if edge is not None:
            out.append((f"{rule_id} at its edge ({profile})", edge))
    return out


def _fixed(src_shape: list[Any], src_dtype: str, res_shape: list[Any], res_dtype: str,
           off: Any, **extra: Any) -> dict[str, Any]:  # fmt: skip
    req = {
        "source": {"shape": src_shape, "dtype": src_dtype},
        "result": {"shape": res_shape, "dtype": res_dtype},
        "alias_offset_bytes": off,
    }
    req["source"].update(extra)
    return req


def fixed_edges() -> list[tuple[str, dict[str, Any]]]:
    big = INT32_MAX + 1024
    return [
        ("offset = source bytes - result bytes", _fixed([64, 64], "fp16", [32, 64], "fp16", 4096)),
        ("one element past the end", _fixed([64, 64], "fp16", [32, 64], "fp16", 4098)),
        ("offset -1", _fixed([64], "i8", [1], "i8", -1)),
        ("offset 0", _fixed([64], "i8", [64], "i8", 0)),
        ("offset INT32_MAX", _fixed([big], "i8", [1], "i8", INT32_MAX)),
        ("offset INT32_MAX + 1", _fixed([big], "i8", [1], "i8", INT32_MAX + 1)),
        ("offset INT64_MAX", _fixed([64], "i8", [1], "i8", INT64_MAX)),
        ("offset INT64_MAX + 1", _fixed([64], "i8", [1], "i8", INT64_MAX + 1)),
        ("offset -2^63", _fixed([64], "i8", [1], "i8", -(2**63))),
        ("offset 2^100", _fixed([64], "i8", [1], "i8", 2**100)),
        ("source of INT64_MAX bytes", _fixed([INT64_MAX], "i8", [8], "i8", 0)),
        ("source of 2^63 bytes", _fixed([2**62, 2], "i8", [8], "i8", 0)),
        ("result of 2^63 bytes", _fixed([64], "i8", [2**61], "fp32", 0)),
        ("offset true", _fixed([64], "i8", [1], "i8", True)),
        ("offset 4.0", _fixed([64], "i8", [4], "i8", 4.0)),
        ("offset '4'", _fixed([64], "i8", [4], "i8", "4")),
        ("offset null", _fixed([64], "i8", [4], "i8", None)),
        ("dynamic source dim", _fixed([None, 64], "fp16", [16], "fp16", 0)),
        ("negative result dim", _fixed([64], "fp16", [-1], "fp16", 0)),
        ("zero-size result at the end", _fixed([64], "i8", [0], "i8", 64)),
        ("i1 result (1 byte each)", _fixed([64], "i8", [8], "i1", 3)),
        ("4-byte result at base 2", _fixed([64], "i8", [4], "fp32", 0, base_offset_bytes=2)),
        ("near the i32 address limit",
         _fixed([1024], "i8", [16], "i8", 1008, base_offset_bytes=INT32_MAX - 1024)),
    ]  # fmt: skip


def expected(facts: Facts) -> dict[str, list[str]]:
    return {p: check_facts(facts, p, with_fixes=False).rule_ids() for p in PROFILES}


def generate() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for profile in PROFILES:
        for r in rules_for(profile):
            for name, facts in rule_edges(profile, r.id):
                request = to_request(facts)
                # The corpus stores requests; their facts are recomputed by the parser.
                cases.append({"name": name, "request": request})
    for name, request in fixed_edges():
        cases.append({"name": name, "request": request})
    for case in cases:
        case["expect"] = expected(parse_request(case["request"]).facts)
    return cases


def write(path: Path) -> int:
    cases = generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for case in cases:
            fh.write(json.dumps(case, sort_keys=True) + "\n")
    return len(cases)


def main(argv: list[str] | None = None) -> int:
    """``alias-spec dev boundary [--out FILE]``: regenerate the corpus."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="alias-spec dev boundary", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--out", type=Path, default=Path(CORPUS), help="default: ./%(default)s")
    args = ap.parse_args(argv)
    print(f"wrote {write(args.out)} cases to {args.out}")
    return 0
