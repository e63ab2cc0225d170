"""Mutated real inputs never crash: lint on garbled IR dumps, check on garbled view requests.

Each campaign starts from inputs the project already trusts (the lint dumps, the view requests
of the agreement table), applies a few seeded text or field mutations (numbers swapped for
edge values, spans cut, dtypes and tokens replaced), and requires that every result is either
a report or the documented error (``MlirError`` for lint, ``RequestError`` for check). A
mutation campaign like this one found tracebacks on garbled layout parameters.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from alias_spec.difftest.triton import cases as case_gen
from alias_spec.lint.lint import lint_text, to_json, to_sarif, to_text
from alias_spec.lint.mlir_views import MlirError
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.errors import RequestError
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from tests.paths import LINT_CASES

DUMPS = sorted(LINT_CASES.glob("*.ttgir")) + sorted(LINT_CASES.glob("*.mlir"))
EDGE_NUMBERS = ["0", "-1", "1", "3", "2147483647", "2147483648", "4294967296",
                "-9223372036854775808", "99999999999999999999999", "?"]  # fmt: skip
TOKENS = ["#shared", "#smem", "mutable", "memdesc_index", "memdesc_subslice", "local_alloc",
          "swizzled_shared", "nvmma_shared", "order = [", "%c1_i32"]  # fmt: skip
REPLACEMENTS = ["#shared1", "#ttg.tensor_memory", "", "memdesc_reinterpret", "padded_shared",
                "{", "order = [7, ", "%c0_i32", "x?x"]  # fmt: skip
DTYPES = ["i1", "f64", "f8E4M3FN", "i64", "q7", "f4E2M1FN", ""]


def _swap_number(rng: random.Random, t: str) -> str:
    found = list(re.finditer(r"\d+", t))
    if not found:
        return t
    m = rng.choice(found)
    return t[: m.start()] + rng.choice(EDGE_NUMBERS) + t[m.end() :]


def _cut(rng: random.Random, t: str) -> str:
    i = rng.randrange(len(t) + 1)
    return t[:i] + t[i + rng.randrange(1, 40) :]


def _swap_dtype(rng: random.Random, t: str) -> str:
    return re.sub(r"x(f16|f32|bf16|i8|i1|f64)\b", lambda _: "x" + rng.choice(DTYPES), t, count=1)


def _swap_token(rng: random.Random, t: str) -> str:
    return t.replace(rng.choice(TOKENS), rng.choice(REPLACEMENTS), 1)


def _truncate(rng: random.Random, t: str) -> str:
    return t[: rng.randrange(len(t) + 1)]


def _repeat_line(rng: random.Random, t: str) -> str:
    lines = t.splitlines() or [""]
    i = rng.randrange(len(lines))
    return "\n".join(lines[: i + 1] + lines[i:])


TEXT_MUTATIONS: list[Callable[[random.Random, str], str]] = [
    _swap_number, _cut, _swap_dtype, _swap_token, _truncate, _repeat_line,
]  # fmt: skip


def _mutated(rng: random.Random, text: str) -> str:
    for _ in range(rng.randrange(1, 4)):
        text = rng.choice(TEXT_MUTATIONS)(rng, text)
    return text


@pytest.mark.parametrize("seed", range(4))
def test_lint_survives_mutated_dumps(seed: int) -> None:
    rng = random.Random(seed)
    texts = [p.read_text() for p in DUMPS]
    outcomes = {"report": 0, "unreadable": 0, "notices": 0}
    for _ in range(100):
        text = _mutated(rng, rng.choice(texts))
        for profile in ("safe", rng.choice(sorted(PROFILES))):
            try:
                report = lint_text(text, "mutated.ttgir", profile)
            except MlirError:
                outcomes["unreadable"] += 1
                continue
            # Every output format renders what was found.
            to_text(report), json.dumps(to_json(report)), json.dumps(to_sarif(report))
            outcomes["report"] += 1
            outcomes["notices"] += bool(report.notices)
    # Most mutants still read as a module; some of those are views lint cannot read.
    assert outcomes["report"] > outcomes["unreadable"] and outcomes["notices"] > 0, outcomes


def _mutated_request(rng: random.Random, r: dict[str, Any]) -> dict[str, Any]:
    r = dict(r)
    k = rng.randrange(6)
    if k <= 2:
        side = rng.choice(["source", "result"])
        r[side] = rng.choice(TEXT_MUTATIONS)(rng, r[side])
    elif k == 3:
        r["offsets"] = rng.choice([[], [True], [-1, 0], [2**63, 0], "0", [1.5], None])
    elif k == 4:
        r["index"] = rng.choice([None, True, -(2**31) - 1, 2**31, "3", 1.0, [0], 2**70])
    else:
        r["op"] = rng.choice(["ttg.memdesc_reinterpret", "ttg.memdesc_index",
                              "ttg.memdesc_subslice", "tle.memdesc_alias", "x", 3, None])  # fmt: skip
    return r


@pytest.mark.parametrize("seed", range(3))
def test_check_survives_mutated_view_requests(seed: int) -> None:
    rng = random.Random(seed)
    requests = [c["request"] for c in case_gen.all_cases()]
    judged = rejected = 0
    for _ in range(1000):
        r = rng.choice(requests)
        for _ in range(rng.randrange(1, 4)):
            r = _mutated_request(rng, r)
        try:
            req = parse_request(json.loads(json.dumps(r)))
        except RequestError as exc:
            assert exc.field, r
            rejected += 1
            continue
        for profile in PROFILES:
            check_facts(req.facts, profile)
        judged += 1
    assert judged > 0 and rejected > 0, (judged, rejected)
