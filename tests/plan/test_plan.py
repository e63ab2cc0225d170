"""`alias-spec plan`: the plan reader, the plan proof and the lowering check.

Cases: the committed dumps of ``tests/plan/cases`` (the call-frame kernel and its correct
variants, compiled by Triton 3.6, 3.8 and 3.9; ``*.alloc.ttgir`` is the module after each
release's allocation) and mutations of them. What needs Triton (running the allocation) is
skipped where it is absent. Small hand-written modules (live ranges, overlaps, the lowering of
swizzled and unbounded addresses) are text cases (``tests/plan/cases/text/``, compared by
``test_plan_cases.py``); here, what their EXPECT lines cannot say: the values a finding names.
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
from alias_spec.plan.llir import LlirError, check_lowering, read_llir
from alias_spec.plan.plan import check_plan, parse_debug
from tests.paths import PLAN_CASES
from tests.plan import expect

CASES = PLAN_CASES
TEXT = expect.CASES
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


def test_overlap_names_the_shared_bytes() -> None:
    # 256 fp32 are 1024 bytes: [0, 1024) and [768, 1792) share [768, 1024)
    report = expect.judge(TEXT / "overlap" / "share_bytes.ttgir").report
    assert report is not None
    assert [x.values["overlap"] for x in report.findings] == [[768, 1024]]


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


def test_swizzled_address_one_bit_past_names_the_address() -> None:
    """An xor/and swizzle one mask bit wider than the 1 KiB buffer: the address found."""
    report = expect.judge(TEXT / "lowering" / "swizzle_one_bit_more.ttgir").report
    assert report is not None
    (f,) = report.findings
    assert f.values["address"] + 16 > 1024


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
