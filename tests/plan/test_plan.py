"""`alias-spec plan`: the plan reader, our liveness, the plan proof and the lowering check.

Cases: the committed dumps of ``tests/plan/cases`` (the call-frame kernel and its correct
variants, compiled by Triton 3.6, 3.8 and 3.9; ``*.alloc.ttgir`` is the module after each
release's allocation), small hand-written modules, and mutations of both. What needs Triton
(running the allocation) is skipped where it is absent.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_spec.api import run as cli_main
from alias_spec.ir.ttgir import TtgirError, read_module
from alias_spec.plan.liveness import live_ranges
from alias_spec.plan.llir import LlirError, check_lowering, read_llir
from alias_spec.plan.plan import check_plan, parse_debug
from tests.paths import PLAN_CASES

CASES = PLAN_CASES
HAS_TRITON = importlib.util.find_spec("triton") is not None
needs_triton = pytest.mark.skipif(not HAS_TRITON, reason="needs triton")
CALLEE = "kernels._callee_body__Pfp32_Pfp32"


def _read(name: str) -> str:
    return (CASES / name).read_text()


def _judge(ttgir: str, llir: str | None = None):
    report, module, _ = check_plan(ttgir, "k.ttgir")
    if llir is not None:
        check_lowering(llir, "k.llir", report, module.num_warps)
    return report


# --- reader ---------------------------------------------------------------------------------


def test_reader_on_committed_dump() -> None:
    mod = read_module(_read("call_frame.ttgir"))
    assert [f.name for f in mod.functions] == ["call_frame", CALLEE + "__"]
    kernel = mod.functions[0]
    (call,) = [op for op in kernel.ops if op.name == "tt.call"]
    assert call.line == 25 and call.uses == ["%x_ptr", "%y_ptr"]
    (alloc,) = [op for op in kernel.ops if op.name == "ttg.local_alloc"]
    assert alloc.results == ["%buf"] and mod.source(alloc) == "tests/plan/cases/kernels.py:47:53"
    reduce = next(op for op in mod.functions[1].ops if op.name == "tt.reduce")
    assert reduce.decls == ["%total_3", "%total_4"] and reduce.end > reduce.pos


def test_reader_takes_offsets_and_sizes_from_an_allocated_module() -> None:
    mod = read_module(_read("call_frame-3.9.alloc.ttgir"))
    assert mod.shared == 6144
    call = next(op for op in mod.functions[0].ops if op.name == "tt.call")
    assert call.attrs == {"allocation.offset": 4096, "allocation.size": 2048}
    reduce = next(op for op in mod.functions[1].ops if op.name == "tt.reduce")
    assert reduce.attrs["allocation.size"] == 16  # read from the line that closes its region


def test_debug_output_parsed() -> None:
    text = (
        "-- buffer 0; value: %1 = ttg.local_alloc : () -> !ttg.memdesc<8xf32>\n"
        "-- buffer 1; value: tt.call @f() : () -> ()\n"
        "[x]: Dump bufferRange: id size offset ---------\n"
        "-- 0 32 0 interval 1 5\n-- 1 64 32 interval 3 3\nAllocated: 96, analyzed: 96\n"
    )
    assert parse_debug(text) == [([("ttg.local_alloc", 32, 0), ("tt.call", 64, 32)], 96)]


# --- liveness -------------------------------------------------------------------------------

MEMDESC = "!ttg.memdesc<256xf32, #shared, #smem, mutable>"
HEADER = (
    "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
    "#smem = #ttg.shared_memory\n"
    'module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = SHARED : i32} {\n'
    "  tt.func public @k(%n: i32, %c: i1) {\n"
)
FOOTER = "    tt.return\n  }\n}\n"


def _module(body: str, shared: int = 2048) -> str:
    return HEADER.replace("SHARED", str(shared)) + body + FOOTER


def _alloc(name: str, offset: int | None = None) -> str:
    attr = f" {{allocation.offset = {offset} : i32}}" if offset is not None else ""
    return f"    {name} = ttg.local_alloc{attr} : () -> {MEMDESC}\n"


def _load(name: str) -> str:
    return f"    %v{name[1:]} = ttg.local_load {name} : {MEMDESC} -> tensor<256xf32>\n"


def _ranges(body: str) -> dict[str, tuple[int, int]]:
    fn = read_module(_module(body)).functions[0]
    roots = {op.results[0] for op in fn.ops if op.name == "ttg.local_alloc"}
    return live_ranges(fn, roots)


def test_straight_line_liveness_ends_at_last_use_of_a_view() -> None:
    body = (
        _alloc("%a")
        + f"    %s = ttg.memdesc_subslice %a [0] : {MEMDESC} -> {MEMDESC}\n"
        + _alloc("%b")
        + _load("%s")
        + _load("%b")
    )
    r = _ranges(body)
    assert r["%a"] == (0, 3)  # through the view's load
    assert r["%b"] == (2, 4)


def test_buffer_used_inside_a_loop_is_live_over_the_whole_loop() -> None:
    body = (
        _alloc("%a")
        + "    %r = scf.for %i = %n to %n step %n iter_args(%x = %n) -> (i32) : i32 {\n"
        + _load("%a")
        + "      %y = arith.addi %x, %x : i32\n"
        + "      scf.yield %y : i32\n"
        + "    }\n"
        + _alloc("%b")
        + _load("%b")
    )
    r = _ranges(body)
    assert r["%a"] == (0, 4)  # defined before the loop, used inside it: to the loop's end
    assert r["%b"] == (5, 6)


def test_buffer_carried_by_a_loop_is_live_over_it() -> None:
    body = (
        _alloc("%a")
        + f"    %r = scf.for %i = %n to %n step %n iter_args(%x = %a) -> ({MEMDESC}) : i32 {{\n"
        + _alloc("%b")
        + _load("%b")
        + f"      scf.yield %b : {MEMDESC}\n"
        + "    }\n"
        + _load("%r")
    )
    r = _ranges(body)
    assert r["%b"][0] <= 1 and r["%b"][1] >= 5  # carried round the loop into %r
    assert r["%a"] == (0, 5)


def test_branches_are_sequential_but_what_follows_extends() -> None:
    body = (
        _alloc("%a")
        + "    scf.if %c {\n"
        + _alloc("%t")
        + _load("%t")
        + "    } else {\n"
        + _alloc("%e")
        + _load("%e")
        + "    }\n"
        + _load("%a")
    )
    r = _ranges(body)
    assert r["%t"] == (2, 3) and r["%e"] == (4, 5)
    assert r["%a"] == (0, 6)


def test_cf_back_edge_is_a_loop() -> None:
    body = (
        _alloc("%a")
        + "    cf.br ^bb1\n"
        + "  ^bb1:\n"
        + _load("%a")
        + "    cf.cond_br %c, ^bb1, ^bb2\n"
        + "  ^bb2:\n"
        + _alloc("%b")
        + _load("%b")
    )
    r = _ranges(body)
    assert r["%a"] == (0, 4)
    assert r["%b"] == (6, 7)


def test_warp_specialize_partitions_are_concurrent() -> None:
    body = (
        _alloc("%a")
        + "    ttg.warp_specialize(%a)\n"
        + "    default {\n"
        + _alloc("%d")
        + _load("%d")
        + "      ttg.warp_yield\n"
        + "    }\n"
        + f"    partition0(%p: {MEMDESC}) num_warps(1) {{\n"
        + _load("%p")
        + "      ttg.warp_return\n"
        + f"    }} : ({MEMDESC}) -> ()\n"
    )
    r = _ranges(body)
    ws = (1, 6)
    assert r["%a"][0] == 0 and r["%a"][1] >= ws[1]  # used by partition 0 during all of it
    # Used only by the default warps, in order: live where used (%a covers it all the same).
    assert r["%d"] == (2, 3)


# --- the plan proof --------------------------------------------------------------------------


def test_allocated_dump_proved_clean() -> None:
    report = _judge(_read("call_frame-3.9.alloc.ttgir"))
    assert report.status == "clean", [f.message for f in report.findings + report.notes]


def test_offset_moved_onto_a_live_neighbour_is_found() -> None:
    text = _read("call_frame-3.9.alloc.ttgir")
    moved = text.replace("allocation.offset = 4096 : i32", "allocation.offset = 2048 : i32", 1)
    assert moved != text
    report = _judge(moved)
    (f,) = report.findings
    assert f.rule == "plan.overlap" and f.values["overlap"] == [2048, 4096]
    assert "%buf" in f.message and "frame of call" in f.message
    assert f.line == 25 and (f.source or "").startswith("tests/plan/cases/kernels.py:50:")


def test_overlap_in_hand_written_module() -> None:
    body = _alloc("%a", 0) + _alloc("%b", 1024) + _load("%a") + _load("%b")
    assert _judge(_module(body)).status == "clean"
    # 256 fp32 are 1024 bytes: [0, 1024) and [768, 1792) share [768, 1024)
    f = _judge(_module(_alloc("%a", 0) + _alloc("%b", 768) + _load("%a") + _load("%b")))
    assert [x.values["overlap"] for x in f.findings] == [[768, 1024]]
    # dead before the other is born: reuse is fine
    seq = _alloc("%a", 0) + _load("%a") + _alloc("%b", 0) + _load("%b")
    assert _judge(_module(seq)).status == "clean"


def test_buffer_outside_ttg_shared_is_found() -> None:
    report = _judge(_module(_alloc("%a", 1536) + _load("%a"), shared=2048))
    assert [f.rule for f in report.findings] == ["plan.bounds"]


# --- the lowering check ----------------------------------------------------------------------


def test_call_kernel_proved_clean_on_3_9() -> None:
    report = _judge(_read("call_frame-3.9.alloc.ttgir"), _read("call_frame-3.9.llir"))
    assert report.status == "clean", [x.message for x in report.findings + report.notes]


def test_frame_base_dropped_is_found() -> None:
    llir = _read("call_frame-3.9.llir")
    dropped = llir.replace("getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096)",
                           "@global_smem")  # fmt: skip
    assert dropped != llir
    report = _judge(_read("call_frame-3.9.alloc.ttgir"), dropped)
    (f,) = report.findings
    assert f.rule == "lowering.outside" and f.function == CALLEE
    assert f.values["range"] == [4096, 6144] and f.values["address"] < 4096


def test_swizzled_address_is_exact() -> None:
    """An xor/and swizzle that stays inside 1 KiB is proved; one bit more is a finding."""
    llir = (
        "define ptx_kernel void @k() #0 {\n"
        "  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %2 = shl i32 %1, 4\n  %3 = and i32 %2, MASK\n  %4 = lshr i32 %1, 3\n"
        "  %5 = and i32 %4, 7\n  %6 = shl i32 %5, 4\n  %7 = xor i32 %3, %6\n"
        "  %8 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %7\n"
        "  store <4 x i32> zeroinitializer, ptr addrspace(3) %8, align 16\n  ret void\n}\n"
        'attributes #0 = { "nvvm.reqntid"="128" }\n'
    )
    ttgir = _module(_alloc("%a", 0) + _load("%a"), shared=1024)
    assert _judge(ttgir, llir.replace("MASK", "1008")).status == "clean"
    (f,) = _judge(ttgir, llir.replace("MASK", "2032")).findings
    assert f.values["address"] + 16 > 1024


def test_unbounded_address_is_partial_not_clean() -> None:
    llir = (
        "define ptx_kernel void @k(i32 %x) #0 {\n"
        "  %1 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %x\n"
        "  store i32 0, ptr addrspace(3) %1, align 4\n  ret void\n}\n"
        'attributes #0 = { "nvvm.reqntid"="128" }\n'
    )
    report = _judge(_module(_alloc("%a", 0) + _load("%a"), shared=1024), llir)
    assert report.status == "partial" and not report.findings


@needs_triton
def test_call_kernel_flagged_on_3_6() -> None:
    report = _judge(_read("call_frame.ttgir"), _read("call_frame.llir"))
    assert report.plan_from.startswith("triton 3.6")
    sizes = {b.label: (b.offset, b.size) for b in report.buffers}
    assert sizes["%buf (ttg.local_alloc)"] == (0, 4096)
    assert sizes[f"frame of call @{CALLEE}__"] == (4096, 2048)
    (f,) = report.findings
    assert f.rule == "lowering.outside" and f.values["range"] == [4096, 6144]


@needs_triton
@pytest.mark.parametrize("name", ["call_frame_dead", "call_inlined"])
def test_variants_proved_clean_on_3_6(name: str) -> None:
    report = _judge(_read(f"{name}.ttgir"), _read(f"{name}.llir"))
    assert report.status == "clean", [x.message for x in report.findings + report.notes]


def test_3_8_dump_with_3_9_plan_attributes_flagged() -> None:
    """3.8 lowers the callee from the shared base as 3.6 does (its plan is 3.9's: same
    offsets, and 3.9 prints the sizes)."""
    report = _judge(_read("call_frame-3.9.alloc.ttgir"), _read("call_frame-3.8.llir"))
    assert [f.rule for f in report.findings] == ["lowering.outside"]


# --- command line ----------------------------------------------------------------------------


def test_cli_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    alloc = str(CASES / "call_frame-3.9.alloc.ttgir")
    assert cli_main(["plan", alloc, "--llir", str(CASES / "call_frame-3.9.llir")]) == 0
    assert "proved clean" in capsys.readouterr().out
    assert cli_main(["plan", alloc, "--llir", str(CASES / "call_frame-3.8.llir"),
                     "--format", "json"]) == 1  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "findings" and out["findings"][0]["rule"] == "lowering.outside"
    assert cli_main(["plan", alloc, "--format", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []
    partial = tmp_path / "p.ttgir"
    partial.write_text(_read("call_frame.alloc.ttgir"))  # 3.6 prints no scratch sizes
    assert cli_main(["plan", str(partial)]) == 3


@pytest.mark.parametrize(
    "content,extra",
    [
        ("not mlir at all\n", []),
        (b"\xff\xfe", []),
        ("module {\n  tt.func @k() {\n", []),
        (None, []),
        ("ALLOC", ["--llir", "MISSING"]),
        ("ALLOC", ["--llir", "BADLLIR"]),
    ],
)
def test_bad_input_one_line_exit_2(
    content, extra, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.ttgir"
    if content == "ALLOC":
        path.write_text(_read("call_frame-3.9.alloc.ttgir"))
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    bad = tmp_path / "bad.llir"
    bad.write_text("hello\n")
    extra = [str(tmp_path / "none.llir") if e == "MISSING" else str(bad) if e == "BADLLIR"
             else e for e in extra]  # fmt: skip
    assert cli_main(["plan", str(path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("alias-spec: error: ")


@needs_triton
def test_bad_python_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["plan", str(CASES / "call_frame.ttgir"), "--python", str(tmp_path / "no")])
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


_TOKENS = st.sampled_from([
    "module {", "}", "tt.func @k() {", "tt.func @k(%a: i32) {", "tt.return", "scf.for", "{",
    "%a = ttg.local_alloc {allocation.offset = 0 : i32} : () -> !ttg.memdesc<4xf32, #s, #m>",
    "%b = ttg.memdesc_subslice %a [0]", "^bb1(%x: i32):", "cf.br ^bb1(%a : i32)", "default {",
    "partition0(%p: i32) num_warps(1) {", "ttg.shared = 16", "loc(#loc1)", '"', "//", "\n",
    "allocation.size = 9", "#loc1 = loc(\"f.py\":1:2)", "%r:2 = scf.if %c -> (i32) {",
])  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_TOKENS, st.text(max_size=20)), max_size=40))
def test_random_text_never_tracebacks(parts: list[str]) -> None:
    text = "allocation.offset\n" + " ".join(parts)  # judged as a dump: Triton is not run
    try:
        report, module, _ = check_plan(text, "r.ttgir")
    except TtgirError:
        return
    assert report.status in ("clean", "findings", "partial")
    try:
        check_lowering(" ".join(parts), "r.llir", report, module.num_warps)
    except LlirError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_random_llir_never_tracebacks(text: str) -> None:
    try:
        read_llir("define void @f() {\n" + text + "\n}\n")
    except LlirError:
        pass
