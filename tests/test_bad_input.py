"""Bad input to ``alias-spec check``: any JSON value in any field, any text, any size gets a
verdict, or one line on stderr naming the field and exit 2. Never a traceback, never a hang,
never a wrong "valid". The generated Python checks get the same treatment for fact dicts.

The property tests run the command in-process; the blow-ups (endless or huge input, huge
integers, deep nesting, long attribute text, a reader that stops early) run it as a
subprocess under a timeout, so a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_spec.api import MAX_INPUT_BYTES
from alias_spec.api import run as main
from alias_spec.engines import registry
from alias_spec.generated import alias_checks
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT64_MAX, OPS
from alias_spec.model.interp import check_facts
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.request import parse_request
from tests.paths import ROOT

# Generous: every command here ends in a second or two; only a hang reaches it.
TIMEOUT = 90
ERROR_LINE = re.compile(r"alias-spec: error: (request\[\d+\]\.)?[^\s:][^:\n]*: [^\n]+\n")


class Raw:
    """JSON text spliced in as is: what ``json.dumps`` cannot write (a 5000-digit integer)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:20]!r}... {len(self.text)} chars)"


def dump(value: Any) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dump(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # NaN and Infinity as Python writes them; surrogates escaped


def check_cli(text: str, *extra: str) -> tuple[int, str, str]:
    """``alias-spec check -`` on ``text`` in-process: (exit code, stdout, stderr). Any exception
    escaping ``main`` fails the calling test."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", "-", *(extra or ("--engine", "interp", "--no-fix"))])
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


def assert_contract(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2, 3), (code, err)
    if code == 2:
        assert ERROR_LINE.fullmatch(err), err
        assert out == ""
    else:
        assert err == "" and out.strip(), (code, err)


# --- arbitrary JSON in every field --------------------------------------------------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, 1, -1, 2**31, INT64_MAX, INT64_MAX + 1, -(2**63) - 1, 2**128 - 1, 2**128,
                     -(2**128), 10**300]),  # fmt: skip
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["NaN", "Infinity", "-0", "1e309", "\ud800", "a\udfffb", "smem", "?", "i8",
                     "\u0664", "4x4", "tle.memdesc_alias", "", "\n", "buffered_tensor", "#smem"]),
)  # fmt: skip
NESTED = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
# What json.dumps cannot write, or the parser refuses whole: more than 4300 digits, deep nesting.
HUGE = st.one_of(
    st.integers(4301, 6000).map(lambda n: Raw("9" * n)),
    st.integers(33, 400).map(lambda n: Raw("[" * n + "]" * n)),
)
ANY = st.one_of(NESTED, HUGE)

BASES: dict[str, dict[str, Any]] = {
    "tle.memdesc_alias": {
        "source": {"shape": [4, 16], "dtype": "f16", "space": "smem", "mutable": True,
                   "kind": "buffered_tensor"},
        "result": {"shape": [16], "dtype": "f16"},
        "scope": "smem",
        "alias_offset_bytes": 0,
    },
    "ttg.memdesc_reinterpret": {"op": "ttg.memdesc_reinterpret",
                                "source": {"shape": [16, 16], "dtype": "f16"},
                                "result": {"shape": [16, 16], "dtype": "f16"}},
    "ttg.memdesc_subslice": {"op": "ttg.memdesc_subslice",
                             "source": {"shape": [16, 16], "dtype": "f16"},
                             "result": {"shape": [8, 16], "dtype": "f16"}, "offsets": [8, 0]},
    "ttg.memdesc_index": {"op": "ttg.memdesc_index",
                          "source": {"shape": [2, 16, 16], "dtype": "f16"},
                          "result": {"shape": [16, 16], "dtype": "f16"}, "index": 1},
}  # fmt: skip
BAD = frozenset({2})
ONE = frozenset({1})


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _small(v: Any, low: int) -> bool:
    return _int(v) and low <= v < 2**128


def _shape_ok(v: Any) -> bool:
    return (
        isinstance(v, list)
        and 1 <= len(v) <= 16
        and all(d is None or d == "?" or (_int(d) and -(2**63) <= d <= INT64_MAX) for d in v)
    )


def _dtype(v: Any) -> frozenset[int] | None:
    if isinstance(v, str):
        return None  # a name: whether it is known is the dtype table's business
    if isinstance(v, dict):
        bits = v.get("bits")
        ok = set(v) == {"bits"} and _int(bits) and 0 <= bits <= 2**31
        return None if ok else BAD
    return BAD


def _whole_side(v: Any) -> frozenset[int] | None:
    """A whole side: memdesc text, or an object with at least a shape and a dtype."""
    return (
        None
        if isinstance(v, str) or (isinstance(v, dict) and {"shape", "dtype"} <= set(v))
        else BAD
    )


def _offsets_ok(v: Any, rank: int) -> bool:
    return isinstance(v, list) and len(v) == rank and all(_small(o, 0) for o in v)


# What each field may hold: the exit codes allowed for a value (None: any verdict; BAD: a
# field error). A value outside the field's domain must never come out valid (exit 0 or 3).
Expect = Callable[[Any], frozenset[int] | None]
SIDE: dict[str, Expect] = {
    "shape": lambda v: None if _shape_ok(v) else BAD,
    "dtype": _dtype,
    "space": lambda v: None if v in ("smem", "tmem", "global") else BAD,
    "mutable": lambda v: None if isinstance(v, bool) else BAD,
    "layout": lambda v: None if v is None or isinstance(v, (dict, str)) else BAD,
    "alloc_shape": lambda v: None if v is None or _shape_ok(v) else BAD,
    "bogus": lambda v: BAD,
}
SOURCE: dict[str, Expect] = {
    **SIDE,
    "base_offset_bytes": lambda v: None if _small(v, 0) else BAD,
    "alloc_alignment": lambda v: None if _small(v, 1) else BAD,
}
TOP: dict[str, Expect] = {
    "op": lambda v: None if isinstance(v, str) and v in OPS else BAD,
    "name": lambda v: None if isinstance(v, str) else BAD,
    "description": lambda v: None,
    "attributes": lambda v: (
        None if v is None or (isinstance(v, dict) and all(isinstance(x, str) for x in v.values()))
        else BAD
    ),
    "bogus": lambda v: BAD,
}  # fmt: skip
ALIAS_TOP: dict[str, Expect] = {
    **TOP,
    "scope": lambda v: None if v in ("smem", "tmem") else BAD,
    # Not an integer: alias.offset.constexpr fires.
    "alias_offset_bytes": lambda v: (None if _small(v, -(2**128) + 1) else BAD if _int(v)
                                     else ONE),
    "init_value": lambda v: None if v is None or v is False else ONE,
}  # fmt: skip
VIEW_TOP: dict[str, dict[str, Expect]] = {
    "ttg.memdesc_reinterpret": {**TOP, "scope": lambda v: BAD},
    "ttg.memdesc_subslice": {
        **TOP,
        "offsets": lambda v: (
            None if isinstance(v, list) and all(_small(o, -(2**128) + 1) for o in v) else BAD
        ),
    },  # fmt: skip
    "ttg.memdesc_index": {
        **TOP,
        "index": lambda v: None if v is None or v == "?" or _small(v, -(2**128) + 1) else BAD,
        "alias_offset_bytes": lambda v: BAD,
    },
}


def _targets() -> list[tuple[str, str, str | None, Expect]]:
    """(op, side or "" for the top level, field, expectation) for every field of every op."""
    out: list[tuple[str, str, str | None, Expect]] = []
    for op in BASES:
        top = ALIAS_TOP if op == "tle.memdesc_alias" else VIEW_TOP[op]
        out += [(op, "", k, e) for k, e in top.items()]
        for side, fields in (("source", SOURCE), ("result", SIDE)):
            out += [(op, side, k, e) for k, e in fields.items()]
            out.append((op, side, None, _whole_side))
        rank = len(BASES[op]["source"]["shape"])
        out.append(
            (op, "source", "view_offsets", lambda v, r=rank: None if v is None
             or _offsets_ok(v, r) else BAD)
        )  # fmt: skip
        # Any other kind of alias source is alias.source.kind's to judge; a view's is an error.
        src_kind: Expect = (
            (lambda v: None if v == "buffered_tensor" else ONE if isinstance(v, str) else BAD)
            if op == "tle.memdesc_alias"
            else (lambda v: None if v == "buffered_tensor" else BAD)
        )
        out.append((op, "source", "kind", src_kind))
        out.append((op, "result", "kind", lambda v: None if v == "buffered_tensor" else BAD))
    return out


TARGETS = _targets()


def _with(op: str, side: str, key: str | None, value: Any) -> dict[str, Any]:
    """The op's valid base request with one field (or a whole side, key None) set to value."""
    req = json.loads(json.dumps(BASES[op]))
    where = req[side] if side else req
    if key is None:
        req[side] = value
    else:
        where[key] = value
    return req


def test_every_base_request_is_valid() -> None:
    # The bases are valid, so any other outcome below comes from the field under test.
    for op, req in BASES.items():
        assert check_cli(json.dumps(req))[0] == 0, op


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), value=ANY, profile=st.sampled_from(["safe", "flagtree"]))
def test_any_json_in_any_field(target: tuple[str, str, str | None, Expect], value: Any,
                               profile: str) -> None:  # fmt: skip
    op, side, key, expect = target
    text = dump(_with(op, side, key, value))
    code, out, err = check_cli(text, "--engine", "interp", "--no-fix", "--profile", profile)
    assert_contract(code, out, err)
    allowed = BAD if isinstance(value, Raw) else expect(value)
    if allowed is not None:
        assert code in allowed, (op, side, key, value, code, out, err)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), value=NESTED)
def test_any_json_through_z3_with_fixes(target: tuple[str, str, str | None, Expect],
                                        value: Any) -> None:  # fmt: skip
    # The solver path (engine z3, fix suggestions) on the same inputs.
    op, side, key, expect = target
    code, out, err = check_cli(dump(_with(op, side, key, value)), "--engine", "z3")
    assert_contract(code, out, err)
    allowed = expect(value)
    if allowed is not None:
        assert code in allowed, (op, side, key, value, code, out, err)


@settings(max_examples=150, deadline=None)
@given(value=ANY)
def test_any_json_as_the_whole_input(value: Any) -> None:
    code, out, err = check_cli(dump(value))
    assert_contract(code, out, err)
    if not isinstance(value, (dict, list)) or value == []:
        assert code == 2


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_any_text(text: str) -> None:
    code, out, err = check_cli(text)
    assert_contract(code, out, err)
    try:
        json.loads(text)
    except ValueError:
        assert code == 2 and err.startswith("alias-spec: error: input: ")


# --- MLIR-ish text in the source and result strings --------------------------------------------

DIMS = st.one_of(
    st.integers(0, 2**70).map(str),
    st.sampled_from(["?", "-1", "1_0", " 4", "4 ", "\u0664", "\u00b2", "\uff14", "0x10", "+4", "",
                     "9" * 25, "9" * 10_000, "0" * 30 + "16", "1e3", "4.0", "٣٢"]),
)  # fmt: skip
LAYOUTS = st.one_of(
    st.sampled_from([
        "#shared", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = \u0664, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [\u0661, 0]}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = \u00b2, transposed = false, elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = " + "9" * 5000 + "}>",
        "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 16]}>",
        "#ttg.padded_shared<[\u0663\u0662:+4] {order = [1, 0]}>",
        "#ttg.padded_shared<[" + "9" * 5000 + ":+4] {order = [1, 0]}>",
        "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = []}, alignment = 16>",
    ]),
    st.text(max_size=40).map(lambda t: "#ttg.swizzled_shared<{" + t + "}>"),
    st.text(max_size=40).map(lambda t: "#ttg.nvmma_shared<{" + t + "}>"),
    st.text(max_size=40),
)  # fmt: skip
SPACES = st.sampled_from(["#smem", "#ttg.shared_memory", "#tmem", "#global", "#l2", "", "#s\ud800"])


def _dims_ok(dims: str) -> bool:
    """Whether MLIR reads every ``x``-separated dim: ``?`` or ASCII digits within int64."""
    return all(
        d == "?"
        or (
            re.fullmatch(r"[0-9]+", d, re.ASCII) is not None
            and len(d.lstrip("0")) <= 19
            and int(d) <= INT64_MAX
        )
        for d in dims.split("x")
    )


@st.composite
def memdesc(draw: st.DrawFn) -> tuple[str, bool]:
    """(memdesc text, whether every dim in it is one MLIR reads)."""
    shape = "x".join(draw(st.lists(DIMS, min_size=1, max_size=3)))
    elem = draw(st.sampled_from(["f16", "i8", "f32", "bf16", "q7", "f\u0664", ""]))
    parts = [f"{shape}x{elem}", draw(LAYOUTS), draw(SPACES)]
    # Each part is read with its surrounding blanks stripped, as MLIR skips them.
    ok = _dims_ok(shape.lstrip())
    for extra in draw(st.lists(st.one_of(st.just("mutable"), DIMS), max_size=2)):
        parts.append(extra)
        e = extra.strip()
        if e != "mutable" and ("x" in e or re.fullmatch(r"[0-9]+", e, re.ASCII)):
            ok = ok and _dims_ok(e)
    text = f"!ttg.memdesc<{', '.join(parts)}>"
    cut = draw(st.one_of(st.none(), st.integers(0, len(text))))
    if cut is not None:  # a cut or spliced text: judged, or a field error
        text = text[:cut] + draw(st.text(max_size=5)) + text[cut + 1 :]
        ok = True  # whatever the cut did to the dims, only the contract is asserted
    return text, ok


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(list(BASES)), side=st.sampled_from(["source", "result"]),
       md=memdesc())  # fmt: skip
def test_mlirish_text_in_either_side(op: str, side: str, md: tuple[str, bool]) -> None:
    text, dims_ok = md
    code, out, err = check_cli(dump(_with(op, side, None, text)))
    assert_contract(code, out, err)
    if not dims_ok:  # a dim MLIR would not read is never guessed at
        assert code == 2 and f"{side}" in err, (text, code, out, err)


@pytest.mark.parametrize(
    "dims",
    ["\u0664x4", "4x\u00b2", "4x\uff14", "1_0x4", "+4x4", "9223372036854775808x4",
     "9" * 10_000 + "x4", "-1x4", "4x4\u0660"],
    ids=["arabic", "superscript", "fullwidth", "underscore", "plus", "int64_max+1", "10000_digits",
         "negative", "trailing_arabic"],
)  # fmt: skip
def test_memdesc_dims_are_read_as_mlir_reads_them(dims: str) -> None:
    with pytest.raises(RequestError) as exc:
        parse_memdesc(f"!ttg.memdesc<{dims}xf16, #shared, #smem>", "result")
    assert exc.value.field == "result"
    assert parse_memdesc("!ttg.memdesc<0016x4xf16, #shared, #smem>", "result")["shape"] == [16, 4]
    big = parse_memdesc(f"!ttg.memdesc<{INT64_MAX}xi8, #shared, #smem>", "source")
    assert big["shape"] == [INT64_MAX]


@pytest.mark.parametrize(
    "layout,field",
    [
        ("#ttg.swizzled_shared<{vec = \u0664, perPhase = 1, maxPhase = 1, order = [0]}>",
         "source.layout.vec"),
        ("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [\u0660]}>",
         "source.layout.order"),
        ("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [" + "9" * 5000
         + "]}>", "source.layout.order"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = \u00b2, transposed = false}>", "source.layout"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = " + "9" * 5000 + "}>", "source.layout"),
        ("#ttg.padded_shared<[\u0663\u0662:+4] {order = [0]}>", "source.layout"),
        ("#ttg.padded_shared<[32:+" + "9" * 5000 + "] {order = [0]}>", "source.layout"),
    ],
    ids=["vec_arabic", "order_arabic", "order_5000_digits", "swizzle_superscript",
         "swizzle_5000_digits", "interval_arabic", "padding_5000_digits"],
)  # fmt: skip
def test_layout_integers_are_ascii_and_bounded(layout: str, field: str) -> None:
    req = {"source": {"shape": [64], "dtype": "i8", "layout": layout},
           "result": {"shape": [4], "dtype": "i8"}}  # fmt: skip
    code, out, err = check_cli(json.dumps(req))
    assert code == 2 and f"error: {field}" in err, err


# --- specific defects ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field,req,problem",
    [
        ("op", {**BASES["tle.memdesc_alias"], "op": ["tle.memdesc_alias"]}, ""),
        ("scope", {**BASES["tle.memdesc_alias"], "scope": {"smem": 1}}, ""),
        ("source.space", _with("tle.memdesc_alias", "source", "space", ["smem"]), ""),
        ("result.space", _with("ttg.memdesc_index", "result", "space", {}), ""),
        ("source.kind", _with("ttg.memdesc_reinterpret", "source", "kind", "tensor"), ""),
        ("result.kind", _with("tle.memdesc_alias", "result", "kind", ["buffered_tensor"]), ""),
        ("source.alloc_shape", _with("ttg.memdesc_reinterpret", "source", "alloc_shape", 16), ""),
        ("result.alloc_shape", _with("tle.memdesc_alias", "result", "alloc_shape", "x"), ""),
        ("source.view_offsets", _with("ttg.memdesc_subslice", "source", "view_offsets", [0]), ""),
        ("source.shape[0]", _with("tle.memdesc_alias", "source", "shape", [2**63, 16]), ""),
        ("alias_offset_bytes", {**BASES["tle.memdesc_alias"], "alias_offset_bytes": 2**128}, ""),
        ("index", {**BASES["ttg.memdesc_index"], "index": -(2**200)}, ""),
        ("offsets[1]", {**BASES["ttg.memdesc_subslice"], "offsets": [0, 2**130]}, ""),
        ("name", {**BASES["tle.memdesc_alias"], "name": {"a": 1}}, ""),
        ("request", {**BASES["tle.memdesc_alias"], "a\nb": 1}, 'unknown field "a\\nb"'),
        ("request", {**BASES["tle.memdesc_alias"], "\ud800": 1}, 'unknown field "\\ud800"'),
        ("request", {**BASES["tle.memdesc_alias"], "a: b": 1}, 'unknown field "a: b"'),
        ("source", _with("tle.memdesc_alias", "source", ":", 1), 'unknown field ":"'),
    ],
)  # fmt: skip
def test_field_errors_name_the_field(field: str, req: dict[str, Any], problem: str) -> None:
    """An odd key (a colon, a line break, a lone surrogate) is shown inside the problem, so the
    line still reads FIELD: problem."""
    code, out, err = check_cli(json.dumps(req))
    assert_contract(code, out, err)
    assert code == 2 and err.startswith(f"alias-spec: error: {field}: {problem}"), err


def test_empty_input_says_so() -> None:
    for text in ("", "  \n\t"):
        code, _, err = check_cli(text)
        assert code == 2 and err == "alias-spec: error: input: empty input\n"


def test_integer_of_5000_digits_is_an_input_error_not_a_crash() -> None:
    req = dump({**BASES["tle.memdesc_alias"], "alias_offset_bytes": Raw("7" * 5000)})
    code, out, err = check_cli(req)
    assert_contract(code, out, err)
    assert code == 2 and "5000 digits" in err


def test_huge_facts_are_judged_by_every_engine() -> None:
    # The largest dims and offsets a request may hold stay within what every engine prints
    # and solves (z3 reads integers as text).
    req = {"source": {"shape": [INT64_MAX] * 16, "dtype": "f64"},
           "result": {"shape": [INT64_MAX] * 16, "dtype": "f64"},
           "alias_offset_bytes": 2**128 - 1}  # fmt: skip
    # Every engine but cpp, whose domain is int64 facts (these lie beyond it).
    for engine in (n for n in registry.NAMES if n != "cpp"):
        code, out, err = check_cli(json.dumps(req), "--engine", engine, "--json")
        assert code == 1, (engine, err)
        assert "alias.offset.i32" in out


# --- the generated Python checks ------------------------------------------------------------


def _facts(op: str) -> dict[str, int | bool]:
    return dict(parse_request(BASES[op]).facts)


WRONG = st.one_of(
    st.none(), st.floats(allow_nan=True), st.text(max_size=5), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["0", "1", "true", "false", 1.0, 0.0, float("nan"), b"1"]),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(list(BASES)), profile=st.sampled_from(list(PROFILES)), data=st.data())
def test_generated_checks_refuse_bad_facts(op: str, profile: str, data: st.DataObject) -> None:
    facts = _facts(op)
    reads = alias_checks.READS[profile]
    name = data.draw(st.sampled_from(reads))
    kind = data.draw(st.sampled_from(["missing", "wrong", "int_for_bool", "bool_for_int"]))
    is_bool = name in alias_checks.BOOL_FACTS
    if kind == "missing":
        del facts[name]
    elif kind == "wrong":
        facts[name] = data.draw(WRONG)
    elif kind == "int_for_bool" and is_bool:
        facts[name] = data.draw(st.sampled_from([2, -1, 10**30]))
    elif kind == "bool_for_int" and not is_bool:
        facts[name] = data.draw(st.booleans())
    else:
        return
    # Never a verdict on a fact dict it cannot read: a FactsError naming the fact.
    with pytest.raises(alias_checks.FactsError, match=rf"^facts\.{name}: "):
        alias_checks.check(facts, profile)
    assert issubclass(alias_checks.FactsError, ValueError)


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(list(BASES)), profile=st.sampled_from(list(PROFILES)), data=st.data())
def test_generated_checks_judge_huge_ints_exactly(
    op: str, profile: str, data: st.DataObject
) -> None:
    facts = _facts(op)
    ints = [n for n in alias_checks.READS[profile] if n not in alias_checks.BOOL_FACTS]
    for name in data.draw(st.lists(st.sampled_from(ints), min_size=1, max_size=4)):
        facts[name] = data.draw(
            st.one_of(st.integers(-(10**1000), 10**1000), st.sampled_from([2**63, -(2**63) - 1,
                      2**64, 10**4000, -(10**4000)]))
        )  # fmt: skip
    try:
        want = [v.rule for v in check_facts(facts, profile).violations]
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            alias_checks.check(facts, profile)
        return
    # The reference interpreter is the oracle: the same rules, exact integers.
    assert [v.rule for v in alias_checks.check(facts, profile)] == want


def test_generated_checks_read_only_what_the_profile_reads() -> None:
    # A caller (the Gluon frontend) passes only the facts its profile reads, plus its own.
    facts = _facts("tle.memdesc_alias")
    for profile in PROFILES:
        subset = {n: facts[n] for n in alias_checks.READS[profile]} | {"tv": 36}
        assert alias_checks.check(subset, profile) == alias_checks.check(facts, profile)
    with pytest.raises(KeyError, match="unknown profile"):
        alias_checks.check(facts, ["safe"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="mapping"):
        alias_checks.check([1, 2], "safe")  # type: ignore[arg-type]


# --- blow-ups, as subprocesses under a timeout -------------------------------------------------


def cli(args: list[str], stdin: bytes | None = None, **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-m", "alias_spec", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=TIMEOUT,
        env={**os.environ, **env},
    )


def assert_one_line_exit_2(p: subprocess.CompletedProcess, *words: str) -> None:
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith("alias-spec: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("command", ["check", "lint"])
def test_endless_file_stops_at_the_limit(command: str) -> None:
    assert_one_line_exit_2(cli([command, "/dev/zero"]), "64 MiB")


def test_oversized_stdin_stops_at_the_limit() -> None:
    assert_one_line_exit_2(cli(["check", "-"], b" " * (MAX_INPUT_BYTES + 1)), "64 MiB")


def test_not_utf8_is_one_line() -> None:
    assert_one_line_exit_2(cli(["check", "-"], b'{"source": "\xff\xfe"}'), "not UTF-8")


@pytest.mark.parametrize(
    "text,words",
    [
        ('{"source": "!ttg.memdesc<' + "9" * 10_000 + 'xf16, #shared, #smem>", '
         '"result": {"shape": [1], "dtype": "i8"}}', ("source",)),
        ('{"source": {"shape": [' + "9" * 50_000 + '], "dtype": "i8"}, '
         '"result": {"shape": [1], "dtype": "i8"}}', ("input",)),
        ("[" * 200_000 + "]" * 200_000, ("input",)),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, ("input",)),
    ],
    ids=["dim_10000_digits", "json_int_50000_digits", "nested_lists", "nested_objects"],
)  # fmt: skip
def test_huge_numbers_and_nesting_finish(text: str, words: tuple[str, ...]) -> None:
    assert_one_line_exit_2(cli(["check", "-"], text.encode()), *words)


# Attribute texts on which a backtracking regular expression took quadratic time.
LONG_BODIES = ["a" * 400_000, "a=[," * 100_000, "order = [" * 40_000, "offset = [[" * 40_000,
               "a =" * 100_000, "}" * 400_000]  # fmt: skip


@pytest.mark.parametrize("body", LONG_BODIES, ids=[b[:6].strip() for b in LONG_BODIES])
def test_long_layout_attributes_finish(body: str) -> None:
    reqs = [
        {"op": "ttg.memdesc_reinterpret",
         "source": {"shape": [16, 16], "dtype": "f16", "layout": f"#ttg.{name}<{{{body}}}>"},
         "result": {"shape": [16, 16], "dtype": "f16"}}
        for name in ("swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear")
    ]  # fmt: skip
    p = cli(["check", "-", "--engine", "interp", "--no-fix"], json.dumps(reqs).encode())
    assert p.returncode in (0, 1, 2, 3)
    assert "Traceback" not in p.stderr.decode()


def _stops_early(args: list[str], stdin: bytes | None = None, lines: int = 1) -> tuple[int, str]:
    """Run the command with a reader that takes ``lines`` lines and closes the pipe (0: before
    the command writes anything, so even a short output meets the closed pipe)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "alias_spec", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        if stdin is not None:
            proc.stdin.write(stdin)
        proc.stdin.close()
        for _ in range(lines):
            assert proc.stdout.readline()
        proc.stdout.close()
        code = proc.wait(timeout=TIMEOUT)
        return code, proc.stderr.read().decode()
    finally:
        proc.kill()


def test_reader_that_stops_early_is_no_error() -> None:
    reqs = [{**BASES["tle.memdesc_alias"], "name": f"request {i}"} for i in range(6_000)]
    code, err = _stops_early(["check", "-", "--engine", "interp", "--no-fix"],
                             json.dumps(reqs).encode())  # fmt: skip
    assert code == 0 and err == "", err
    for args in (["rules"], ["rules", "--json"]):
        code, err = _stops_early(args, lines=0)
        assert code == 0 and err == "", err


def test_unprintable_names_are_escaped_in_output() -> None:
    req = json.dumps({**BASES["tle.memdesc_alias"], "name": "n\ud800\u00e9\nx"})
    for enc in ("utf-8", "ascii"):
        p = cli(["check", "-", "--engine", "interp", "--no-fix"], req.encode(),
                PYTHONIOENCODING=enc)  # fmt: skip
        out = p.stdout.decode(enc)
        assert p.returncode == 0, p.stderr.decode()
        assert out.startswith("n\\ud800") and out.count("\n") == 1, out
