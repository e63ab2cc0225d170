"""The MLIR reader under `alias-spec lint` (alias_spec/lint/mlir_views.py) on text it does not
expect: integer literals as MLIR reads them (decimal and ``0x`` hexadecimal, after an optional
``-``), linear time on statements that never close, and any text giving a report or the one
documented error (``MlirError``, exit 2 with one line), never a traceback.
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_spec.lint.lint import lint_text, main, to_json, to_sarif, to_text
from alias_spec.lint.mlir_views import LiteralError, MlirError, parse_int, strip_comment
from tests.paths import LINT_CASES, ROOT

CASES = LINT_CASES

# --- integer literals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "type_name", "value"),
    [
        ("16", "i32", 16),
        ("0x10", "i32", 16),
        ("0xFF", "i64", 255),
        ("-3", "i32", -3),
        ("- 3", "i32", -3),
        ("007", None, 7),
        ("0x0000000000000000000000000001", "i32", 1),  # leading zeros are not width
        ("4294967295", "i32", -1),  # the i32 bit pattern of all ones, used as signed
        ("0xFFFFFFFF", "i32", -1),
        ("-2147483648", "i32", -(2**31)),
        ("9223372036854775807", None, 2**63 - 1),  # an untyped attribute is i64
        ("3", "index", 3),
    ],
)
def test_integer_literals_read_as_mlir_reads_them(
    token: str, type_name: str | None, value: int
) -> None:
    assert parse_int(token, type_name) == value


@pytest.mark.parametrize(
    ("token", "type_name"),
    [
        ("0x", "i32"),
        ("0X10", "i32"),  # MLIR's hexadecimal literal is lower-case 0x
        ("0x10g", "i32"),
        ("1e3", "i32"),
        ("1.0", "i32"),
        ("+3", "i32"),
        ("", "i32"),
        ("-", "i32"),
        ("0b101", "i32"),
        ("4294967296", "i32"),  # one past every i32 bit pattern
        ("-2147483649", "i32"),
        ("9" * 5000, "i64"),  # past Python's int() digit limit: no ValueError escapes
        ("0x" + "f" * 100_000, "i64"),
        ("3", "f32"),
    ],
)
def test_literals_mlir_would_not_read_are_errors(token: str, type_name: str) -> None:
    with pytest.raises(LiteralError):
        parse_int(token, type_name)


_MODULE = """\
#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#smem = #ttg.shared_memory
module {{
  tt.func @f() {{
    %c = arith.constant {index}
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %one = ttg.memdesc_index %buf[%c] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %rows = ttg.memdesc_subslice %one[{rows}, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
    %a = tle.memdesc_alias %buf {{offset_bytes = {offset} : i64}} : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }}
}}
"""


def _verdict(**kw: str) -> dict[int, set[str]]:
    """line -> rules and notice kinds lint reports there, under safe."""
    args = {"index": "1 : i32", "rows": "0", "offset": "0"} | kw
    report = lint_text(_MODULE.format(**args), "literals.mlir", "safe")
    out: dict[int, set[str]] = {}
    for f in report.findings:
        out.setdefault(f.line, set()).add(f.rule)
    for n in report.notices:
        out.setdefault(n.line, set()).add(n.kind)
    return out


def test_the_literal_module_is_clean_as_written() -> None:
    assert _verdict() == {}


@pytest.mark.parametrize(
    ("args", "line", "rule"),
    [
        # 0x4000 = 16384: past the 16384-byte buffer (0x10 read as 0 would be clean).
        ({"offset": "0x4000"}, 9, "alias.range.fits"),
        # Index 0x2 = buffer 2 of 2; 0x2 read as 0 would be clean.
        ({"index": "0x2 : i32"}, 7, "alias.range.fits"),
        # The generic form of the same constant.
        ({"index": "{value = 2 : i32}"}, 7, "alias.range.fits"),
        # Rows [0x30, 0x50) of 64, read from the slice's own offsets.
        ({"rows": "0x30"}, 8, "alias.range.fits"),
        # A negative offset.
        ({"offset": "-16"}, 9, "alias.offset.nonneg"),
    ],
)
def test_hex_and_negative_literals_are_judged_by_their_value(
    args: dict[str, str], line: int, rule: str
) -> None:
    assert rule in _verdict(**args).get(line, set())


@pytest.mark.parametrize(
    ("args", "line"),
    [
        ({"offset": "0x10g"}, 9),
        ({"offset": "99999999999999999999"}, 9),  # past i64
        ({"offset": "1" * 6000}, 9),
        ({"offset": "1.5"}, 9),
        ({"index": "4294967296 : i32"}, 7),  # past i32
        ({"index": "1.0 : f32"}, 7),
        ({"index": "dense<1> : tensor<1xi32>"}, 7),
        ({"rows": "0x"}, 8),
        ({"rows": "0b1"}, 8),
    ],
)
def test_unreadable_literals_leave_the_view_unjudged_with_a_note(
    args: dict[str, str], line: int
) -> None:
    got = _verdict(**args)
    assert got.get(line) == {"lint.unread"}, got
    if line == 7:  # the view of the unread index is not traced either
        assert got.get(8) == {"lint.untraced"}, got


def test_comments_are_not_code() -> None:
    # A brace or an op in a comment neither opens a region nor defines a value.
    text = _MODULE.format(index="2 : i32 // {", rows="0", offset="0")
    text = text.replace("tt.return", "tt.return // %one = ttg.memdesc_index {")
    report = lint_text(text, "comments.mlir", "safe")
    assert {f.rule for f in report.findings if f.line == 7} >= {"alias.range.fits"}
    assert strip_comment('  %a = "x//y" // tail') == '  %a = "x//y" '


# --- linear time --------------------------------------------------------------------------------

_HEAD = "module {\n  tt.func @f() {\n"
# Each input is a few megabytes of a statement that never closes (or one that is huge); the
# reader was quadratic on every one of them. A hang fails the test through the timeout.
PATHOLOGICAL = {
    "open_angle_lines": _HEAD
    + "    %a = ttg.memdesc_reinterpret %b : !ttg.memdesc<64x64xf16, #s, #smem\n" * 50_000,
    "open_bracket_lines": _HEAD + "    %a = ttg.memdesc_index %b[\n" * 100_000,
    "one_line_of_types": _HEAD
    + "    %a = ttg.memdesc_reinterpret %b : "
    + "!ttg.memdesc<" * 200_000
    + "\n",
    "open_braces": _HEAD + "    %a = ttg.local_alloc {\n" * 100_000,
    "alias_with_blanks": "#a = b" + " " * 3_000_000 + "c\n" + _HEAD,
    "branch_groups": _HEAD + "    cf.br " + "^a(" * 400_000 + "\n",
    "labels_and_branches": _HEAD
    + "".join(f"  ^bb{i}(%x{i}: i32):\n    cf.br ^bb{i + 1}(%y : i32)\n" for i in range(40_000)),
    "inline_locations": _HEAD + "    %a = ttg.local_alloc : () -> " + 'loc("' * 400_000 + "\n",
    "result_group": _HEAD + "    %a:99999999999 = ttg.local_alloc : () -> i32\n",
}


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL))
def test_reader_is_linear_on_pathological_input(kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.mlir"
    path.write_text(PATHOLOGICAL[kind])
    assert path.stat().st_size > 1_000_000 or kind == "result_group"
    code = textwrap.dedent(
        f"""
        import sys
        from alias_spec.lint.lint import main
        sys.exit(main({str(path)!r}, "safe", "text"))
        """
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"lint did not finish on {kind} within 120 s")
    assert proc.returncode in (0, 1, 2, 3), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    if proc.returncode == 2:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr[-2000:]


# --- any text -----------------------------------------------------------------------------------

_DUMPS = [p.read_text() for p in sorted(CASES.glob("*.ttgir"))[:6]]
_PIECES = [
    "module {", "}", "{", "<", ">", "(", ")", "[", "]", '"', "//", "\n", " : ", " -> ", ",",
    "tt.func @f() {", "%a = ", "%b:3 = ", "^bb0(%x: i32):", "cf.br ^bb0(%a : i32)",
    "ttg.local_alloc : () -> ", "ttg.memdesc_index %a[%c] : ", "ttg.memdesc_subslice %a[1, 2] : ",
    "ttg.memdesc_reinterpret %a : ", "tle.memdesc_alias %a {offset_bytes = ", "arith.constant ",
    "!ttg.memdesc<", "64x64xf16", "2x", "#shared", "#smem", "mutable", "0x1F", "-7",
    "99999999999999999999999999999999", "scf.for %i = %c to %n step %c iter_args(%x = %a) -> (",
    "scf.yield %a", "scf.if %c -> (", "} else {", "ttg.warp_specialize(%a)", "partition0(",
    "#loc1 = loc(", "loc(#loc1)", 'loc("k.py":1:2)', "offsets = array<i32: ", "\x0c", "\r",
]  # fmt: skip


@st.composite
def texts(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["pieces", "random", "mutated", "nested", "number"]))
    if kind == "pieces":
        return "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=60)))
    if kind == "random":
        raw = draw(st.binary(max_size=400))
        return raw.decode("utf-8", errors="replace")
    if kind == "mutated":
        text = draw(st.sampled_from(_DUMPS))
        for _ in range(draw(st.integers(1, 6))):
            at = draw(st.integers(0, len(text)))
            cut = draw(st.integers(0, 40))
            text = text[:at] + draw(st.sampled_from(_PIECES)) + text[at + cut :]
        return text
    if kind == "nested":
        depth = draw(st.integers(1, 3000))
        opener = draw(st.sampled_from(["{", "<", "(", "[", "!ttg.memdesc<", "scf.if %c {\n"]))
        return _HEAD + "    %a = ttg.memdesc_index %b" + opener * depth + "\n  }\n}\n"
    number = draw(st.sampled_from(["9" * 5000, "0x" + "f" * 3000, "-" + "1" * 30, "1e999"]))
    return _MODULE.format(index=f"{number} : i32", rows=number, offset=number)


def _check(text: str) -> None:
    for profile in ("safe", "triton-3.9"):
        try:
            report = lint_text(text, "any.mlir", profile)
        except MlirError as exc:
            assert "\n" not in str(exc)
            continue
        to_text(report)
        to_json(report)
        to_sarif(report)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts())
def test_lint_text_gives_a_report_or_mlir_error_on_any_text(text: str) -> None:
    _check(text)


@pytest.mark.parametrize("kind", ["binary", "unicode", "nested"])
def test_main_exits_with_one_line_on_bad_text(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    data = {
        "binary": b"\x00\x01\xff module {",
        "unicode": "module {\n \u2028 \ud7ff \U0001f600 %a = ttg.local_alloc\n".encode(),
        "nested": ("module {\n" + "{" * 10_000 + "\n").encode(),
    }[kind]
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(str(path), "safe", "text")
    finally:
        sys.stdout, sys.stderr = old
    assert code in (0, 2, 3)
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and out.getvalue() == ""
