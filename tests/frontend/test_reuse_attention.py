"""The flash-attention kernel (``benchmarks/reuse_attention.py``) compiled on the CPU for sm_90:
in mode ``planned`` one allocation holds Q, the K and V rings and O (O over the mainloop's
bytes), it saves exactly the O tile against four allocations up front, the modes compile to
the same instructions, and the plan validator proves every mode's plan clean.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

pytest.importorskip("triton")
pytest.importorskip("z3")  # the planner runs when the planned kernel compiles

from alias_spec.model.reuse import SMEM_PER_BLOCK  # noqa: E402
from alias_spec.plan import check_compiled  # noqa: E402
from benchmarks import reuse_attention as ra  # noqa: E402

STAGES = (2, 3)


@functools.cache
def _compiled(stages: int, mode: str, head_dim: int = ra.HEAD_DIM,
              block_n: int = ra.BLOCK_N) -> Any:  # fmt: skip
    return ra.compile_cpu(stages, mode, head_dim, block_n)


def _allocs(ttgir: str) -> list[str]:
    """The element type of each ``ttg.local_alloc`` (one per shared allocation)."""
    return re.findall(r"ttg\.local_alloc\b.*?!ttg\.memdesc<[0-9x]+x(\w+),", ttgir)


@pytest.mark.parametrize("stages", STAGES)
def test_planned_saves_exactly_the_o_tile(stages: int) -> None:
    sizes = ra.tile_bytes(stages)
    bars = (stages + 1) * 8
    planned = _compiled(stages, "planned").metadata.shared
    upfront = _compiled(stages, "upfront").metadata.shared
    # Q, K ring and V ring side by side, O on their bytes, the mbarriers after them.
    assert planned == sizes["q"] + sizes["k"] + sizes["v"] + bars
    assert upfront - planned == sizes["o"] == ra.BLOCK_M * ra.HEAD_DIM * 2
    assert (planned, upfront) == (ra.smem_bytes(stages, "planned"),
                                  ra.smem_bytes(stages, "upfront"))  # fmt: skip


@pytest.mark.parametrize("stages", STAGES)
def test_late_matches_planned(stages: int) -> None:
    """Measured with Triton 3.6: O allocated after the loop, Triton's allocator reuses the
    mainloop's bytes by liveness and lands on the planner's total."""
    late = _compiled(stages, "late").metadata.shared
    assert late == _compiled(stages, "planned").metadata.shared


@pytest.mark.parametrize("stages", STAGES)
def test_planned_is_one_allocation_plus_the_mbarriers(stages: int) -> None:
    assert _allocs(_compiled(stages, "planned").asm["ttgir"]) == ["i8", "i64"]
    assert sorted(_allocs(_compiled(stages, "upfront").asm["ttgir"])) == ["bf16"] * 4 + ["i64"]
    assert sorted(_allocs(_compiled(stages, "late").asm["ttgir"])) == ["bf16"] * 4 + ["i64"]


@pytest.mark.parametrize("stages", STAGES)
def test_modes_compile_to_the_same_instructions(stages: int) -> None:
    """Only addresses differ, so planned and upfront compute the same bytes on the GPU: no
    extra barriers, copies or layout shuffles (P reaches the second wgmma in registers)."""
    counts = {}
    for mode in ra.MODES:
        ptx = _compiled(stages, mode).asm["ptx"]
        ops = ("wgmma.mma_async", "wgmma.wait_group", "bar.sync", "cp.async.bulk.tensor",
               "mbarrier.try_wait", "shfl.sync", "st.shared", "ld.shared")  # fmt: skip
        counts[mode] = {op: ptx.count(op) for op in ops}
    assert counts["planned"] == counts["upfront"] == counts["late"]
    assert counts["planned"]["st.shared"] == counts["planned"]["ld.shared"] == 0
    assert _compiled(stages, "planned").asm["ttgir"].count("gpu.barrier") == 1


@pytest.mark.parametrize("mode", ra.MODES)
@pytest.mark.parametrize("stages", STAGES)
def test_plan_is_clean(stages: int, mode: str) -> None:
    report = check_compiled(_compiled(stages, mode), lowering=False)
    assert report.status == "clean", report.findings


def test_other_tile_shape() -> None:
    """Head dim 64 with 128-key blocks: the same saving, the O tile being half as big."""
    planned = _compiled(2, "planned", 64, 128)
    upfront = _compiled(2, "upfront", 64, 128)
    assert upfront.metadata.shared - planned.metadata.shared == ra.BLOCK_M * 64 * 2
    assert planned.metadata.shared == ra.smem_bytes(2, "planned", 64, 128)
    assert check_compiled(planned, lowering=False).status == "clean"


def test_the_alias_is_what_makes_deep_rings_fit() -> None:
    """Head dim 128, 128-key blocks, three stages: only the planned kernel fits a CTA."""
    assert ra.smem_bytes(3, "planned", 128, 128) <= SMEM_PER_BLOCK
    assert ra.smem_bytes(3, "upfront", 128, 128) > SMEM_PER_BLOCK
    planned = _compiled(3, "planned", 128, 128)
    assert planned.metadata.shared == ra.smem_bytes(3, "planned", 128, 128)


def test_reference_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match="multiple of 128"):
        ra.check_shape(2, 200)
    assert ra.grid(6, 512) == (4, 6)
