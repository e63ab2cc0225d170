"""The bytes a shared access of an LLVM type touches (issue 40): a vector of sub-byte elements
packs (``<32 x i1>``: 4 bytes) where an array does not (``[4 x i1]``: 4 bytes, one each).

The plan's sizes (``taint.type_size``, ``taint.alloc_size``) are checked against truths that do
not go through them: a table written from LLVM's rule (LangRef, "Vector Type"; DataLayout's
store and alloc sizes), the bytes LLVM's own NVPTX code generator reads and writes for a load
and a store of the type in shared memory, and llvmlite's target data. Then a real kernel,
``tests/plan/cases/text/i1_vectors/mask_transpose`` (``tools/plan/make_i1_case.py``), judged
with races, clean, and with its vectors sized as arrays, the false alarm of the issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("llvmlite")

from alias_spec.ir.llir import NVPTX_LAYOUT, read  # noqa: E402
from alias_spec.plan import accesses, pipeline  # noqa: E402
from alias_spec.plan.llir import check_lowering  # noqa: E402
from alias_spec.plan.plan import Report  # noqa: E402
from alias_spec.plan.taint import alloc_size, type_size  # noqa: E402
from tests.paths import PLAN_CASES  # noqa: E402
from tests.plan.expect import read_allocated  # noqa: E402

CASE = PLAN_CASES / "text" / "i1_vectors" / "mask_transpose"

# type -> (store size, alloc size) in Triton's NVPTX layout, by LLVM's rule: a scalar or a
# vector stores in ceil(bits / 8) bytes, bits = N x M for <N x iM>; an array takes N x its
# element's alloc size; the alloc size is the store size rounded up to the ABI alignment.
SIZES: dict[str, tuple[int, int]] = {
    "<1 x i1>": (1, 1),
    "<7 x i1>": (1, 1),
    "<8 x i1>": (1, 1),
    "<9 x i1>": (2, 2),
    "<16 x i1>": (2, 2),
    "<32 x i1>": (4, 4),
    "<33 x i1>": (5, 8),
    "<4 x i4>": (2, 2),
    "<2 x i2>": (1, 1),
    "<3 x i8>": (3, 4),
    "<3 x i24>": (9, 16),
    "<1 x i8>": (1, 1),
    "<4 x i8>": (4, 4),
    "<2 x half>": (4, 4),
    "<4 x float>": (16, 16),
    "[4 x i1]": (4, 4),
    "[32 x i1]": (32, 32),
    "[3 x i24]": (12, 12),
    "i1": (1, 1),
    "i8": (1, 1),
    "i24": (3, 4),
    "i64": (8, 8),
    "bfloat": (2, 2),
    "double": (8, 8),
    "ptr addrspace(3)": (4, 4),
    "ptr": (8, 8),
    "{ i8, i32 }": (8, 8),
    "<2 x ptr addrspace(3)>": (8, 8),
}

# Scalars and vectors of integers or floats: the code generator touches exactly their store
# size (an aggregate's padding it may leave alone; pointers it sizes by its own layout).
DENSE = [t for t in SIZES if not t.startswith(("[", "{", "ptr")) and "ptr" not in t]


@pytest.mark.parametrize("ty", list(SIZES))
def test_sizes_follow_llvms_rule(ty: str) -> None:
    assert (type_size(ty), alloc_size(ty)) == SIZES[ty]


def test_unsized_types_are_none() -> None:
    for ty in ("void", "label", "%struct.named", "<vscale x 4 x i32>", "<0 x i8>", "i", '"x"'):
        assert type_size(ty) is None and alloc_size(ty) is None, ty


def test_the_modules_layout_sizes_its_pointers() -> None:
    assert type_size("ptr addrspace(3)", "e-p3:64:64") == 8
    assert type_size("ptr addrspace(3)", NVPTX_LAYOUT) == type_size("ptr addrspace(3)") == 4
    text = 'target datalayout = "e-p3:64:64"\ndefine void @k() {\n  ret void\n}\n'
    assert read(text).functions[0].datalayout == "e-p3:64:64"


# --- LLVM's own answers --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llvm() -> Any:
    import llvmlite.binding as llvm

    return llvm


@pytest.fixture(scope="module")
def nvptx(llvm: Any) -> Iterator[Any]:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    except RuntimeError:
        pytest.skip("this llvmlite has no NVPTX target")
    yield target.create_target_machine(cpu="sm_90", opt=0)


_SHARED_ACCESS = re.compile(r"\b(?:ld|st)\.shared(?:\.v(\d+))?\.[bsuf](8|16|32|64)\b")


def _shared_bytes(llvm: Any, machine: Any, ty: str, op: str) -> int:
    """Bytes the PTX LLVM emits for one ``op`` (load or store) of ``ty`` in shared memory reads
    or writes, summed over its ld.shared / st.shared (byte-aligned: no wider access to round)."""
    if op == "load":
        body = f"%v = load {ty}, ptr addrspace(3) %s, align 1\n  store {ty} %v, ptr %g, align 1"
    else:
        body = f"%v = load {ty}, ptr %g, align 1\n  store {ty} %v, ptr addrspace(3) %s, align 1"
    text = (f'target triple = "nvptx64-nvidia-cuda"\ndefine void @f(ptr addrspace(3) %s, '
            f"ptr %g) {{\n  {body}\n  ret void\n}}\n")  # fmt: skip
    mod = llvm.parse_assembly(text)
    ptx = machine.emit_assembly(mod)
    return sum(int(v or 1) * int(bits) // 8 for v, bits in _SHARED_ACCESS.findall(ptx))


@pytest.mark.parametrize("op", ["load", "store"])
def test_store_size_is_what_llvms_code_generator_touches(llvm: Any, nvptx: Any, op: str) -> None:
    got = {ty: type_size(ty) for ty in DENSE}
    truth = {ty: _shared_bytes(llvm, nvptx, ty, op) for ty in DENSE}
    assert got == truth


def test_aggregates_touch_at_most_their_store_size(llvm: Any, nvptx: Any) -> None:
    for ty in ("[4 x i1]", "[32 x i1]", "[3 x i24]", "{ i8, i32 }"):
        for op in ("load", "store"):
            assert 0 < _shared_bytes(llvm, nvptx, ty, op) <= (type_size(ty) or 0), (ty, op)


def test_alloc_size_is_llvmlites_target_data(llvm: Any) -> None:
    data = llvm.create_target_data(NVPTX_LAYOUT)
    for ty in SIZES:
        mod = llvm.parse_assembly(
            f'target datalayout = "{NVPTX_LAYOUT}"\n@x = global {ty} zeroinitializer\n'
        )
        assert alloc_size(ty) == data.get_abi_size(
            mod.get_global_variable("x").global_value_type
        ), ty


# --- through the lowering check ------------------------------------------------------------------

_HEAD = "@global_smem = external addrspace(3) global [0 x i8], align 16\n\n"


def _judge(body: str) -> Report:
    text = f'{_HEAD}define void @k() "nvvm.reqntid"="128" {{\n{body}  ret void\n}}\n'
    report = Report("k.ttgir", "test", 1024)
    check_lowering(text, "k.llir", report, 4)
    return report


def _at(offset: int) -> str:
    return f"ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 {offset})"


def test_a_packed_vector_at_a_buffers_end_is_inside() -> None:
    assert _judge(f"  %v = load <32 x i1>, {_at(1020)}, align 4\n").status == "clean"
    outside = _judge(f"  %v = load [32 x i1], {_at(1020)}, align 4\n")
    assert [f.rule for f in outside.findings] == ["lowering.outside"]


def test_a_getelementptr_steps_by_the_alloc_size() -> None:
    step = ("  %p = getelementptr i24, ptr addrspace(3) @global_smem, i32 {}\n"
            "  store i24 0, ptr addrspace(3) %p\n")  # fmt: skip
    assert _judge(step.format(255)).status == "clean"  # bytes [1020, 1023)
    assert [f.rule for f in _judge(step.format(256)).findings] == ["lowering.outside"]  # 1024


# --- the real kernel -----------------------------------------------------------------------------


def _judge_case() -> Report:
    ttgir, llir = CASE.with_suffix(".ttgir"), CASE.with_suffix(".llir")
    alloc = CASE.with_suffix(".alloc.ttgir")
    allocated = read_allocated(alloc.read_text(), alloc.name)
    run = pipeline.Run(ttgir.read_text(), ttgir.name, llir.read_text(), llir.name,
                       allocated=allocated, races=True)  # fmt: skip
    return pipeline.run(run)


def test_the_kernel_reads_vectors_of_i1_in_shared_memory() -> None:
    llir = CASE.with_suffix(".llir").read_text()
    assert re.search(r"= load <32 x i1>, ptr addrspace\(3\)", llir)


def test_the_kernel_is_clean_with_races() -> None:
    report = _judge_case()
    assert report.status == "clean" and not report.findings, [f.message for f in report.findings]


def test_the_kernel_sized_as_arrays_is_the_false_alarm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its vectors sized N x the element's bytes, as before the fix: the last thread's load
    seems to run past the 4 KiB scratch."""

    def as_array(ty: str, datalayout: str = "") -> int | None:
        m = re.fullmatch(r"<(\d+) x i(\d+)>", ty.strip())
        return int(m.group(1)) * -(-int(m.group(2)) // 8) if m else type_size(ty, datalayout)

    monkeypatch.setattr(accesses, "type_size", as_array)
    report = _judge_case()
    assert [(f.rule, f.line) for f in report.findings] == [("lowering.outside", 395)]
    assert (
        "[4092, 4124) outside its buffer scratch of ttg.convert_layout"
        in report.findings[0].message
    )
