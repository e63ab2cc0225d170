"""The frontend under bad input: every argument value gets a TLEError naming the argument or a
judged request, the fix search stays bounded, and the frontend installs without the spec's
solvers.

Three levels: the pure-Python verdict and fix search (``tle.fixes``, ``tle.place``), the
argument checks (``tle.gpu.check_arguments``, Triton needed, nothing compiled) and real
compiles for sm_90 on the CPU. Blow-ups run in a subprocess under a timeout, so a hang fails.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from alias_spec.frontend.tle import fixes
from alias_spec.frontend.tle.args import TLEError
from alias_spec.frontend.tle.place import SMEM, TMEM, LayoutInfo, Place, SourceView, alias_facts
from alias_spec.generated import alias_checks, recipes
from alias_spec.model.facts import INT32_MAX, elem_bytes
from tests.paths import ROOT

PROFILES = ("flagtree", "safe")
TIMEOUT = 120  # seconds: far beyond the fix search's need, far below a hang's

# --------------------------------------------------------------------------------------------
# Pure Python: the verdict and the fix search.


@st.composite
def sources(draw, max_dim: int = 4, max_rank: int = 3) -> SourceView:
    """A tle buffer or a view of it (index/slice position folded into offsets)."""
    rank = draw(st.integers(1, max_rank))
    block = tuple(draw(st.integers(1, max_dim)) for _ in range(rank))
    lead = draw(st.integers(0, rank - 1))
    shape, offsets = [], []
    for i, b in enumerate(block):
        size = 1 if i < lead else draw(st.integers(1, b))
        offsets.append(draw(st.integers(0, b - size)))
        if i >= lead:
            shape.append(size)
    bits = draw(st.sampled_from([8, 16, 32, 64]))
    eb = elem_bytes(bits)
    kind = draw(st.sampled_from(["swizzled", "nvmma"]))
    layout = LayoutInfo(kind, rank, swizzle_bytes=128 if kind == "nvmma" else 0, bits=bits)
    base = eb * draw(st.integers(0, 64))
    align = draw(st.sampled_from([eb, 16, 128, 1024]))
    place = Place(base, max(align, eb), block, tuple(offsets), layout, eb)
    sub = tuple(shape) != block
    return SourceView(True, SMEM, True, bits, tuple(shape), place, sub, block, rank)


@st.composite
def results(draw) -> tuple[list[int], int, LayoutInfo]:
    # Mostly powers of 2: other dims fail the recipes' shape conditions whatever the offset.
    dim = st.one_of(st.sampled_from([1, 2, 4, 8]), st.integers(1, 8))
    shape = draw(st.lists(dim, min_size=1, max_size=2))
    bits = draw(st.sampled_from([8, 16, 32, 64]))
    swizzle = draw(st.sampled_from([0, 32, 64, 128]))
    kind = "nvmma" if swizzle else "swizzled"
    return shape, bits, LayoutInfo(kind, len(shape), swizzle_bytes=swizzle, bits=bits)


def _valid(facts: dict, profile: str, c: int, lowering_too: bool) -> bool:
    """The contract of a fix: no offset rule of the profile fires (and the installed Triton
    has a recipe for it)."""
    trial = dict(facts, off=c, gran=c & -c)
    if any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile)):
        return False
    return not lowering_too or (not recipes.unsupported(trial) and recipes.choose(trial))


def _src_bytes(src: SourceView) -> int:
    n = 1
    for d in src.shape:
        n *= d
    return n * elem_bytes(src.bits)


DENSE = SourceView(
    True,
    SMEM,
    True,
    16,
    (64, 64),
    Place(0, 16, (64, 64), (0, 0), LayoutInfo("swizzled", 2), 2),
    False,
    (64, 64),
    2,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(DENSE, ([8], 16, LayoutInfo("swizzled", 1)), 100, "flagtree", 306)
@example(DENSE, ([8, 8], 16, LayoutInfo("swizzled", 2)), 3000, "safe", 309)
@given(
    sources(),
    results(),
    st.integers(-64, 600),
    st.sampled_from(PROFILES),
    st.sampled_from([None, 306, 308, 309]),
)
def test_offset_fix_is_the_nearest_valid_offset(src, res, off, profile, tv) -> None:
    """The bounded search answers what enumerating every offset of the source answers."""
    from alias_spec.frontend.tle.place import PlaceError, recipe_facts

    shape, bits, layout = res
    try:
        facts = alias_facts(src, SMEM, False, shape, bits, layout, off)
        if tv is not None:
            facts.update(recipe_facts(src, shape, layout, max(off, 0), tv))
    except PlaceError:
        return
    fix = fixes.nearest_offset(facts, profile, lowering_too=tv is not None)
    want = [c for c in range(_src_bytes(src) + 1) if _valid(facts, profile, c, tv is not None)]
    best = min(want, key=lambda c: (abs(c - off), c)) if want else None
    assert fix.complete
    assert fix.offset == best


@settings(max_examples=100, deadline=None)
@given(sources(), results(), st.integers(0, 300), st.sampled_from(PROFILES))
def test_size_fix_is_the_largest_valid_leading_dim(src, res, off, profile) -> None:
    from alias_spec.frontend.tle.place import PlaceError

    shape, bits, layout = res
    shape = [shape[0] * 8, *shape[1:]]
    try:
        facts = alias_facts(src, SMEM, False, shape, bits, layout, off)
    except PlaceError:
        return
    rest = 1
    for d in shape[1:]:
        rest *= d

    def fits(d0: int) -> bool:
        trial = dict(facts, res_elems=d0 * rest)
        return not any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile))

    want = next((d0 for d0 in range(shape[0] - 1, 0, -1) if fits(d0)), None)
    assert fixes.nearest_d0(facts, profile, shape) == want


# Any Python value a user might pass where the alias rules judge it.
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**31 - 8, max_value=2**80),
    st.integers(min_value=-(2**80), max_value=-1),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
    st.builds(object),
)
DIMS = st.lists(
    st.one_of(st.integers(-4, 64), st.integers(2**20, 2**90), st.integers(-(2**70), -1)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(sources(max_dim=6, max_rank=4), st.just(SourceView(False))),
    DIMS,
    st.sampled_from([1, 8, 16, 32, 64]),
    st.one_of(JUNK, st.integers(-64, 2048)),
    st.sampled_from(PROFILES),
    st.sampled_from([306, 308, 309]),
    st.sampled_from([SMEM, TMEM]),
    st.booleans(),
)
def test_any_alias_call_is_judged_or_rejected_with_a_fix(
    src, shape, bits, off, profile, tv, scope, init
) -> None:
    layout = LayoutInfo("swizzled", len(shape))
    try:
        rfacts = fixes.judge(src, scope, init, shape, bits, layout, off, profile, tv, "3.x")
    except TLEError as exc:
        text = str(exc)
        assert exc.rules and all("fix:" in line for line in text.splitlines()[1:] if "[" in line)
        return
    # Accepted: every rule of the profile holds for exactly what the call asked.
    assert alias_checks.check(rfacts, profile) == []
    assert rfacts["off"] == off and src.buffered and scope == SMEM and not init
    assert 0 <= off <= _src_bytes(src) and all(d >= 0 for d in shape)


# --------------------------------------------------------------------------------------------
# Blow-ups: each must finish (in a subprocess, under a timeout) with the right answer.


def _run(code: str) -> str:
    """Run ``code`` as a script (Gluon kernels need a source file) under TIMEOUT."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "case.py"
        script.write_text(textwrap.dedent(code))
        try:
            run = subprocess.run(
                [sys.executable, str(script)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"did not finish within {TIMEOUT} s")
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


PURE_SETUP = """
from alias_spec.frontend.tle import fixes
from alias_spec.frontend.tle.place import SMEM, LayoutInfo, Place, SourceView, alias_facts

def source(block, shape, offsets, bits):
    eb = (bits + 7) // 8
    lay = LayoutInfo("swizzled", len(block))
    place = Place(0, 16, tuple(block), tuple(offsets), lay, eb)
    sub = tuple(shape) != tuple(block)
    return SourceView(True, SMEM, True, bits, tuple(shape), place, sub, tuple(block), len(block))
"""


def test_negative_offset_on_a_large_source_is_fixed_quickly() -> None:
    # 1 GiB of int8 source, an fp16 result at -2: the nearest valid offset is 0.
    out = _run(
        PURE_SETUP
        + """
src = source([32768, 32768], [32768, 32768], [0, 0], 8)
for off in (-2, -(2**40)):
    facts = alias_facts(src, SMEM, False, [64, 64], 16, LayoutInfo("swizzled", 2), off)
    print(fixes.reject(facts, "safe", fixes.alias_checks.check(facts, "safe"), [64, 64], ()))
"""
    )
    assert out.count("fix: alias_offset_bytes=0") >= 2, out


def test_offset_far_past_a_source_of_many_runs_is_fixed_quickly() -> None:
    # Columns 0..31 of a [2**20, 64] fp16 block: 2**20 runs of 64 bytes, 128 bytes apart. The
    # range rule allows offsets up to src_bytes - 64; the last run start below that is valid.
    rows = 2**20
    out = _run(
        PURE_SETUP
        + f"""
src = source([{rows}, 64], [{rows}, 32], [0, 0], 16)
facts = alias_facts(src, SMEM, False, [32], 16, LayoutInfo("swizzled", 1), 2**40)
print(fixes.nearest_offset(facts, "safe").offset)
facts = alias_facts(src, SMEM, False, [32], 16, LayoutInfo("swizzled", 1), 1000 * 128 + 40)
print(fixes.nearest_offset(facts, "safe").offset)
"""
    )
    hi = rows * 64 - 64  # alias.range.fits: at most src_bytes - res_bytes
    # Far past the end: the last run start the range allows; inside: the nearer run start.
    assert [int(x) for x in out.split()] == [hi // 128 * 128, 1000 * 128], out


def test_huge_row_count_gets_a_size_fix_quickly() -> None:
    out = _run(
        PURE_SETUP
        + """
src = source([64, 64], [64, 64], [0, 0], 16)
for off in (0, 4096):
    shape = [2**40, 64]
    facts = alias_facts(src, SMEM, False, shape, 16, LayoutInfo("swizzled", 2), off)
    print(fixes.nearest_d0(facts, "safe", shape))
"""
    )
    # 8192 source bytes, 128-byte rows: 64 rows fit at offset 0, 32 at offset 4096.
    assert [int(x) for x in out.split()] == [8192 // 128, (8192 - 4096) // 128], out


# --------------------------------------------------------------------------------------------
# Argument checks (Triton needed, nothing compiled) and real compiles for sm_90.

triton = pytest.importorskip("triton")

from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.language._layouts import SharedLayout  # noqa: E402

from alias_spec.frontend.tle import gpu  # noqa: E402

ARGS = (
    "shape",
    "dtype",
    "layout",
    "scope",
    "init_value",
    "alias",
    "alias_offset_bytes",
    "nv_mma_shared_layout",
)
GLUON_VALUES = st.sampled_from(
    [
        gl.float16,
        gl.int8,
        gl.int1,
        gl.void,
        gl.pointer_type(gl.float16),
        gl.NVMMASharedLayout(128, 16, 2),
        gl.NVMMASharedLayout(64, 16, 3),
        gl.SwizzledSharedLayout(1, 1, 1, [0]),
        gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
        gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
        gpu.smem,
        gpu.tmem,
        gpu.scope("share_memory", 7),
        "smem",
        gl.constexpr(3),
        gl.constexpr(None),
        gl.constexpr([64, 64]),
    ]
)
ANY = st.one_of(JUNK, GLUON_VALUES, st.lists(st.one_of(JUNK, GLUON_VALUES), max_size=3))


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(ARGS), ANY, st.booleans())
def test_any_argument_value_is_accepted_soundly_or_named(arg, value, tmem) -> None:
    """One argument of a good call replaced by any value: a TLEError naming that argument, or
    arguments that are what they must be."""
    call = dict(shape=[64, 64], dtype=gl.float16, scope=gpu.tmem if tmem else gpu.smem)
    call[arg] = value
    try:
        a = gpu.check_arguments(**call)
    except TLEError as exc:
        assert str(exc).startswith(f"tle.gpu.alloc: {arg}"), (arg, str(exc))
        return
    assert a.shape and all(type(d) is int for d in a.shape)
    assert type(a.dtype) is gl.dtype and a.dtype.primitive_bitwidth >= 1
    assert a.scope.code in (SMEM, TMEM) and type(a.nv_mma) is bool
    if a.scope.code == SMEM:
        assert a.layout is None or isinstance(a.layout, SharedLayout)
    if a.alias is None:  # a new buffer: every value is final here
        assert all(d > 0 for d in a.shape) and type(a.offset) is int and a.offset == 0
        nbytes = elem_bytes(a.dtype.primitive_bitwidth)
        for d in a.shape:
            nbytes *= d
        assert nbytes <= INT32_MAX
        assert a.init_value is None or isinstance(a.init_value, (bool, int, float, gl.tensor))


from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.errors import CompilationError  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402


# fmt: off
@gluon.jit
def bad_kernel(CASE: gl.constexpr):
    P2: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    src = tle.gpu.alloc([64, 64], gl.float16, layout=P2)
    if CASE == "shape":
        tle.gpu.alloc([64, 64.0], gl.float16, layout=P2)
    elif CASE == "dtype":
        tle.gpu.alloc([64, 64], "fp16", layout=P2)
    elif CASE == "layout":
        tle.gpu.alloc([64, 64], gl.float16, layout=gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]))
    elif CASE == "scope":
        tle.gpu.alloc([64, 64], gl.float16, scope="smem")
    elif CASE == "init_value":
        tle.gpu.alloc([64, 64], gl.int8, layout=P2, init_value=1000)
    elif CASE == "alias_offset_bytes":
        tle.gpu.alloc([64, 64], gl.float16, layout=P2, alias=src, alias_offset_bytes=1.5)
    elif CASE == "nv_mma_shared_layout":
        tle.gpu.alloc([64, 64], gl.float16, nv_mma_shared_layout="yes")
    elif CASE == "alias":
        tle.gpu.alloc([64, 64], gl.float16, layout=P2, alias=3)
# fmt: on


@pytest.mark.parametrize(
    ("case", "named"),
    [
        ("shape", "shape[1]"),
        ("dtype", "dtype"),
        ("layout", "layout"),
        ("scope", "scope"),
        ("init_value", "init_value"),
        ("alias_offset_bytes", "alias_offset_bytes"),
        ("nv_mma_shared_layout", "nv_mma_shared_layout"),
        ("alias", "alias"),
    ],
)
def test_bad_argument_is_a_compile_error_naming_it(case: str, named: str) -> None:
    src = GluonASTSource(bad_kernel, signature={"CASE": "constexpr"}, constexprs={"CASE": case})
    with pytest.raises(CompilationError) as info:
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    text = str(info.value)
    assert "tle.gpu.alloc" in text and named in text.split("tle.gpu.alloc", 1)[1], text
    assert "Traceback" not in text


COMPILE_SETUP = """
import os, tempfile
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler.errors import CompilationError
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from alias_spec.frontend import tle

@gluon.jit
def k(CASE: gl.constexpr):
    P2: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    if CASE == 0:
        src = tle.gpu.alloc([64, 64], gl.float16, layout=P2)
        tle.gpu.alloc([2**40, 64], gl.float16, layout=P2, alias=src)
    else:
        big = tle.gpu.alloc([32768, 32768], gl.int8, layout=P2)
        tle.gpu.alloc([64, 64], gl.float16, layout=P2, alias=big, alias_offset_bytes=-2)

for case in (0, 1):
    try:
        triton.compile(GluonASTSource(k, signature={"CASE": "constexpr"}, constexprs={"CASE": case}),
                       target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        print("accepted")
    except CompilationError as exc:
        print([line for line in str(exc).splitlines() if "fix:" in line][0])
"""


def test_compiles_with_huge_sizes_finish_with_a_fix() -> None:
    lines = _run(COMPILE_SETUP).splitlines()
    assert "[alias.range.fits]" in lines[0] and lines[0].endswith("fix: shape[0]=64"), lines
    assert "[alias.offset.nonneg]" in lines[1] and lines[1].endswith("alias_offset_bytes=0"), lines


# --------------------------------------------------------------------------------------------
# Installability: the frontend loads and works without z3, cvc5 and pydantic.


def test_frontend_works_without_the_spec_dependencies() -> None:
    code = (
        "import sys\n"
        "for blocked in ('z3', 'cvc5', 'pydantic'):\n"
        "    sys.modules[blocked] = None\n"
        + COMPILE_SETUP
        + textwrap.dedent(
            """
            from alias_spec.frontend import corpus_views, lowering
            from alias_spec.frontend.tle import gpu
            a = gpu.check_arguments([8, 64], gl.float16)
            print(a.shape, lowering.triton_version() >= 306)
            @gluon.jit
            def ok(out_ptr):
                B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
                src = tle.gpu.alloc([64, 64], gl.float16)
                view = tle.gpu.alloc([32, 64], gl.float16, alias=src, alias_offset_bytes=4096)
                rows = gl.arange(0, 32, layout=gl.SliceLayout(1, B))
                cols = gl.arange(0, 64, layout=gl.SliceLayout(0, B))
                ptrs = out_ptr + gl.expand_dims(rows, 1) * 64 + gl.expand_dims(cols, 0)
                gl.store(ptrs, view.load(B))
            k = triton.compile(GluonASTSource(ok, signature={"out_ptr": "*fp16"}),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
            print("shared", k.metadata.shared)
            print(sorted(m for m in ("z3", "cvc5", "pydantic") if sys.modules.get(m) is not None))
            """
        )
    )
    out = _run(code)
    assert "[8, 64] True" in out and "shared 8192" in out and out.rstrip().endswith("[]"), out
