"""``tle.gpu.alloc_reuse`` compiled on the CPU for sm_90: one allocation holds the planned
buffers (the payoff kernel's C tile over its rings), the plan validator proves the compiled
kernel's plan clean, and a declaration that cannot be planned is a compile error at the
kernel's line naming what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("triton")
from triton.compiler.errors import CompilationError  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402
from alias_spec.frontend.compile import compile_for  # noqa: E402
from alias_spec.model.reuse import MAX_BUFFERS, MAX_PHASES, MAX_USES, SMEM_PER_BLOCK  # noqa: E402
from benchmarks import reuse_matmul as rm  # noqa: E402

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
    "build,problem",
    [
        (lambda: _plan(uses={"a": "one", "b": "tow"}, phases=["one", "two"]),
         "uses.b: unknown phase \"tow\""),
        (lambda: _plan(uses={"a": "one"}, phases=["one"]), "uses.b: missing"),
        (lambda: _plan(groups=tle.gpu.shared("a", "c")), 'groups: unknown buffer "c"'),
        (lambda: tle.gpu.reuse_plan([tle.gpu.buffer("a", [64], gl.float32, "swizzled")],
                                    uses={"a": "x"}, phases=["x"]),
         "buffers.a.layout must be a Gluon shared layout"),

        (lambda: _plan(uses={"a": "p0", "b": "p0"},
                       phases=[f"p{i}" for i in range(MAX_PHASES + 1)]),
         f"phases: at most {MAX_PHASES} phases, got {MAX_PHASES + 1}"),
        (lambda: _plan(uses={"a": ["x"] * MAX_USES, "b": "x"}, phases=["x"]),
         f"uses: at most {MAX_USES} (buffer, phase) uses in all"),
        (lambda: tle.gpu.reuse_plan([tle.gpu.buffer(f"b{i}", [64], gl.float32)
                                     for i in range(MAX_BUFFERS + 1)],
                                    uses={f"b{i}": "x" for i in range(MAX_BUFFERS + 1)},
                                    phases=["x"]),
         f"buffers: at most {MAX_BUFFERS} buffers, got {MAX_BUFFERS + 1}"),
    ],
)  # fmt: skip
def test_bad_declarations_fail_where_the_plan_is_built(build: Any, problem: str) -> None:
    """Before, an unknown buffer or phase was accepted until the kernel compiled."""
    with pytest.raises(TLEError) as exc:
        build()
    assert str(exc.value) == f"tle.gpu.reuse_plan: {problem}" or str(exc.value).startswith(
        f"tle.gpu.reuse_plan: {problem}"
    ), str(exc.value)


@pytest.mark.parametrize(
    "plan,problem",
    [
        (_plan(uses={"a": "x", "b": "x"}, phases=["x"], capacity=10000),
         "capacity: the buffers in use together need at least 16384 bytes"),
        ("not a plan", "plan must be a tle.gpu.reuse_plan"),
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


# --- any declaration gets a plan or one TLEError ------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from alias_spec.frontend.tle.args import TLEError  # noqa: E402
from alias_spec.frontend.tle.reuse import declarations, placement  # noqa: E402

JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), st.text(max_size=4),
                 st.sampled_from(["a", "b", "one", "two", gl.float16, gl.int1, LAYOUT]),
                 st.lists(st.integers(-2, 130), max_size=3))  # fmt: skip
NAMES = st.one_of(st.sampled_from(["a", "b", "c"]), JUNK)
KEYS = st.one_of(st.sampled_from(["a", "b", "c"]), st.none(), st.integers(), st.text(max_size=3))
BUFFER = st.builds(
    tle.gpu.buffer, NAMES, st.one_of(st.lists(st.sampled_from([1, 16, 64]), min_size=1,
                                              max_size=3), JUNK),
    st.one_of(st.sampled_from([gl.float16, gl.int8, gl.float32]), JUNK),
    st.one_of(st.none(), st.just(LAYOUT), JUNK),
)  # fmt: skip
GROUPS = st.recursive(NAMES, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda m: tle.gpu.shared(*m)),
    st.lists(inner, max_size=3).map(lambda m: tle.gpu.distinct(*m))), max_leaves=6)  # fmt: skip
VALID_BUFFERS = st.lists(
    st.builds(tle.gpu.buffer, st.sampled_from(["a", "b", "c"]),
              st.lists(st.sampled_from([1, 16, 64]), min_size=1, max_size=3),
              st.sampled_from([gl.float16, gl.int8, gl.float32]),
              st.sampled_from([None, LAYOUT])),
    min_size=1, max_size=3, unique_by=lambda b: b.name)  # fmt: skip


@st.composite
def valid_plans(draw: st.DrawFn) -> tle.gpu.reuse_plan:
    """Declarations that mostly plan: each buffer in one or both phases, or a group tree."""
    bufs = draw(VALID_BUFFERS)
    names = [b.name for b in bufs]
    if draw(st.booleans()):
        uses = {n: draw(st.sampled_from(["one", "two", ["one", "two"]])) for n in names}
        return tle.gpu.reuse_plan(bufs, uses=uses, phases=["one", "two"])
    kind = draw(st.sampled_from([tle.gpu.shared, tle.gpu.distinct]))
    return tle.gpu.reuse_plan(bufs, groups=kind(*names))


def _build(*args: Any) -> tle.gpu.reuse_plan | TLEError:
    """The plan, or the one error its constructor raises."""
    try:
        return tle.gpu.reuse_plan(*args)
    except TLEError as exc:
        return exc


PLANS = st.one_of(valid_plans(), st.builds(
    _build,
    st.one_of(st.lists(st.one_of(BUFFER, JUNK), max_size=3), JUNK),
    st.one_of(st.none(), st.dictionaries(KEYS, st.one_of(NAMES, st.lists(NAMES, max_size=2)),
                                         max_size=3), JUNK),
    st.one_of(st.none(), st.lists(st.sampled_from(["one", "two"]), max_size=2), JUNK),
    st.one_of(st.none(), GROUPS),
    st.one_of(st.just(SMEM_PER_BLOCK), JUNK),
))  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(plan=PLANS)
def test_any_declaration_gets_a_plan_or_one_error(plan: tle.gpu.reuse_plan | TLEError) -> None:
    if isinstance(plan, TLEError):
        text = str(plan)
        assert text.startswith("tle.gpu.reuse_plan: ") and "\n" not in text, text
        return
    try:
        d, _ = declarations(plan)
        p = placement(d)
    except TLEError as exc:
        text = str(exc)
        assert text.startswith("tle.gpu.alloc_reuse: ") and "\n" not in text, text
        return
    from alias_spec.model import reuse

    assert reuse.verify(d, dict(p.offsets), p.total) == []


def test_views_are_judged_under_safe_whatever_the_profile(monkeypatch) -> None:
    """A placement the planner would never make (an NVMMA tile 128 bytes past its swizzle
    repeat: element-aligned, so FlagTree's rules pass it) is refused by the safe rules even when
    TLE_ALIAS_PROFILE asks for flagtree: the planner's guarantee is validity under safe."""
    from alias_spec.frontend.tle import reuse as frontend_reuse
    from alias_spec.model import reuse

    tile = gl.NVMMASharedLayout.get_default_for([64, 64], gl.float16)
    plan = tle.gpu.reuse_plan([tle.gpu.buffer("a", [64, 64], gl.float16, tile),
                               tle.gpu.buffer("b", [64, 64], gl.float16, tile)],
                              uses={"a": "one", "b": "two"}, phases=["one", "two"])  # fmt: skip
    wrong = reuse.Placement((("a", 0), ("b", 1024 + 128)), 16384, 8192, False)
    monkeypatch.setattr(frontend_reuse, "placement", lambda d: wrong)
    monkeypatch.setenv("TLE_ALIAS_PROFILE", "flagtree")
    with pytest.raises(CompilationError, match="alias.base.aligned"):
        _compile(plan)
