"""The one TTGIR reader (alias_spec/ir/ttgir.py): what ``read_module`` gives for each op (its
results, the definitions its uses resolve to, its callee, location and allocation attributes),
on text that MLIR reads one way and a line-by-line regex reader another; and Triton's own
parser accepting the TTGIR files of the plan's soundness and FlagTree cases.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from alias_spec.ir.ttgir import Function, Module, Op, TtgirError, read_module
from tests.paths import PLAN_CASES

PARSED = sorted((PLAN_CASES / "soundness" / "ttgir").glob("*.ttgir")) + sorted(
    (PLAN_CASES / "flagtree").glob("*.ttgir")
)


def module(body: str, attrs: str = "ttg.shared = 1024 : i32") -> Module:
    """A module around the given functions (indented as written)."""
    return read_module(f"module attributes {{{attrs}}} {{\n{textwrap.dedent(body)}}}\n")


def ops(fn: Function, name: str) -> list[Op]:
    return [op for op in fn.ops if op.name == name]


def one(fn: Function, name: str) -> Op:
    found = ops(fn, name)
    assert len(found) == 1, [o.name for o in fn.ops]
    return found[0]


# --- SSA values by scope --------------------------------------------------------------------


def test_the_same_name_in_both_branches_of_an_if_is_two_values() -> None:
    m = module("""\
        tt.func @f(%c: i1) -> f32 {
          %cst0 = arith.constant 0.0 : f32
          %r = scf.if %c -> (f32) {
            %cst0 = arith.constant 1.0 : f32
            scf.yield %cst0 : f32
          } else {
            %cst0 = arith.constant 2.0 : f32
            scf.yield %cst0 : f32
          }
          %s = arith.addf %r, %cst0 : f32
          tt.return %s : f32
        }
        """)
    fn = m.functions[0]
    consts = ops(fn, "arith.constant")
    names = [c.results[0] for c in consts]
    assert len(set(names)) == 3 and names[0] == "%cst0"
    yields = ops(fn, "scf.yield")
    # Each branch yields its own constant; after the if, %cst0 is the outer one again.
    assert [y.uses for y in yields] == [[names[1]], [names[2]]]
    assert one(fn, "arith.addf").uses == ["%r", "%cst0"]
    assert [y.parent for y in yields] == [one(fn, "scf.if").pos] * 2


def test_the_same_name_in_two_functions_and_in_a_loop_body() -> None:
    m = module("""\
        tt.func @f(%n: i32) -> i32 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
            %t = arith.addi %acc, %i : i32
            scf.yield %t : i32
          }
          %t = arith.addi %r, %c1 : i32
          tt.return %t : i32
        }
        tt.func @g(%n: i32) -> i32 {
          %t = arith.addi %n, %n : i32
          tt.return %t : i32
        }
        """)
    f, g = m.functions
    loop = one(f, "scf.for")
    assert loop.uses == ["%c0", "%n", "%c1", "%c0"] and loop.decls == ["%i", "%acc"]
    inner, outer = ops(f, "arith.addi")
    assert inner.uses == ["%acc", "%i"] and inner.parent == loop.pos
    assert outer.results != inner.results and outer.uses == ["%r", "%c1"]
    # The loop's result is defined where the loop ends, once.
    assert loop.results == ["%r"] and loop.end == one(f, "scf.yield").pos
    # A function starts with nothing visible: @g's %t is its own first %t.
    assert one(g, "arith.addi").results == ["%t"] and one(g, "tt.return").uses == ["%t"]


def test_a_partition_sees_only_its_arguments() -> None:
    m = module("""\
        tt.func @f(%a: i32) {
          %x = arith.addi %a, %a : i32
          ttg.warp_specialize(%x)
          default {
            %y = arith.addi %x, %x : i32
            ttg.warp_yield
          }
          partition0(%x: i32) num_warps(1) {
            %y = arith.addi %x, %x : i32
            ttg.warp_return
          } : (i32) -> ()
          tt.return
        }
        """)
    fn = m.functions[0]
    ws = one(fn, "ttg.warp_specialize")
    outer_x = fn.ops[0].results[0]
    default_add, part_add = ops(fn, "arith.addi")[1:]
    assert ws.uses == [outer_x]
    part_x = part_add.uses[0]
    assert default_add.uses == [outer_x, outer_x]
    assert part_x != outer_x and part_x in ws.decls and part_add.uses == [part_x, part_x]
    assert default_add.results != part_add.results


def test_results_of_a_multi_result_op_and_forward_references() -> None:
    m = module("""\
        tt.func @f(%a: i32) -> i32 {
          cf.br ^bb2
        ^bb1(%v: i32):
          tt.return %v : i32
        ^bb2:
          %r:2 = "tt.pair"(%a) : (i32) -> (i32, i32)
          %s = arith.addi %r#1, %r : i32
          cf.br ^bb1(%s : i32)
        }
        """)
    fn = m.functions[0]
    pair = one(fn, "tt.pair")
    assert pair.results == ["%r#0", "%r#1"]
    assert one(fn, "arith.addi").uses == ["%r#1", "%r#0"]  # a bare %r is the first result
    assert fn.labels == {"bb1": 1, "bb2": 3}
    assert fn.ops[1].decls == ["%v"] and one(fn, "tt.return").uses == ["%v"]
    assert [b.targets for b in ops(fn, "cf.br")] == [["bb2"], ["bb1"]]


def test_region_structure_headers_branches_and_entry_blocks() -> None:
    m = module("""\
        tt.func @f(%n: i32, %c: i1) -> i32 {
          %c0 = arith.constant 0 : i32
          %w = scf.while (%x = %c0) : (i32) -> i32 {
            scf.condition(%c) %x : i32
          } do {
          ^bb0(%y: i32):
            scf.yield %y : i32
          }
          cf.cond_br %c, ^bb1(%w, %n : i32, i32), ^bb2
        ^bb1(%a: i32, %b: i32):
          tt.return %a : i32
        ^bb2:
          tt.return %n : i32
        }
        """)
    fn = m.functions[0]
    loop = one(fn, "scf.while")
    assert loop.inits == [("%x", "%c0")] and loop.regions == 2
    assert loop.region_args == [["%x"], ["%y"]]  # the do region's entry block argument
    cond, yld = one(fn, "scf.condition"), one(fn, "scf.yield")
    assert (cond.region, yld.region) == (0, 1) and cond.uses == ["%c", "%x"]
    br = one(fn, "cf.cond_br")
    assert br.targets == ["bb1", "bb2"] and br.succ_args == [["%w", "%n"], []]


def test_a_statement_may_span_lines() -> None:
    m = module("""\
        tt.func @f(%x: tensor<4xf32>) {
          %b = ttg.local_alloc %x {allocation.offset = 0x10 : i32} :
              (tensor<4xf32>) ->
              !ttg.memdesc<4xf32, #shared, #smem>
          %v = ttg.local_load %b : !ttg.memdesc<4xf32, #shared, #smem> -> tensor<4xf32>
          tt.return
        }
        """)
    alloc, load = m.functions[0].ops[:2]
    assert (alloc.line, load.line) == (3, 6)
    assert alloc.attrs == {"allocation.offset": 16} and alloc.uses == ["%x"]
    assert alloc.result_types() == "!ttg.memdesc<4xf32, #shared, #smem>"
    assert load.uses == ["%b"]


def test_a_use_no_definition_resolves_is_an_error_unless_lenient() -> None:
    body = "tt.func @f() {\n  %a = arith.addi %nowhere, %nowhere : i32\n  tt.return\n}\n"
    with pytest.raises(TtgirError, match="line 3: use of %nowhere, which is never defined"):
        module(body)
    text = f"module {{\n{body}}}\n"
    lenient = read_module(text, strict=False)
    assert lenient.functions[0].ops[0].uses == ["%nowhere", "%nowhere"]
    # Lenient reading also closes what the text leaves open and keeps a statement it cannot
    # name as an op named "?".
    cut = read_module("module {\n tt.func @f(%x: i32) {\n  (%x) junk\n  scf.if %x {\n",
                      strict=False)  # fmt: skip
    names = [o.name for o in cut.functions[0].ops]
    assert names == ["?", "scf.if"] and cut.functions[0].ops[0].uses == ["%x"]
    with pytest.raises(TtgirError):
        read_module("module {\n tt.func @f(%x: i32) {\n  (%x) junk\n }\n}\n")


# --- symbols, locations, attributes -------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("@helper", "helper"),
        ("@loc", "loc"),  # a symbol named loc: its operand list is not a location
        ('@"loc(#loc2)"', "loc(#loc2)"),
        ('@"loc(\\"k.py\\":3:4)"', 'loc("k.py":3:4)'),
        ('@"_ZN2ns6helperIfEEvPfS1_$1 (x)"', "_ZN2ns6helperIfEEvPfS1_$1 (x)"),
        ('@"a\\5Cb\\09"', "a\\b\t"),  # hexadecimal escapes
        ("@kernels._callee_body__Pfp32_Pfp32__", "kernels._callee_body__Pfp32_Pfp32__"),
    ],
)
def test_callee_is_the_decoded_symbol(written: str, name: str) -> None:
    m = module(f"""\
        tt.func @f(%p: !tt.ptr<f32>) {{
          tt.call {written}(%p) {{allocation.offset = 0 : i32}} : (!tt.ptr<f32>) -> () loc(#loc1)
          tt.return
        }}
        tt.func private {written}(%p: !tt.ptr<f32>) {{
          tt.return
        }}
        """)
    call = one(m.functions[0], "tt.call")
    assert call.callee == name and call.uses == ["%p"] and call.attrs == {"allocation.offset": 0}
    assert call.loc_ref == "#loc1"
    assert m.functions[1].name == name and m.function(name) is m.functions[1]


def test_locations_resolve_through_aliases_fused_and_call_sites() -> None:
    text = textwrap.dedent("""\
        #loc1 = loc("k.py":10:4)
        #loc2 = loc("lib.py":3:1)
        #loc3 = loc(callsite(#loc2 at #loc1))
        #loc4 = loc("name"(#loc1))
        module attributes {ttg.shared = 16 : i32} {
          tt.func @f(%loc: i32 loc("arg"(#loc1))) {
            %a = arith.addi %loc, %loc : i32 loc(#loc3)
            %b = arith.addi %a, %a : i32 loc(fused[#loc4, "x.py":1:1])
            %c = "tt.tag"(%b) {note = "loc(\\"no.py\\":9:9)"} : (i32) -> i32 loc("in.py":7:2)
            %d = arith.addi %c, %c : i32 // loc("comment.py":1:1)
            tt.return
          }
        }
        """)
    m = read_module(text)
    fn = m.functions[0]
    assert fn.args == ["%loc"]
    a, b, d = ops(fn, "arith.addi")
    c = one(fn, "tt.tag")
    assert a.uses == ["%loc", "%loc"]
    assert m.source(a) == "k.py:10:4"  # the caller's side of the call site
    assert m.source(b) == "k.py:10:4"
    assert m.source(c) == "in.py:7:2"  # not the text inside the string attribute
    assert d.loc_ref is None and m.source(d) is None


@pytest.mark.parametrize(
    ("attrs", "want"),
    [
        ("allocation.offset = 0x800 : i32", {"allocation.offset": 2048}),
        ("allocation.offset = -16 : i32", {"allocation.offset": -16}),
        ('"allocation.offset" = 64 : i32, "allocation.size" = 0x10 : i32',
         {"allocation.offset": 64, "allocation.size": 16}),
        ('note = "allocation.offset = 8", allocation.size = 4 : i32', {"allocation.size": 4}),
        ("allocation.offset = 7", {"allocation.offset": 7}),
    ],
)  # fmt: skip
def test_allocation_attributes_are_read_as_mlir_reads_them(
    attrs: str, want: dict[str, int]
) -> None:
    m = module(f"""\
        tt.func @f(%x: tensor<4xf32>) {{
          %y = ttg.convert_layout %x {{{attrs}}} : tensor<4xf32> -> tensor<4xf32> // allocation.offset = 99
          tt.return
        }}
        """)
    op = one(m.functions[0], "ttg.convert_layout")
    assert op.attrs == want and op.uses == ["%x"]
    assert m.planned


@pytest.mark.parametrize(
    "value", ["0X800 : i32", "1e3 : i32", "0x10g : i32", "1.5 : f32", '"8"', "[1]", "0x800x"]
)
def test_an_offset_mlir_would_not_read_is_bad_input(value: str) -> None:
    with pytest.raises(TtgirError, match="allocation.offset"):
        module(f"""\
            tt.func @f(%x: tensor<4xf32>) {{
              %y = ttg.convert_layout %x {{allocation.offset = {value}}} : tensor<4xf32> -> tensor<4xf32>
              tt.return
            }}
            """)


def test_module_attributes_hex_and_quoted() -> None:
    m = module("tt.func @f() {\n  tt.return\n}\n",
               attrs='"ttg.num-warps" = 0x4 : i32, ttg.shared = 0x1000 : i32')  # fmt: skip
    assert (m.shared, m.num_warps, m.planned) == (4096, 4, False)


def test_comments_and_strings_are_not_code() -> None:
    m = module("""\
        tt.func @f(%x: i32) {
          // %y = arith.addi %x, %x : i32 {allocation.offset = 0 : i32} {
          %y = "tt.tag"(%x) {s = "} // { %z = "} : (i32) -> i32 // }
          %z = arith.addi %y, %y : i32
          tt.return
        }
        """)
    fn = m.functions[0]
    assert [o.name for o in fn.ops] == ["tt.tag", "arith.addi", "tt.return"]
    assert one(fn, "arith.addi").uses == ["%y", "%y"] and not m.planned
    assert all(o.parent is None and o.end == o.pos for o in fn.ops)


def test_generic_op_with_a_region_gets_the_attributes_after_it() -> None:
    m = module("""\
        tt.func @f(%x: tensor<8xf32>) -> f32 {
          %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
          ^bb0(%a: f32, %b: f32):
            %s = arith.addf %a, %b : f32
            tt.reduce.return %s : f32
          }) {allocation.offset = 0x20 : i32, allocation.size = 16 : i32} : (tensor<8xf32>) -> f32 loc("k.py":5:6)
          tt.return %sum : f32
        }
        """)
    fn = m.functions[0]
    red = one(fn, "tt.reduce")
    assert red.attrs == {"allocation.offset": 32, "allocation.size": 16}
    assert red.column == 11 and red.uses == ["%x"] and red.results == ["%sum"]
    assert red.decls == ["%a", "%b"] and red.end == one(fn, "tt.reduce.return").pos
    assert m.source(red) == "k.py:5:6" and red.result_types().strip() == "f32"
    assert one(fn, "tt.return").uses == ["%sum"]


def test_types_glued_to_colons_and_arrows() -> None:
    m = module("""\
        tt.func @f(%x: tensor<4xf32>) {
          %b = ttg.local_alloc %x {allocation.offset = 0 : i32} :(tensor<4xf32>)->!ttg.memdesc<4xf32, #shared, #smem>
          %v = ttg.local_load %b :!ttg.memdesc<4xf32, #shared, #smem>->tensor<4xf32>
          tt.return
        }
        """)
    alloc, load = m.functions[0].ops[:2]
    assert alloc.result_types() == "!ttg.memdesc<4xf32, #shared, #smem>"
    assert load.uses == ["%b"] and load.result_types() == "tensor<4xf32>"


@pytest.mark.parametrize(
    "text",
    [
        "tt.func @f() {\n  tt.return\n}\n",  # no module
        'module {\n  tt.func @f() {\n    %a = "unterminated\n  }\n}\n',
        "module {\n  tt.func @f() {\n    tt.return\n",  # not closed
        "module {\n  tt.func @f() {\n    {\n  }\n}\n",
    ],
)
def test_text_that_is_not_ttgir_is_one_error(text: str) -> None:
    with pytest.raises(TtgirError) as info:
        read_module(text)
    assert "\n" not in str(info.value)


# --- Triton's own parser accepts what the reader reads -------------------------------------------

# Run in a child: an input that aborts the compiler must not take the test session with it.
_PARSE = """
import json, sys
from triton._C.libtriton import ir
try:
    from triton._C.libtriton import nvidia
except ImportError:
    nvidia = None
out = {}
for path in json.loads(sys.stdin.read()):
    ctx = ir.context()
    ir.load_dialects(ctx)
    if nvidia is not None:
        nvidia.load_dialects(ctx)
    try:
        ir.parse_mlir_module(path, ctx)
        out[path] = None
    except Exception as exc:
        out[path] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
print(json.dumps(out))
"""
# Ops of FlagTree's tle dialect (not in Triton): the binding has no way to allow unregistered
# dialects, so one in the generic form is parsed as builtin.unrealized_conversion_cast (any
# operands, any results: the rest of the text is still checked), and a file with one in the
# custom form cannot be parsed by Triton at all.
_CAST = "builtin.unrealized_conversion_cast"


def _for_triton(path: Path, into: Path) -> tuple[Path | None, str]:
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    tle = [op for fn in read_module(text).functions for op in fn.ops if op.name.startswith("tle.")]
    if not tle:
        return path, "as written"
    for op in tle:
        line = lines[op.line - 1]
        at = op.column - 1
        if line[at - 1 : at] != '"':
            return None, "custom-form op of the tle dialect, which Triton does not register"
        lines[op.line - 1] = line[:at] + _CAST + line[at + len(op.name) :]
    out = into / path.name
    out.write_text("".join(lines))
    return out, "tle ops as unrealized casts"


def _text(name: str) -> str:
    return next(p for p in PARSED if p.name == name).read_text()


def _parses(python: str, type_text: str) -> bool:
    """Whether that interpreter's Triton parses a function taking one argument of this type."""
    probe = (
        "import os, sys, tempfile\n"
        "from triton._C.libtriton import ir\n"
        "ctx = ir.context(); ir.load_dialects(ctx)\n"
        "f = tempfile.NamedTemporaryFile('w', suffix='.mlir', delete=False)\n"
        "f.write('module { tt.func @f(%a: ' + sys.argv[1] + ') { tt.return } }'); f.close()\n"
        "try:\n    ir.parse_mlir_module(f.name, ctx)\nfinally:\n    os.unlink(f.name)\n"
    )
    proc = subprocess.run([python, "-c", probe, type_text], capture_output=True, timeout=120)
    return proc.returncode == 0


def _interpreters() -> list[str]:
    """The installed Python, and each interpreter named in ``ALIAS_SPEC_TRITON_PYTHONS``
    (``os.pathsep``-separated; venvs holding another Triton release)."""
    extra = os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "")
    return [sys.executable, *[p for p in extra.split(os.pathsep) if p]]


@pytest.mark.parametrize(
    "python",
    _interpreters(),
    ids=lambda p: "installed" if p == sys.executable else Path(p).parent.parent.name,
)
def test_triton_parses_every_case_the_reader_reads(tmp_path: Path, python: str) -> None:
    if python == sys.executable and importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not importable here")
    if python != sys.executable and not Path(python).exists():
        pytest.skip(f"{python} does not exist")
    assert len(PARSED) >= 18
    to_parse: dict[str, Path] = {}
    skipped: dict[str, str] = {}
    for path in PARSED:
        read_module(path.read_text())  # the reader reads each one
        parsed, how = _for_triton(path, tmp_path)
        if parsed is None:
            skipped[path.name] = how
        else:
            to_parse[str(parsed)] = path
    proc = subprocess.run([python, "-c", _PARSE], input=json.dumps(sorted(to_parse)),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors = {to_parse[p].name: why for p, why in json.loads(proc.stdout).items() if why}
    if python != sys.executable and not _parses(python, "!tt.ptr<f32, 3>"):
        # Newer releases took shared-memory pointers out of ``tt.ptr`` (only the global
        # address space is left): the cases of FlagTree's tle.local_pointers, a 3.6 fork, use
        # them, and no other error is allowed.
        shared_ptr = re.compile(r"!tt\.ptr<[^<>]*,\s*3>")
        errors = {n: w for n, w in errors.items() if not shared_ptr.search(_text(n))}
    assert errors == {}, proc.stderr[-4000:]
    # Only FlagTree cases written with a tle op in its custom form are left out; every
    # soundness case is parsed.
    assert set(skipped.values()) <= {"custom-form op of the tle dialect, which Triton does not "
                                     "register"}, skipped  # fmt: skip
    assert not set(skipped) & {p.name for p in PARSED if p.parent.name == "ttgir"}, skipped
    assert len(to_parse) >= len(PARSED) - 3, skipped
    assert sum(p.parent == tmp_path for p in map(Path, to_parse)) >= 5  # tle ops cast


# Token kinds of hand-lexed lines (independent of the reader's regular expression).
_LEXED = [
    ("%0 = arith.constant 0x1F : i32", [("ssa", "%0"), ("punct", "="), ("id", "arith.constant"),
                                        ("int", "0x1F"), ("punct", ":"), ("id", "i32")]),
    ("12.5 1e5 0x ->-", [("float", "12.5"), ("int", "1"), ("id", "e5"), ("int", "0"),
                         ("id", "x"), ("punct", "->"), ("punct", "-")]),
    ('@"a b" ^bb1 !tt.ptr<f16> #loc3 // c', [("sym", '@"a b"'), ("label", "^bb1"),
                                             ("bang", "!tt.ptr"), ("punct", "<"), ("id", "f16"),
                                             ("punct", ">"), ("hash", "#loc3")]),
    ("x*?|+/", [("id", "x"), ("punct", "*"), ("punct", "?"), ("punct", "|"), ("punct", "+"),
                ("punct", "/")]),
]  # fmt: skip


@pytest.mark.parametrize(("line", "want"), _LEXED)
def test_lex_kinds_and_texts(line: str, want: list[tuple[str, str]]) -> None:
    from alias_spec.ir.ttgir import lex

    toks = lex(line)
    assert [(t.kind, t.text) for t in toks] == want
    assert all(line[t.start : t.end] == t.text for t in toks)


def test_result_types_follow_an_edited_op_and_flows_are_built_once() -> None:
    from alias_spec.ir.flows import Flows, flows_of

    text = textwrap.dedent("""\
        module attributes {"ttg.num-warps" = 4 : i32} {
          tt.func @k() {
            %a = ttg.local_alloc : () -> !ttg.memdesc<16xf16, #shared, #smem, mutable> loc(#l)
            tt.return
          }
        }
        """)
    fn = read_module(text, strict=False).functions[0]
    op = fn.ops[0]
    assert op.result_types().startswith("!ttg.memdesc<16xf16")
    assert "loc" not in op.result_types()
    op.head = op.head.replace("16xf16", "32xf32")  # a reader that edits the op sees the edit
    assert op.result_types().startswith("!ttg.memdesc<32xf32")
    first = flows_of(fn)
    assert isinstance(first, Flows) and flows_of(fn) is first
    other = read_module(text, strict=False).functions[0]
    assert flows_of(other) is not first and flows_of(other).fn is other


def test_blanked_shortcut_agrees_with_the_token_walk() -> None:
    """A line with no string and no comment is blanked by stripping it; the token walk gives
    the same text on every such line of the corpus (and on lines made to end in spaces and
    tabs, or with no token at all)."""
    from alias_spec.ir.ttgir import _blanked, _blanked_tokens, lex

    lines = [ln for f in PARSED for ln in f.read_text().split("\n")]
    lines += ["", "   ", "\t%0 = arith.constant 0 : i32 \t ", "} ", "  ^bb1:  "]
    short = [ln for ln in lines if '"' not in ln and "//" not in ln]
    assert len(short) > 100
    for ln in short:
        assert _blanked(ln, lex(ln)) == _blanked_tokens(ln, lex(ln)), ln
