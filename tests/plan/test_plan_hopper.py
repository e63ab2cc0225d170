"""The Hopper model of the lowering check (``alias_spec/plan/hopper.py``): wgmma descriptors
decoded, TMA boxes sized from the TTGIR, the TMEM address slot; the Hopper corpus kernels of
every release judged with their TTGIR, and seeded mutants of them caught.

Expected verdicts are written here, not read from what the code produced. A kernel still
partial says why in ``PARTIAL`` (the reason must be the first note's)."""

from __future__ import annotations

import functools
import gzip
import json
import re
from typing import Any

import pytest
import z3

from alias_spec.plan import hopper
from alias_spec.plan.llir import check_lowering
from alias_spec.plan.plan import Report, check_plan
from tests.paths import PLAN_CASES

CORPUS = PLAN_CASES / "corpus"
RELEASES = ("3.6", "3.7", "3.8", "3.9")

# Hopper kernels proved clean on every release (TMA copies, wgmma from shared memory).
CLEAN = ("matmul_s2", "matmul_s3", "matmul_s4", "matmul_small_s3", "matmul_desc_s3",
         "gluon_tma_wgmma_s2", "gluon_tma_wgmma_s3", "gluon_tma_store", "gluon_ws_matmul",
         "persistent_matmul", "persistent_matmul_ws", "persistent_matmul_desc",
         # Floats read out of wgmma.wait_group's pass-through struct, which also carries the
         # operands' descriptors: clean because taint moves field by field.
         "attention_fwd_d64", "attention_fwd_d128",
         # Decided in about a second each: a merge's equation is asked only through the merge
         # (3.8's flat one ran out of time when every query held the whole tile arithmetic).
         "persistent_matmul_flat", "persistent_matmul_desc_split")  # fmt: skip
# Still partial, for a reason outside the Hopper model (the note that says so).
PARTIAL = {
    # A ring slot counted across the tile loop: known only by its bounds, it can leave the
    # barrier array for all the solver knows (not judged).
    "gluon_persistent_wgmma": "known only by their bounds",
}


def _load(release: str, name: str) -> dict[str, Any]:
    with gzip.open(CORPUS / release / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def _judged(release: str, name: str) -> Report:
    """The report of a corpus kernel as compiled, judged once per process: the corpus tests
    and the mutant tests' controls read it (none changes it)."""
    return _judge(_load(release, name))


def _judge(rec: dict[str, Any], llir: str | None = None) -> Report:
    a = rec["alloc"]
    report, module, _ = check_plan(rec["ttgir"], f"{rec['name']}.ttgir", None,
                                   (a["module"], a["debug"], a["version"]))  # fmt: skip
    check_lowering(llir or rec["llir"], f"{rec['name']}.llir", report, module.num_warps,
                   ttgir=module)  # fmt: skip
    return report


# --- descriptor decoding ------------------------------------------------------------------------


def _desc(addr: z3.BitVecRef, high: int) -> z3.BitVecRef:
    """A descriptor as Triton 3.6 builds it: (address >> 4) & 0x3fff in bits 0-13, the rest a
    constant ORed in."""
    return z3.ZeroExt(32, z3.LShR(addr, 4) & 0x3FFF) | high


def test_descriptor_fields_decoded() -> None:
    x = z3.BitVec("x", 32)
    # LBO 512 (<<4: 8192), SBO 64 (<<4: 1024), swizzle mode 1 (128 bytes).
    d = hopper.decode_descriptor(_desc(x, (1 << 62) | (64 << 32) | (512 << 16)))
    assert d is not None
    assert (d.lbo, d.sbo, d.swizzle, d.base_offset) == (8192, 1024, 128, 0)
    s = z3.Solver()  # the start is the address, 16-byte aligned, for any 18-bit address
    s.add(z3.ULT(x, 1 << 18), x & 15 == 0, d.start != x)
    assert s.check() == z3.unsat
    for mode, width in ((0, 0), (2, 64), (3, 32)):
        got = hopper.decode_descriptor(_desc(x, (mode << 62) | (8 << 32)))
        assert got is not None and got.swizzle == width and got.sbo == 128


def test_descriptor_with_a_variable_field_is_not_decoded() -> None:
    x, y = z3.BitVec("x", 32), z3.BitVec("y", 64)
    assert hopper.decode_descriptor(_desc(x, 1 << 62) | (y << 32)) is None  # SBO unknown
    assert hopper.decode_descriptor(z3.BitVec("d", 32)) is None  # not 64 bits
    # A field that is a constant only under a fact is decoded by the prover it is given.
    d = hopper.decode_descriptor(_desc(x, 1 << 62) | (z3.ZeroExt(32, x & 1) << 32),
                                 lambda e: 0)  # fmt: skip
    assert d is not None and d.sbo == 0


def test_operand_extent_of_canonical_layouts() -> None:
    x = z3.BitVec("x", 32)
    d = hopper.decode_descriptor(_desc(x, (1 << 62) | (64 << 32) | (512 << 16)))
    assert d is not None
    # K-major A of m64 k16 f16, 128-byte swizzle: 8 groups of 8 rows 1024 bytes apart.
    assert hopper.operand_extent(d, 64, 16, 16, False) == 7 * 1024 + 7 * 128 + 32
    # N-major B of n128 k16 f16: two 128-byte atoms 8192 apart, two 8-row groups.
    assert hopper.operand_extent(d, 128, 16, 16, True) == 8192 + 1024 + 8 * 128
    assert hopper.operand_extent(d, 60, 16, 16, False) is None  # partial row groups
    based = hopper.Descriptor(x, 0, 1024, 128, 3)
    assert hopper.operand_extent(based, 64, 16, 16, False) is None  # a base offset
    # N-major B of n16 k16 f16 (32 bytes) in 128-byte atoms: part of each atom row, two
    # 8-row groups, counted from the start's row; a width that does not divide the atom is
    # not modelled.
    assert hopper.operand_extent(d, 16, 16, 16, True) == 1024 + 8 * 128
    assert hopper.operand_extent(d, 24, 16, 16, True) is None
    lo, last = hopper._bounds(d, 1024 + 8 * 128, from_row=True)
    s = z3.Solver()
    s.add(x == 4096 + 32)  # the second 32-byte column of the atom that starts at 4096
    assert s.check() == z3.sat
    m = s.model()
    assert m.eval(lo).as_long() == 4096 and m.eval(last).as_long() == 4096 + 2047


# --- TMA boxes ----------------------------------------------------------------------------------


def test_tma_box_rule_matches_the_device_side_tensor_maps() -> None:
    """matmul_desc_s3 builds its tensor maps in the kernel: the box the rule gives each TTGIR
    op equals the box_dim constants the LLVM IR writes, and one barrier's expected bytes are
    the messages that complete on it (A: one 128x64 box; B: two 64x64 boxes)."""
    for release in RELEASES:
        rec = _load(release, "matmul_desc_s3")
        # Each box_dim write: (dimension, extent), in order; two per tensor map.
        dims = re.findall(r"box_dim\.[^\n]*?\], (0x[01]), \$1;\", \"[^\"]*\"\(ptr addrspace\(3\) "
                          r"@global_smem, i32 (\d+)", rec["llir"])  # fmt: skip
        assert [d for d, _ in dims] == ["0x0", "0x1"] * 3, release
        boxes = [(dims[i][1], dims[i + 1][1]) for i in range(0, len(dims), 2)]
        assert [(int(a), int(b)) for a, b in boxes] == [(64, 128), (64, 64), (64, 128)], release
        _, module, _ = check_plan(
            rec["ttgir"],
            "k.ttgir",
            None,
            (rec["alloc"]["module"], rec["alloc"]["debug"], rec["alloc"]["version"]),
        )
        got = {}
        for op in (o for f in module.functions for o in f.ops):
            if op.name.startswith("ttng.async_tma_copy"):
                got.setdefault(op.name, set()).add(hopper.tma_message_bytes(op, module, 2))
        assert got == {
            "ttng.async_tma_copy_global_to_local": {64 * 128 * 2, 64 * 64 * 2},
            "ttng.async_tma_copy_local_to_global": {64 * 128 * 2},
        }, release
        assert re.search(r"expect_tx\.shared(?:::cta)?\.b64 _, \[\$1\], 32768;", rec["llir"]), (
            release
        )


def test_tma_without_the_ttgir_is_partial() -> None:
    rec = _load("3.6", "gluon_tma_store")
    a = rec["alloc"]
    report, module, _ = check_plan(rec["ttgir"], "k.ttgir", None,
                                   (a["module"], a["debug"], a["version"]))  # fmt: skip
    check_lowering(rec["llir"], "k.llir", report, module.num_warps)
    assert report.status == "partial"
    # The copy's box is the TTGIR's, so is the tensor map's: both notes, neither judged.
    assert any("cp.async.bulk.tensor" in n.message for n in report.notes)
    assert any("box dimension not matched" in n.message for n in report.notes)


# --- the corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize("release,name", [(r, n) for r in RELEASES for n in CLEAN])
def test_hopper_kernel_is_proved_clean(release: str, name: str) -> None:
    report = _judged(release, name)
    assert report.status == "clean", [n.message for n in report.notes[:3]]
    assert not report.findings


@pytest.mark.parametrize("release,name", [(r, n) for r in RELEASES for n in PARTIAL])
def test_hopper_kernel_partial_for_its_named_reason(release: str, name: str) -> None:
    report = _judged(release, name)
    assert report.status == "partial", [f.message for f in report.findings]
    assert PARTIAL[name] in report.notes[0].message
    # Never for the descriptors or the boxes: those are modelled.
    assert not any("descriptor" in n.message or "not readable" in n.message
                   for n in report.notes)  # fmt: skip


# --- seeded mutants -----------------------------------------------------------------------------


def _mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_tma_box_moved_past_its_buffer_is_caught() -> None:
    """The A copy of stage 1 moved to 90112: its first bytes still lie inside ttg.shared
    (98328), its 16 KiB box does not. Only the box's size tells."""
    rec = _load("3.6", "matmul_desc_s3")
    assert _judged("3.6", "matmul_desc_s3").status == "clean"
    llir = _mutate(rec["llir"], "@global_smem, i32 16384), ptr %28,",
                   "@global_smem, i32 90112), ptr %28,")  # fmt: skip
    report = _judge(rec, llir)
    assert [f.rule for f in report.findings] == ["lowering.outside"]
    assert "box" in report.findings[0].message and report.findings[0].values["size"] == 16384


@pytest.mark.parametrize("dim,value", [(1, 256), (0, 128)])
def test_tma_box_enlarged_in_the_llvm_ir_is_not_clean(dim: int, value: int) -> None:
    """A's device-side tensor map built with a larger box in the LLVM IR than its TTGIR op
    names (64 x 128): each TMA copy then writes twice its 16 KiB buffer. The copies' bytes are
    the TTGIR's, so the box the LLVM IR writes must be shown to be that one."""
    rec = _load("3.6", "matmul_desc_s3")
    old = f'[ $0 + 0 ], 0x{dim:x}, $1;", "l,r,b"(ptr addrspace(3) @global_smem, i32 '
    first = rec["llir"].index(old) + len(old)  # A's tensor map is built first
    end = rec["llir"].index(",", first)
    llir = rec["llir"][:first] + str(value) + rec["llir"][end:]
    report = _judge(rec, llir)
    assert report.status != "clean"
    assert any(f"box dimension {dim} is {value} in the LLVM IR" in n.message
               for n in report.notes), [n.message for n in report.notes[:3]]  # fmt: skip


def test_wgmma_descriptor_past_its_operand_is_not_clean() -> None:
    """B's descriptor start advanced by 64 KiB (its address field + 4096): past ttg.shared. The
    address depends on the loop's stage index (no witness is exact): a note naming B."""
    rec = _load("3.6", "matmul_desc_s3")
    llir = _mutate(rec["llir"], "%221 = and i32 %220, 16383,",
                   "%moved = add i32 %220, 4096\n  %221 = and i32 %moved, 16383,")  # fmt: skip
    report = _judge(rec, llir)
    assert report.status == "partial"
    assert "wgmma operand B" in report.notes[0].message


@pytest.mark.parametrize("step,role", [(64, "last"), (512, "first")])
def test_attention_wgmma_operand_moved_past_its_buffer_is_caught(step: int, role: str) -> None:
    """Q, the first wgmma's A operand, is the last buffer below ttg.shared (65536): its
    descriptor start advanced by 1 KiB keeps the first byte inside and the last 8-row group
    past the end; by 8 KiB the first byte too. Its address is exact: a finding, never clean,
    against Q's own buffer [49152, 65536)."""
    rec = _load("3.6", "attention_fwd_d64")
    assert _judged("3.6", "attention_fwd_d64").status == "clean"
    llir = _mutate(rec["llir"], "%205 = and i32 %204, 16383,",
                   f"%moved = add i32 %204, {step}\n  %205 = and i32 %moved, 16383,")  # fmt: skip
    report = _judge(rec, llir)
    assert [f.rule for f in report.findings] == ["lowering.outside"]
    assert f"wgmma operand A ({role} byte)" in report.findings[0].message
    assert report.findings[0].values["range"] == [49152, 65536]
    assert "outside its buffer %q_31 (ttg.local_alloc)" in report.findings[0].message


def test_attention_wgmma_operand_moved_onto_another_buffer_is_caught() -> None:
    """Q's descriptor moved back by 8 KiB, onto V's stages [24576, 49152): still inside
    ttg.shared, so only judging the operand against its own buffer (the TTGIR dot's operand,
    matched by location) tells."""
    rec = _load("3.6", "attention_fwd_d64")
    llir = _mutate(rec["llir"], "%205 = and i32 %204, 16383,",
                   "%moved = add i32 %204, -512\n  %205 = and i32 %moved, 16383,")  # fmt: skip
    report = _judge(rec, llir)
    assert [f.rule for f in report.findings] == ["lowering.outside"]
    f = report.findings[0]
    assert "wgmma operand A (first byte)" in f.message and f.values["range"] == [49152, 65536]
    assert f.values["address"] < 49152


def test_attention_wgmma_b_descriptor_moved_is_not_clean() -> None:
    """K, the first wgmma's B operand, advanced by 64 KiB: its stage index is loop-carried, so
    no witness is exact, but the verdict is a note naming B, never clean."""
    rec = _load("3.6", "attention_fwd_d64")
    llir = _mutate(rec["llir"], "%209 = and i32 %208, 16383,",
                   "%moved = add i32 %208, 4096\n  %209 = and i32 %moved, 16383,")  # fmt: skip
    report = _judge(rec, llir)
    assert report.status != "clean"
    assert report.findings or "wgmma operand B" in report.notes[0].message


@pytest.mark.parametrize("offset", [122880, 114688])
def test_persistent_matmul_tma_box_moved_past_its_buffer_is_caught(offset: int) -> None:
    """The stage-1 A copy of persistent_matmul_desc (its buffer %x: [0, 49152)) moved from
    16384 to 122880 (its box ends past ttg.shared, 131096) or to 114688 (onto the epilogue's
    tile at 98304, inside ttg.shared: only the copy's own buffer, its TTGIR op's destination
    matched by location, tells). The witness is asked of every constraint of the function;
    where that runs out of time (a loaded machine) the verdict is a note naming the copy,
    never clean."""
    rec = _load("3.6", "persistent_matmul_desc")
    assert _judged("3.6", "persistent_matmul_desc").status == "clean"
    llir = _mutate(rec["llir"], "@global_smem, i32 16384), ptr %28,",
                   f"@global_smem, i32 {offset}), ptr %28,")  # fmt: skip
    report = _judge(rec, llir)
    assert report.status != "clean"
    if report.findings:
        assert [f.rule for f in report.findings] == ["lowering.outside"]
        f = report.findings[0]
        assert "box" in f.message and "outside its buffer %x (ttg.local_alloc)" in f.message
        assert (f.values["size"], f.values["address"], f.values["range"]) == (
            16384,
            offset,
            [0, 49152],
        )
    else:
        assert "cp.async.bulk.tensor" in report.notes[0].message


def test_tma_store_source_moved_onto_another_buffer_is_caught() -> None:
    """gluon_tma_store's store reads its 8 KiB box from the %out_s ring [0, 16384); its slot
    replaced by 16384 reads %in_s instead: inside ttg.shared (24584), outside its own buffer
    (the TTGIR store's source, matched by location)."""
    rec = _load("3.6", "gluon_tma_store")
    llir = _mutate(rec["llir"], "%65 = and i32 %64, 4096,", "%65 = add i32 0, 8192,")
    report = _judge(rec, llir)
    assert [f.rule for f in report.findings] == ["lowering.outside"]
    f = report.findings[0]
    assert "outside its buffer %out_s (ttg.local_alloc)" in f.message
    assert (f.values["address"], f.values["size"], f.values["range"]) == (16384, 8192, [0, 16384])


# One wgmma outside any loop: A (K-major, m64 k16 f16, 128-byte swizzle, SBO 1024) reads
# 8192 bytes from A_OFF; B (n8) 1024 bytes from 8192. ttg.shared is 16384.
_WGMMA_LLIR = """\
@global_smem = external addrspace(3) global [0 x i8], align 16

define void @k(float %f) "nvvm.reqntid"="128" {
  %a0 = ptrtoint ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 A_OFF) \
to i32
  %a1 = lshr i32 %a0, 4
  %a2 = and i32 %a1, 16383
  %a3 = zext i32 %a2 to i64
  %a = or disjoint i64 %a3, 4611686293305294848
  %b0 = ptrtoint ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 8192) \
to i32
  %b1 = lshr i32 %b0, 4
  %b2 = and i32 %b1, 16383
  %b3 = zext i32 %b2 to i64
  %b = or disjoint i64 %b3, 4611686293305294848
  %r = tail call { float, float, float, float } asm sideeffect "wgmma.mma_async.sync.aligned.\
m64n8k16.f32.f16.f16 {$0,$1,$2,$3}, $8, $9, 1, 1, 1, 0, 0;", "=f,=f,=f,=f,0,1,2,3,l,l"(float %f, \
float %f, float %f, float %f, i64 %a, i64 %b)
  ret void
}
"""


@pytest.mark.parametrize("a_off,want", [(0, "clean"), (128, "clean"), (8192 + 1024, "findings"),
                                        (12288, "findings")])  # fmt: skip
def test_wgmma_operand_extent_judged(a_off: int, want: str) -> None:
    """A at 0 or 128 (a k step inside the 128-byte row) lies in [0, 16384); at 9216 or 12288
    its last 8-row group ends past it: a finding (the first byte alone would pass)."""
    report = Report("k.ttgir", "test", 16384)
    check_lowering(_WGMMA_LLIR.replace("A_OFF", str(a_off)), "k.llir", report, 4)
    assert report.status == want, ([f.message for f in report.findings], report.notes)
    assert report.lowering == "4 shared accesses checked"
    if want == "findings":
        assert "wgmma operand A (last byte)" in report.findings[0].message


def test_wgmma_descriptor_with_an_unknown_stride_is_partial() -> None:
    rec = _load("3.6", "matmul_desc_s3")
    llir = _mutate(rec["llir"], "%224 = or disjoint i64 %222, 4611686293338849280,",
                   "%sbo = shl i64 %218, 32\n  %224 = or disjoint i64 %222, %sbo,")  # fmt: skip
    report = _judge(rec, llir)
    assert report.status == "partial"
    assert any("descriptor has fields that are not constants" in n.message for n in report.notes)


# --- tensor memory ------------------------------------------------------------------------------

_TMEM_LLIR = """\
@global_smem = external addrspace(3) global [0 x i8], align 16

define void @k() "nvvm.reqntid"="128" {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = icmp ult i32 %1, 32
  tail call void asm sideeffect "@$0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 \
[$1], 128;", "b,r"(i1 %2, ptr addrspace(3) @global_smem)
  %3 = load i32, ptr addrspace(3) @global_smem, align 16
  %4 = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 OFF)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
"""


def test_tmem_slot_is_not_a_false_alarm_and_past_it_is_caught() -> None:
    """A kernel whose only shared bytes are the TMEM address slot (ttg.shared 0, as 3.6's
    allocation gives for a TMEM-only kernel): the slot's write and read are judged inside the
    4 bytes Triton reserves; a read past them is a finding."""
    for off, want in ((0, "clean"), (4, "findings")):
        report = Report("k.ttgir", "test", 0)
        check_lowering(_TMEM_LLIR.replace("OFF", str(off)), "k.llir", report, 4)
        assert report.status == want, (off, report.findings, report.notes)
        assert report.lowering == "3 shared accesses checked"
