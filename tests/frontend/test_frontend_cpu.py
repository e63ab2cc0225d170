"""The Gluon frontend (alias_spec.frontend.tle) on a machine without a GPU.

Kernels are compiled for sm_90 with GluonASTSource: an alias must add no allocation, keep
``metadata.shared`` at the source's size and address the source base plus the offset in the
LLVM IR; every rejected request must raise its rule at the kernel line that asked for it.
Pure-Python parts (footprint, generated recipe predicate, corpus facts) run without Triton.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_spec.backends import gen_recipes
from alias_spec.generated import recipes
from alias_spec.model import recipes as recipe_model
from alias_spec.model.physical import footprint as spec_footprint
from tests.paths import GPU, GPU_CORPUS, ROOT

CORPUS = GPU_CORPUS

# --------------------------------------------------------------------------------------------
# Pure Python: no Triton needed.


def test_generated_recipes_up_to_date() -> None:
    path = ROOT / "alias_spec" / "generated" / "recipes.py"
    assert path.read_text() == gen_recipes.generate(), "run `alias-spec gen`"


def test_recipe_formulas_use_known_facts() -> None:
    for r in recipe_model.RECIPES:
        recipe_model.expand(r.formula)
    for s in recipe_model.SUPPORT:
        recipe_model.expand(s.formula)


@st.composite
def views(draw):
    """(view shape, dense block, offsets): leading block dims outside the view have size 1."""
    rank = draw(st.integers(1, 4))
    block = [draw(st.integers(1, 6)) for _ in range(rank)]
    lead = draw(st.integers(0, rank - 1))
    shape, offsets = [], []
    for i, b in enumerate(block):
        size = 1 if i < lead else draw(st.integers(0, b))
        offsets.append(draw(st.integers(0, b - size)))
        if i >= lead:
            shape.append(size)
    return shape, block, offsets


@settings(max_examples=300, deadline=None)
@given(views())
def test_footprint_matches_spec_model(view) -> None:
    from alias_spec.frontend.tle.place import PlaceError, footprint

    shape, block, offsets = view
    try:
        want = spec_footprint(shape, block, offsets).facts()
    except ValueError:
        with pytest.raises(PlaceError):
            footprint(tuple(shape), tuple(block), tuple(offsets))
        return
    assert footprint(tuple(shape), tuple(block), tuple(offsets)).facts() == want


def _facts(**over):
    base = dict(
        off=0,
        off_int=True,
        res_elems=64 * 64,
        res_bits=16,
        src_elems=64 * 64,
        src_bits=16,
        c0=1,
        c1=1,
        c2=1,
        tv=306,
        res_rank=2,
        res_d0_pow2=True,
        res_tail_pow2=True,
        res_layout_rank=2,
        res_layout_bits=0,
        src_sub=False,
        src_lead_pow2=True,
        src_model=True,
        gran=0,
        src_alloc_pow2=True,
        src_layout_full=True,
        src_base=0,
        src_start=0,
        align=1024,
    )
    base.update(over)
    return base


def test_recipe_choice_per_version() -> None:
    assert recipes.choose(_facts()) == "view"
    assert recipes.choose(_facts(off=4096, gran=4096, res_elems=32 * 64)) == "index"
    assert recipes.choose(_facts(off=128, gran=128, res_elems=32 * 64)) == "granule"
    # 3.8: reinterpret must cover the whole non-subview source; no byte granules.
    assert recipes.choose(_facts(tv=308, res_elems=32 * 64)) == "index"
    assert recipes.choose(_facts(tv=308, src_sub=True, res_elems=32 * 64)) is None
    assert recipes.choose(_facts(tv=308, off=4096, gran=4096, res_elems=32 * 64)) == "index"
    assert recipes.choose(_facts(tv=308, off=128, gran=128, res_elems=32 * 64)) is None
    # 3.9: smaller reinterprets are fine.
    assert recipes.choose(_facts(tv=309, res_elems=32 * 64)) == "view"


def test_unsupported_shapes_are_caught_before_lowering() -> None:
    bad = recipes.unsupported(
        _facts(res_rank=1, res_d0_pow2=False, res_elems=24, res_layout_rank=1)
    )
    assert [b[0] for b in bad] == ["shape.pow2"]
    bad = recipes.unsupported(_facts(res_layout_bits=8))
    assert [b[0] for b in bad] == ["layout.dtype"]
    bad = recipes.unsupported(_facts(src_sub=True, src_alloc_pow2=False))
    assert [b[0] for b in bad] == ["source.subview"]


def test_corpus_is_valid_and_facts_agree_with_spec() -> None:
    """Every corpus step, re-derived: the spec accepts it and the frontend computes the same
    facts from its own model of the views."""
    pytest.importorskip("z3")
    from alias_spec.difftest import gpu_corpus

    doc = json.loads(CORPUS.read_text())
    cases = doc["cases"]
    assert len(cases) >= 300
    fresh = gpu_corpus.generate(6, doc["seed"])
    assert fresh == cases[:6], "corpus.json is stale: rerun `alias-spec dev gpu-corpus`"
    for case in cases:
        for request in case["requests"]:
            from alias_spec.model.interp import check_facts
            from alias_spec.model.request import parse_request

            assert check_facts(parse_request(request).facts, "safe").valid, case["id"]
        runs = case["expect"]["map"]
        covered = sum(n for _, n in runs) * case["expect"]["elem_bytes"]
        assert covered == case["expect"]["res_bytes"]


# --------------------------------------------------------------------------------------------
# Compiled for sm_90: needs triton (skipped cleanly without it).

triton = pytest.importorskip("triton")
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tle-cpu-cache-"))

from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.errors import CompilationError  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
NVMMA128 = gl.constexpr(gl.NVMMASharedLayout(128, 16, 2))
PLAIN2 = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))


def compile_kernel(fn, signature, constexprs=None, num_warps=4):
    sig = dict(signature)
    sig.update({k: "constexpr" for k in constexprs or {}})
    src = GluonASTSource(fn, signature=sig, constexprs=constexprs or {})
    return triton.compile(src, target=TARGET, options={"num_warps": num_warps})


def smem_offsets(llir: str) -> list[int]:
    """Constant byte offsets the LLVM IR adds to the shared-memory base."""
    return [int(x) for x in re.findall(r"@global_smem, i32 (\d+)\)", llir)]


@gluon.jit
def _store_tile(ptr, view, M: gl.constexpr, N: gl.constexpr):
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, B))
    gl.store(ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0), view.load(B))


@gluon.jit
def alias_kernel(out_ptr, OFF: gl.constexpr, M: gl.constexpr, DT: gl.constexpr, L: gl.constexpr):
    src = tle.gpu.alloc([64, 64], gl.float16, layout=L)
    view = tle.gpu.alloc([M, 64], DT, layout=L, alias=src, alias_offset_bytes=OFF)
    _store_tile(out_ptr, view, M, 64)


@pytest.mark.parametrize(
    ("off", "rows", "recipe"),
    [
        (0, 64, "view"),
        (0, 32, "view"),
        (4096, 32, "index"),
        (1024, 32, "granule"),
        (6144, 16, "granule"),
    ],
)
def test_alias_adds_no_allocation_and_addresses_base_plus_offset(off, rows, recipe) -> None:
    k = compile_kernel(
        alias_kernel,
        {"out_ptr": "*fp16"},
        {"OFF": off, "M": rows, "DT": gl.float16, "L": NVMMA128.value},
    )
    assert k.asm["ttgir"].count("ttg.local_alloc") == 1
    assert k.metadata.shared == 64 * 64 * 2
    assert smem_offsets(k.asm["llir"])[:1] == ([off] if off else [])
    if recipe != "view":
        assert "ttg.memdesc_index" in k.asm["source"]


@gluon.jit
def chain_kernel(out_ptr):
    src = tle.gpu.alloc([4, 64, 64], gl.float16, layout=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    buf = src.index(2)  # bytes [16384, 24576)
    rows = buf.slice(16, 16)  # rows 16..31: +2048
    a = tle.gpu.alloc([8, 64], gl.float16, layout=PLAIN2, alias=rows, alias_offset_bytes=512)
    b = tle.gpu.alloc([4, 64], gl.bfloat16, layout=PLAIN2, alias=a, alias_offset_bytes=256)
    _store_tile(out_ptr, b, 4, 64)


def test_aliases_of_index_slice_and_alias_compose_offsets() -> None:
    k = compile_kernel(chain_kernel, {"out_ptr": "*bf16"})
    assert k.asm["ttgir"].count("ttg.local_alloc") == 1
    assert k.metadata.shared == 4 * 64 * 64 * 2
    assert 16384 + 2048 + 512 + 256 in smem_offsets(k.asm["llir"])


def test_flagtree_examples_compile() -> None:
    import flagtree_alias  # examples/, on the tests' path (pyproject.toml)
    import smem_flush

    k = compile_kernel(
        flagtree_alias.flagtree_scenario_kernel,
        {"x_ptr": "*fp16", "y_ptr": "*fp16", "before_ptr": "*fp16", "after_ptr": "*fp16"},
        {"M": 64, "N": 64},
    )
    assert k.metadata.shared == 8192 and k.asm["ttgir"].count("ttg.local_alloc") == 1
    k = compile_kernel(flagtree_alias.flagtree_lit_kernel, {"x_ptr": "*bf16", "out_ptr": "*bf16"})
    assert 128 in smem_offsets(k.asm["llir"])
    k = compile_kernel(
        smem_flush.smem_flush_kernel, {"out_ptr": "*i32"}, {"EVENTS": 32}, num_warps=1
    )
    assert k.metadata.shared == 256 and k.asm["ttgir"].count("ttg.local_alloc") == 1


# fmt: off
@gluon.jit
def reject_kernel(x_ptr, n, CASE: gl.constexpr):
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    L1: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    src = tle.gpu.alloc([64, 64], gl.float16, layout=NVMMA128)
    by = tle.gpu.alloc([4096], gl.int8, layout=L1)
    if CASE == "alias.source.kind":
        reg = gl.zeros([64, 64], gl.float16, layout=B)
        tle.gpu.alloc([64, 64], gl.float16, alias=reg)  # c:alias.source.kind
    elif CASE == "alias.init_value":
        tle.gpu.alloc([64, 64], gl.float16, alias=src, init_value=0.0)  # c:alias.init_value
    elif CASE == "alias.scope.smem":
        tle.gpu.alloc([64, 64], gl.float16, scope=tle.tmem, alias=src)  # c:alias.scope.smem
    elif CASE == "alias.offset.constexpr":
        tle.gpu.alloc([8, 64], gl.float16, alias=src, alias_offset_bytes=n)  # c:O1
    elif CASE == "alias.offset.nonneg":
        tle.gpu.alloc([8, 64], gl.float16, alias=src, alias_offset_bytes=-1024)  # c:O2
    elif CASE == "alias.offset.i32":
        tle.gpu.alloc([8, 64], gl.float16, alias=src, alias_offset_bytes=2**31)  # c:O3
    elif CASE == "alias.offset.aligned":
        tle.gpu.alloc([64], gl.int32, layout=L1, alias=by, alias_offset_bytes=6)  # c:O4
    elif CASE == "alias.size.static":
        tle.gpu.alloc([-1, 64], gl.float16, alias=src)  # c:alias.size.static
    elif CASE == "alias.range.fits":
        tle.gpu.alloc([32, 64], gl.float16, alias=src, alias_offset_bytes=6144)  # c:R1
    elif CASE == "alias.range.physical":
        cols = tle.gpu.alloc([64, 64], gl.float16, layout=PLAIN2).slice(0, 32, 1)
        tle.gpu.alloc([128], gl.float16, layout=L1, alias=cols)  # c:alias.range.physical
    elif CASE == "alias.address.aligned":
        odd = by.slice(2, 2)
        tle.gpu.alloc([1], gl.int32, layout=L1, alias=odd)  # c:alias.address.aligned
    elif CASE == "alias.base.aligned":
        tle.gpu.alloc([32, 64], gl.float16, alias=src, alias_offset_bytes=128)  # c:B1
    elif CASE == "lowering.unsupported.pow2_1d":
        tle.gpu.alloc([24], gl.int8, layout=L1, alias=by)  # c:lowering.unsupported.pow2_1d
    elif CASE == "lowering.unsupported.pow2_tail":
        tle.gpu.alloc([2, 24], gl.int8, layout=PLAIN2, alias=by)  # c:U2
    elif CASE == "lowering.unsupported.layout_dtype":
        tle.gpu.alloc([64, 64], gl.int8, layout=NVMMA128, alias=src)  # c:U3
    elif CASE == "lowering.unsupported.subview":
        part = tle.gpu.alloc([3, 16, 64], gl.float16, layout=PLAIN2).slice(1, 1)
        tle.gpu.alloc([16, 64], gl.float16, layout=PLAIN2, alias=part)  # c:U4
    elif CASE == "lowering.unsupported.align16":
        tle.gpu.alloc([64], gl.int32, layout=L1, alias=by, alias_offset_bytes=4)  # c:U6
    elif CASE == "lowering.unsupported.model":
        right = tle.gpu.alloc([64, 128], gl.float16, layout=NVMMA128).slice(64, 64, 1)
        tle.gpu.alloc([1, 64], gl.float16, layout=PLAIN2, alias=right)  # c:U5
# fmt: on


# (case, the marker ending the line that must be blamed)
REJECTS = [
    ("alias.source.kind", "alias.source.kind"),
    ("alias.init_value", "alias.init_value"),
    ("alias.scope.smem", "alias.scope.smem"),
    ("alias.offset.constexpr", "O1"),
    ("alias.offset.nonneg", "O2"),
    ("alias.offset.i32", "O3"),
    ("alias.offset.aligned", "O4"),
    ("alias.size.static", "alias.size.static"),
    ("alias.range.fits", "R1"),
    ("alias.range.physical", "alias.range.physical"),
    ("alias.address.aligned", "alias.address.aligned"),
    ("alias.base.aligned", "B1"),
    ("lowering.unsupported.pow2_1d", "lowering.unsupported.pow2_1d"),
    ("lowering.unsupported.pow2_tail", "U2"),
    ("lowering.unsupported.layout_dtype", "U3"),
    ("lowering.unsupported.subview", "U4"),
    ("lowering.unsupported.model", "U5"),
    ("lowering.unsupported.align16", "U6"),
]


def _case_line(marker: str) -> int:
    lines, _ = inspect.getsourcelines(reject_kernel.fn)
    hits = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"# c:{marker}")]
    assert len(hits) == 1
    return hits[0] - 1  # Triton counts from the line after the decorator


@pytest.mark.parametrize(("case", "marker"), REJECTS)
def test_rejected_request_names_rule_values_fix_at_its_line(case: str, marker: str) -> None:
    with pytest.raises(CompilationError) as info:
        compile_kernel(reject_kernel, {"x_ptr": "*fp16", "n": "i32"}, {"CASE": case})
    text = str(info.value)
    rule = "lowering.unsupported" if case.startswith("lowering") else case
    assert f"[{rule}]" in text
    assert "fix:" in text
    assert re.search(rf"^at {_case_line(marker)}:\d+:", text, re.M), text
    assert f"# c:{marker}" in text  # the offending source line is quoted
    if rule in recipes.OFFSET_FIXABLE:
        # Named in the call's words (offset, result bytes), never by internal fact names.
        assert re.search(r"\((offset|result|source)[^)]*-?\d+ B", text), text
        assert not re.search(r"\b(off|res_bytes|src_bytes|run_b|abs_off|res_eb)=", text), text


def test_offset_fix_is_the_nearest_valid_offset() -> None:
    with pytest.raises(CompilationError) as info:
        compile_kernel(
            reject_kernel, {"x_ptr": "*fp16", "n": "i32"}, {"CASE": "alias.base.aligned"}
        )
    assert "fix: alias_offset_bytes=0" in str(info.value)
    with pytest.raises(CompilationError) as info:
        compile_kernel(reject_kernel, {"x_ptr": "*fp16", "n": "i32"}, {"CASE": "alias.range.fits"})
    assert "fix: alias_offset_bytes=4096" in str(info.value)
    # An element-aligned offset that Triton cannot lower (not 16-byte aligned) gets one it can.
    with pytest.raises(CompilationError) as info:
        compile_kernel(
            reject_kernel, {"x_ptr": "*fp16", "n": "i32"}, {"CASE": "lowering.unsupported.align16"}
        )
    assert "base.align16" in str(info.value) and "fix: alias_offset_bytes=0" in str(info.value)


@gluon.jit
def loop_kernel(out_ptr, n):
    bufs = tle.gpu.alloc([4, 64, 64], gl.float16, layout=NVMMA128)
    cur = bufs.index(0)
    for i in range(n):
        cur = bufs.index(i)
    # `cur` is loop-carried: its place is unknown, so an NVMMA alias of it cannot be vouched for.
    view = tle.gpu.alloc([64, 64], gl.float16, layout=NVMMA128, alias=cur)
    _store_tile(out_ptr, view, 64, 64)


def test_loop_carried_descriptor_loses_its_place_soundly() -> None:
    with pytest.raises(CompilationError) as info:
        compile_kernel(loop_kernel, {"out_ptr": "*fp16", "n": "i32"})
    assert "[alias.base.aligned]" in str(info.value)
    assert "carried through a loop" in str(info.value)


@gluon.jit
def runtime_index_kernel(out_ptr, i, BUFS: gl.constexpr, ROWS: gl.constexpr):
    bufs = tle.gpu.alloc([BUFS, ROWS, 64], gl.float16, layout=NVMMA128)
    view = tle.gpu.alloc([8, 64], gl.float16, layout=NVMMA128, alias=bufs.index(i))
    _store_tile(out_ptr, view, 8, 64)


def test_runtime_index_keeps_only_guaranteed_alignment() -> None:
    # 64-row buffers are 8 KiB apart: any index stays 1024-aligned.
    compile_kernel(runtime_index_kernel, {"out_ptr": "*fp16", "i": "i32"}, {"BUFS": 4, "ROWS": 64})
    # 4-row buffers are 512 bytes apart: index 1 would break the 128-byte swizzle.
    with pytest.raises(CompilationError, match=r"alias\.base\.aligned"):
        compile_kernel(
            runtime_index_kernel, {"out_ptr": "*fp16", "i": "i32"}, {"BUFS": 4, "ROWS": 4}
        )


def test_corpus_sample_compiles_through_the_frontend() -> None:
    from tests.gpu import corpus_kernel as ck

    cases = json.loads(CORPUS.read_text())["cases"]
    picked = {}
    for c in cases:
        for r in c["recipes"]:
            picked.setdefault(r, c)
        picked.setdefault("view:" + c["view"]["op"], c)
    for case in picked.values():
        k = compile_kernel(ck.corpus_kernel, ck.signature(case), ck.launch_args(case))
        assert k.asm["ttgir"].count("ttg.local_alloc") == 1, case["id"]
        assert k.metadata.shared == case["expect"]["alloc_bytes"], case["id"]


@gluon.jit
def init_kernel(out_ptr):
    smem = tle.gpu.alloc([64, 64], gl.float16, init_value=1.5)
    _store_tile(out_ptr, smem, 64, 64)


@gluon.jit
def tmem_kernel(out_ptr):
    tle.gpu.alloc([128, 64], gl.float32, scope=tle.tmem)


def test_allocation_mode_smem_with_init_and_tmem() -> None:
    k = compile_kernel(init_kernel, {"out_ptr": "*fp16"})
    assert k.metadata.shared == 8192 and k.asm["ttgir"].count("ttg.local_alloc") == 1
    k = triton.compile(
        GluonASTSource(tmem_kernel, signature={"out_ptr": "*fp32"}),
        target=GPUTarget("cuda", 100, 32),
        options={"num_warps": 4},
    )
    assert "ttng.tmem_alloc" in k.asm["source"]  # unused, so later passes drop it


def test_gpu_report_matches_the_kept_results() -> None:
    from tools.gpu import report

    results = GPU / "results"
    text = report.render(results, results / "earlier")
    assert (ROOT / "docs" / "gpu-report.md").read_text() == text, "run python -m tools.gpu.report"
