"""The LLVM IR reader (``alias_spec.ir.llir``): LLVM's parser through llvmlite, into records.

Quoted symbols, constant expressions, debug locations, the input's lines, float spellings
LLVM's parser predates, hand-written excerpts without declarations, and bad text: always one
line, never a traceback, nothing printed by LLVM itself.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_spec.ir.llir import LlirError, Operand, read
from tests.paths import PLAN_CASES

SMEM = "@global_smem = external addrspace(3) global [0 x i8], align 16\n"
DEBUG = (
    "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n"
    '!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", '
    "isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)\n"
    '!1 = !DIFile(filename: "kernel.py", directory: "")\n'
    '!2 = !{i32 2, !"Debug Info Version", i32 3}\n'
    '!4 = distinct !DISubprogram(name: "k", linkageName: "k", scope: !1, file: !1, line: 7, '
    "type: !5, scopeLine: 7, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)\n"
    "!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)\n!6 = !{}\n"
    "!7 = !DILocation(line: 8, column: 24, scope: !4)\n"
    "!8 = !DILocation(line: 293, column: 36, scope: !9, inlinedAt: !7)\n"
    "!9 = distinct !DILexicalBlockFile(scope: !4, file: !10, discriminator: 0)\n"
    '!10 = !DIFile(filename: "standard.py", directory: "")\n'
)


# --- symbols ---------------------------------------------------------------------------------


def test_quoted_symbols_are_their_names() -> None:
    """A function and a callee spelled quoted (Triton mangles constexpr arguments into the
    symbol) read as the symbol itself; escapes decoded."""
    text = (
        'define internal void @"helper__(2,)cconstexpr_1024_"() {\n  ret void\n}\n'
        'define void @"k\\22q"() {\n  call void @"helper__(2,)cconstexpr_1024_"()\n'
        "  ret void\n}\n"
    )
    mod = read(text)
    helper, kernel = mod.functions
    assert helper.name == "helper__(2,)cconstexpr_1024_" and helper.linkage == "internal"
    assert kernel.name == 'k"q' and kernel.linkage == "external"
    (call, _) = kernel.instructions
    assert call.callee is not None and call.callee.kind == "function"
    assert call.callee.name == helper.name
    assert mod.function(helper.name) is helper


def test_declarations_listed_apart() -> None:
    mod = read("declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\ndeclare void @ext(i32)\n")
    assert mod.functions == [] and sorted(mod.declarations) == [
        "ext",
        "llvm.nvvm.read.ptx.sreg.tid.x",
    ]


def test_block_size_from_its_attribute() -> None:
    text = 'define ptx_kernel void @k() #0 {\n  ret void\n}\nattributes #0 = { "nvvm.reqntid"="32,4,2" }\n'
    assert read(text).functions[0].threads == 256


# --- operands and constant expressions -------------------------------------------------------


def _store_address(text: str) -> Operand:
    fn = read(SMEM + text).functions[0]
    (store,) = [i for i in fn.instructions if i.opcode == "store"]
    return store.operands[1]


def test_constant_getelementptr_of_the_shared_global() -> None:
    op = _store_address(
        "define void @k() {\n  store i32 0, ptr addrspace(3) getelementptr inbounds "
        "(i8, ptr addrspace(3) @global_smem, i32 4096), align 4\n  ret void\n}\n"
    )
    assert op.kind == "expr" and op.opcode == "getelementptr" and op.text == "i8"
    base, index = op.elems
    assert (base.kind, base.name) == ("global", "global_smem")
    assert (index.kind, index.value) == ("int", 4096)


def test_nested_constant_expressions() -> None:
    """ptrtoint and add inside a getelementptr: each level an operand of the one above."""
    op = _store_address(
        "define void @k() {\n  store i32 0, ptr addrspace(3) inttoptr (i32 add (i32 ptrtoint "
        "(ptr addrspace(3) @global_smem to i32), i32 16) to ptr addrspace(3)), align 4\n"
        "  ret void\n}\n"
    )
    # LLVM may fold or keep the expression; what it keeps is read level by level.
    assert op.kind == "expr", op
    seen: list[str] = []
    todo = [op]
    while todo:
        x = todo.pop()
        seen.append(x.opcode or x.kind)
        todo.extend(x.elems)
    assert "global" in seen and "add" in seen and seen.count("int") >= 1, seen


def test_negative_and_wide_integers() -> None:
    fn = read("define i64 @k(i64 %x) {\n  %1 = add i64 %x, -8\n  %2 = and i64 %1, "
              "9223372036854775807\n  ret i64 %2\n}\n").functions[0]  # fmt: skip
    assert fn.instructions[0].operands[1].value == -8
    assert fn.instructions[1].operands[1].value == 2**63 - 1
    assert fn.instructions[0].operands[0].kind == "arg"
    assert (
        fn.instructions[1].operands[0].kind == "value" and fn.instructions[1].operands[0].ref == 0
    )


def test_inline_asm_text_and_constraints() -> None:
    fn = read(SMEM + (
        "define void @k(ptr addrspace(3) %p, i32 %v) {\n"
        '  call void asm sideeffect "st.shared.b32 [ $0 + 0 ], $1;\\0A\\09", "r,r"'
        "(ptr addrspace(3) %p, i32 %v)\n  ret void\n}\n"
    )).functions[0]  # fmt: skip
    call = fn.instructions[0]
    assert call.callee is not None and call.callee.kind == "asm"
    assert call.callee.text == "st.shared.b32 [ $0 + 0 ], $1;\n\t"
    assert call.callee.constraints == "r,r" and [o.kind for o in call.operands] == ["arg", "arg"]


# --- lines and debug locations ---------------------------------------------------------------


def test_lines_and_columns_of_the_input() -> None:
    """Each instruction keeps its line in the input, past labels, comments and a switch whose
    cases span lines."""
    text = (
        "; a comment\n"  # 1
        "define void @k(i32 %x) {\n"  # 2
        "entry:\n"  # 3
        "  ; in the body\n"  # 4
        "  switch i32 %x, label %b [\n"  # 5
        "    i32 0, label %c\n"  # 6
        "  ]\n"  # 7
        "b:                        ; preds = %entry\n"  # 8
        "    %1 = add i32 %x, 1\n"  # 9
        "  br label %c\n"  # 10
        "c:\n"  # 11
        "  ret void\n"  # 12
        "}\n"
    )
    fn = read(text).functions[0]
    assert fn.line == 2
    assert [(i.opcode, i.line) for i in fn.instructions] == [
        ("switch", 5), ("add", 9), ("br", 10), ("ret", 12)]  # fmt: skip
    assert fn.instructions[1].column == 5
    assert [b.name for b in fn.blocks] == ["entry", "b", "c"]
    assert fn.instructions[0].targets == [1, 2]


def test_debug_locations_name_file_line_column() -> None:
    text = (
        "define void @k(i32 %x) !dbg !4 {\n"
        "  %1 = add i32 %x, 1, !dbg !7\n"
        "  %2 = add i32 %x, 2, !dbg !8\n"
        "  ret void\n}\n" + DEBUG
    )
    fn = read(text).functions[0]
    assert [i.dbg for i in fn.instructions] == ["kernel.py:8:24", "standard.py:293:36", None]
    assert "dbg" in fn.instructions[0].metadata


def test_invalid_debug_info_is_dropped_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    """LLVM drops debug info it finds invalid (a call without a location in a function with
    one) and says so on the process's stderr: caught, kept as the module's warnings."""
    text = ("define void @k(i32 %x) !dbg !4 {\n  call void @k(i32 %x)\n  ret void, !dbg !7\n}\n"
            + DEBUG)  # fmt: skip
    mod = read(text)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert any("invalid debug info" in w for w in mod.warnings), mod.warnings
    assert [i.opcode for i in mod.functions[0].instructions] == ["call", "ret"]


@pytest.mark.parametrize("name", ["call_frame.llir", "call_frame-3.9.llir",
                                  "soundness/llir/quoted_callee.llir"])  # fmt: skip
def test_instruction_texts_are_llvms_own(name: str) -> None:
    """Each instruction's text is what LLVM prints for it alone (taken from the module printed
    once; metadata numbers aside, which LLVM gives per function there), a switch's cases
    included, in every function."""
    import re

    import llvmlite.binding as llvm

    text = (PLAN_CASES / name).read_text()
    mine = [i.text for f in read(text).functions for i in f.instructions]
    mod = llvm.parse_assembly(text)
    theirs = [str(i).strip() for f in mod.functions for b in f.blocks for i in b.instructions]

    def plain(t: str) -> str:
        return re.sub(r"!\d+", "!N", t)

    assert len(mine) == len(theirs) > 0
    assert [plain(t) for t in mine] == [plain(t) for t in theirs]


def test_a_switch_keeps_its_cases_in_its_text() -> None:
    text = ("define void @k(i32 %x) {\nentry:\n  switch i32 %x, label %b [\n    i32 0, label %b\n"
            "    i32 1, label %b\n  ]\nb:\n  ret void\n}\n")  # fmt: skip
    sw = read(text).functions[0].instructions[0]
    assert sw.opcode == "switch" and "i32 1, label %b" in sw.text and sw.text.endswith("]")


# --- spellings LLVM's parser predates; excerpts ---------------------------------------------


def test_hex_and_special_floats() -> None:
    """The exact-bits float spelling of newer LLVM (f0x...) and inf / nan are values: read."""
    text = (
        "define float @k(float %x, double %y) {\n"
        "  %1 = fmul float %x, f0x3FB8AA3B\n"
        "  %2 = fadd double %y, f0x3FF0000000000000\n"
        "  %3 = fmul float %1, -inf\n"
        "  %4 = fadd float %3, nan\n"
        "  %5 = select i1 true, float %4, float 0x7FF0000000000000\n"
        "  ret float %5\n}\n"
    )
    fn = read(text).functions[0]
    assert [i.opcode for i in fn.instructions] == ["fmul", "fadd", "fmul", "fadd", "select", "ret"]
    assert fn.instructions[0].operands[1].kind == "other"  # a value, never an address


def test_names_that_look_like_floats_are_kept() -> None:
    """Only float literals are respelled: a value or block named inf or nan stays itself."""
    text = ("define void @k(i32 %inf) {\nnan:\n  %f0x1 = add i32 %inf, 1\n  br label %nan2\n"
            "nan2:\n  ret void\n}\n")  # fmt: skip
    fn = read(text).functions[0]
    assert fn.params[0].name == "%inf" and fn.instructions[0].name == "%f0x1"
    assert [b.name for b in fn.blocks] == ["nan", "nan2"]
    asm = read('define void @k() {\n  call void asm "mov.f32 $0, inf; // nan \\22", ""()  ; "\n'
               "  ret void\n}\n").functions[0].instructions[0]  # fmt: skip
    assert asm.callee is not None and asm.callee.text == 'mov.f32 $0, inf; // nan "'


def test_excerpt_without_declarations() -> None:
    """A hand-written excerpt may use globals and call functions it does not declare."""
    fn = read("define void @k() {\n  %1 = load i32, ptr addrspace(3) @global_smem\n"
              "  call void @barrier()\n  ret void\n}\n").functions[0]  # fmt: skip
    load, call, _ = fn.instructions
    assert load.operands[0].kind == "global" and load.operands[0].name == "global_smem"
    assert call.callee is not None and call.callee.name == "barrier"


# --- bad text ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("define void @f( {", r"^line 1: .*LLVM's parser rejects it"),
        ("garbage", r"^line 1: "),
        ("define void @f() {\n  %1 = add i32 %2, 1\n  ret void\n}\n", r"^line 2: .*%2"),
        ("define void @f() {\n  ret i32 0\n}\n", r"^line 2: "),
        ("define void @f() {\0}", "NUL"),
        # Parsed, but not a program: a use before its definition in one block, a branch to
        # the entry block (LLVM's verifier, as every compiler's output passes it).
        (
            "define void @f(ptr addrspace(3) %p) {\n  store i32 %x, ptr addrspace(3) %p\n"
            "  %x = add i32 1, 2\n  ret void\n}\n",
            r"does not dominate.*LLVM's verifier rejects",
        ),
        ("define void @f() {\nentry:\n  br label %entry\n}\n", r"LLVM's verifier rejects"),
        ("\ud800", "Unicode"),
    ],
)
def test_bad_text_is_one_line(text: str, match: str, capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(LlirError, match=match) as info:
        read(text)
    assert "\n" not in str(info.value) and len(str(info.value)) <= 300
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_not_text_and_too_large() -> None:
    with pytest.raises(LlirError, match="text"):
        read(b"define void @f() {}")  # type: ignore[arg-type]
    with pytest.raises(LlirError, match="64 MiB"):
        read(" " * (64 * 2**20 + 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("%@!#=(),[]{}<> .:;\"\\\n-0123456789abcdefgilnprstuvxyz")),
               max_size=200))  # fmt: skip
def test_any_text_reads_or_is_one_line(text: str) -> None:
    try:
        read("define void @f() {\n" + text + "\n  ret void\n}\n")
    except LlirError as exc:
        assert "\n" not in str(exc)


def test_a_parser_abort_is_an_error_not_a_dead_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """LLVM's parser aborts the process on some malformed text (a property test once hit it):
    the text is parsed in a forked child first, and an abort there is one LlirError here."""
    import os

    from alias_spec.ir import llir as ir_llir

    class Aborting:
        def parse_assembly(self, text: str) -> None:
            os.abort()

    monkeypatch.setattr(ir_llir, "_llvm", lambda: Aborting())
    with pytest.raises(ir_llir.LlirError, match="aborts on the text") as got:
        ir_llir.read("define void @k() {\n  ret void\n}\n")
    assert "\n" not in str(got.value)


_WALKED = (
    SMEM
    + "@g = global i32 0\n"
    + "declare void @f(ptr, i1)\n"
    + "define void @k(i32 %n, ptr %p) {\n"
    + "entry:\n"
    + "  %a = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %n\n"
    + "  store i32 7, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 64)\n"
    + "  %v = insertelement <2 x i32> <i32 1, i32 2>, i32 %n, i32 0\n"
    + '  %r = call i32 asm sideeffect "mov.u32 $0, $1;", "=r,r"(i32 %n)\n'
    + "  call void @f(ptr null, i1 true)\n"
    + "  switch i32 %n, label %loop [\n    i32 1, label %exit\n  ]\n"
    + "loop:\n"
    + "  %i = phi i32 [ 0, %entry ], [ %j, %loop ]\n"
    + "  %j = add i32 %i, undef\n"
    + "  %c = icmp slt i32 %j, -5\n"
    + "  br i1 %c, label %loop, label %exit\n"
    + "exit:\n"
    + "  store ptr @g, ptr %p\n"
    + "  ret void\n"
    + "}\n"
)


def test_the_c_walk_reads_what_llvmlites_objects_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instructions and operands walked through llvmlite's C functions give the records its
    Python objects give (every operand kind: values, arguments, blocks, globals, functions,
    integers, booleans, null, undef, vectors, constant expressions, inline asm, phis)."""
    from alias_spec.ir import llir as ir_llir

    walked = read(_WALKED)
    assert ir_llir._RAW and ir_llir._RAW[0] is not None  # the C walk is what ran
    monkeypatch.setattr(ir_llir, "_RAW", [None])
    assert read(_WALKED) == walked
    kinds = {o.kind for ins in walked.functions[0].instructions
             for o in [*ins.operands, *([ins.callee] if ins.callee else [])]}  # fmt: skip
    assert {"value", "arg", "block", "global", "function", "int", "bool", "null", "undef",
            "vector", "expr", "asm"} <= kinds  # fmt: skip


def test_a_probe_started_early_is_the_one_read_waits_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """``start_probe`` forks the parse at once; ``read`` takes its answer (an abort is one
    LlirError), and ``close`` leaves no child behind."""
    import os

    from alias_spec.ir import llir as ir_llir

    text = "define void @k() {\n  ret void\n}\n"
    probe = ir_llir.start_probe(text)
    assert probe is not None and probe.pid > 0
    assert read(text, probe).functions[0].name == "k"
    assert probe.pid == 0
    idle = ir_llir.start_probe(text)
    assert idle is not None
    pid = idle.pid
    idle.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no longer this process's child

    class Aborting:
        def parse_assembly(self, text: str) -> None:
            os.abort()

    monkeypatch.setattr(ir_llir, "_llvm", lambda: Aborting())
    early = ir_llir.start_probe(text)
    with pytest.raises(ir_llir.LlirError, match="aborts on the text"):
        read(text, early)


def test_the_read_done_in_the_probes_child_is_the_one_done_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probe's child reads the whole module and hands the records back: the same records
    (debug locations and LLVM's warnings included) as a read in this process, the same one
    line for text LLVM refuses, and a failure of ours raised here as it would be without it."""

    from alias_spec.ir import llir as ir_llir

    text = (PLAN_CASES / "call_frame-3.9.llir").read_text()
    here = read(text)
    probe = ir_llir.start_probe(text)
    assert probe is not None and probe.fd >= 0
    with monkeypatch.context() as m:
        m.setattr(ir_llir, "_read", None)  # nothing read here: the child's records are used
        assert read(text, probe) == here and probe.pid == 0 and probe.fd < 0
    bad = "define void @k() {\n  %x = add i32 1\n  ret void\n}\n"
    with pytest.raises(LlirError) as alone:
        read(bad)
    with pytest.raises(LlirError) as early:
        read(bad, ir_llir.start_probe(bad))
    assert str(early.value) == str(alone.value)

    def broken(*args: object) -> None:
        raise KeyError("ours")

    monkeypatch.setattr(ir_llir, "_convert", broken)  # in the child too: it is forked after
    with pytest.raises(KeyError, match="ours"):
        read(text, ir_llir.start_probe(text))


def test_a_plan_that_fails_early_leaves_no_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline starts the LLVM IR's probe in its first stage; a TTGIR it refuses ends
    the run there, and the probe with it."""
    from alias_spec.ir import llir as ir_llir
    from alias_spec.plan import pipeline

    started: list[ir_llir.Probe] = []
    real = ir_llir.start_probe

    def spy(text: str) -> ir_llir.Probe | None:
        got = real(text)
        if got is not None:
            started.append(got)
        return got

    monkeypatch.setattr(ir_llir, "start_probe", spy)
    run = pipeline.Run("not a module at all", llir="define void @k() {\n  ret void\n}\n")
    with pytest.raises(Exception):  # noqa: B017 - whichever one-line error the reader gives
        pipeline.run(run)
    assert len(started) == 1 and started[0].pid == 0 and run.probe is None
