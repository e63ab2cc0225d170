"""``tle.gpu.alloc_reuse`` compiled on the CPU for sm_90: one allocation holds the planned
buffers (the payoff kernel's C tile over its rings), the plan validator proves the compiled
kernel's plan clean, and a declaration that cannot be planned is a compile error at the
kernel's line naming what is wrong.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton")
from triton.compiler.errors import CompilationError  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402
from alias_spec.frontend.compile import compile_for  # noqa: E402
from alias_spec.model.reuse import SMEM_PER_BLOCK  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import reuse_matmul as rm  # noqa: E402

LAYOUT = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])


@gluon.jit
def two_buffers(out_ptr, PLAN: gl.constexpr):
    a, b = tle.gpu.alloc_reuse(PLAN)
    lay: gl.constexpr = gl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0])
    a.store(gl.full([64, 32], 1.0, gl.float32, lay))
    gl.thread_barrier()
    b.store(gl.full([64, 32], 2.0, gl.float32, lay))
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, lay))
    cols = gl.arange(0, 32, layout=gl.SliceLayout(0, lay))
    gl.store(out_ptr + rows[:, None] * 32 + cols[None, :], b.load(lay))


def _plan(**kw) -> tle.gpu.reuse_plan:
    bufs = [tle.gpu.buffer("a", [64, 32], gl.float32, LAYOUT),
            tle.gpu.buffer("b", [64, 32], gl.float32, LAYOUT)]  # fmt: skip
    return tle.gpu.reuse_plan(bufs, **kw)


def _compile(plan: object):
    return compile_for(two_buffers, {"out_ptr": "*fp32"}, {"PLAN": plan})


def test_buffers_in_different_phases_share_bytes() -> None:
    k = _compile(_plan(uses={"a": "one", "b": "two"}, phases=["one", "two"]))
    assert k.metadata.shared == 64 * 32 * 4
    assert len(re.findall(r"ttg\.local_alloc", k.asm["ttgir"])) == 1


def test_buffers_in_one_phase_do_not() -> None:
    k = _compile(_plan(uses={"a": "one", "b": ["one", "two"]}, phases=["one", "two"]))
    assert k.metadata.shared == 2 * 64 * 32 * 4


def test_groups_declare_the_same() -> None:
    shared = _compile(_plan(groups=tle.gpu.shared("a", "b")))
    distinct = _compile(_plan(groups=tle.gpu.distinct("a", "b")))
    assert (shared.metadata.shared, distinct.metadata.shared) == (8192, 16384)


@pytest.mark.parametrize(
    "plan,problem",
    [
        (_plan(uses={"a": "one", "b": "tow"}, phases=["one", "two"]),
         "uses.b: unknown phase \"tow\""),
        (_plan(uses={"a": "one"}, phases=["one"]), "uses.b: missing"),
        (_plan(uses={"a": "x", "b": "x"}, phases=["x"], capacity=10000),
         "capacity: the buffers in use together need at least 16384 bytes"),
        (_plan(groups=tle.gpu.shared("a", "c")), 'groups: unknown buffer "c"'),
        ("not a plan", "plan must be a tle.gpu.reuse_plan"),
        (tle.gpu.reuse_plan([tle.gpu.buffer("a", [64], gl.float32, "swizzled")], uses={"a": "x"},
                            phases=["x"]), "buffers.a.layout must be a Gluon shared layout"),
    ],
)  # fmt: skip
def test_bad_declarations_fail_at_the_kernel_line(plan: object, problem: str) -> None:
    with pytest.raises(CompilationError) as exc:
        _compile(plan)
    text = str(exc.value)
    line = two_buffers.src.splitlines().index("    a, b = tle.gpu.alloc_reuse(PLAN)") + 1
    assert f"at {line}:" in text.splitlines()[0], text
    assert f"tle.gpu.alloc_reuse: {problem}" in text, text


@pytest.mark.parametrize("stages", [3, 7])
def test_payoff_kernel_places_c_over_the_ring(stages: int) -> None:
    """The planned kernel allocates the rings and C in max(ring, C) bytes, where three
    allocations need their sum (and seven stages do not fit at all without the alias)."""
    from alias_spec.plan import check_compiled

    planned = rm.compile_cpu(stages, "planned")
    ring = stages * (rm.BM * rm.BK + rm.BK * rm.BN) * 2
    assert planned.metadata.shared == ring + stages * 8  # the mbarriers follow the ring
    assert rm.smem_bytes(stages, "upfront") - rm.smem_bytes(stages, "planned") == rm.BM * rm.BN * 2
    assert (rm.smem_bytes(stages, "upfront") <= SMEM_PER_BLOCK) == (stages < 7)
    report = check_compiled(planned, lowering=False)
    assert report.status == "clean", report.findings
