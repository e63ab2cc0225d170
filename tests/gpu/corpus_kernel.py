"""The generic Gluon kernel that runs one corpus case: a root allocation, an optional view of it
(index or slice), a chain of up to three tle aliases, then reads and writes through the last
alias while a raw byte view of the whole allocation fills it and dumps it back.

Also importable without a GPU: the CPU tests compile it for sm_90.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from alias_spec.frontend import tle
from alias_spec.frontend.corpus_views import (
    DTYPES,
    alias_chain,
    barrier,
    case_constexprs,
    case_view,
    make_layout,
    pointer_type,
    row_major_offsets,
)
from alias_spec.model.dtypes import BY_NAME, GPU_DTYPES

# DTYPES and make_layout are the shared ones, re-exported for the tests that import this module.
__all__ = [
    "DTYPES",
    "NUM_WARPS",
    "TORCH_DTYPES",
    "corpus_kernel",
    "launch_args",
    "make_layout",
    "raw_width",
    "signature",
]

# Corpus dtype name -> torch attribute name, from the model's one dtype table.
TORCH_DTYPES = {name: BY_NAME[name].torch for name in GPU_DTYPES}
NUM_WARPS = 4
RAW_WIDTH_MAX = 256


def raw_width(nbytes: int) -> int:
    """Bytes per row of the raw byte view: a power of 2 dividing the allocation."""
    w = nbytes & -nbytes
    return min(w, RAW_WIDTH_MAX)


@gluon.jit
def corpus_kernel(
    fill_ptr,
    read_ptr,
    write_ptr,
    dump_ptr,
    vi,
    ROOT_SHAPE: gl.constexpr,
    ROOT_DTYPE: gl.constexpr,
    ROOT_LAYOUT: gl.constexpr,
    RAW_ROWS: gl.constexpr,
    RAW_W: gl.constexpr,
    VIEW_OP: gl.constexpr,  # corpus_views.VIEW_OPS, or RUNTIME_INDEX (vi)
    VA: gl.constexpr,
    VB: gl.constexpr,
    VC: gl.constexpr,
    N_CHAIN: gl.constexpr,
    S1: gl.constexpr,
    D1: gl.constexpr,
    L1: gl.constexpr,
    O1: gl.constexpr,
    S2: gl.constexpr,
    D2: gl.constexpr,
    L2: gl.constexpr,
    O2: gl.constexpr,
    S3: gl.constexpr,
    D3: gl.constexpr,
    L3: gl.constexpr,
    O3: gl.constexpr,
    RANK: gl.constexpr,
    SHAPE: gl.constexpr,
    REG: gl.constexpr,
):
    BYTES_1D: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    ROW: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    root = tle.gpu.alloc(ROOT_SHAPE, ROOT_DTYPE, layout=ROOT_LAYOUT)
    raw = tle.gpu.alloc([RAW_ROWS, RAW_W], gl.int8, layout=BYTES_1D, alias=root)
    w = gl.arange(0, RAW_W, layout=ROW)
    for r in range(RAW_ROWS):
        raw.index(r).store(gl.load(fill_ptr + r * RAW_W + w))
    barrier()

    src = case_view(root, vi, VIEW_OP, VA, VB, VC)
    a = alias_chain(src, N_CHAIN, S1, D1, L1, O1, S2, D2, L2, O2, S3, D3, L3, O3)

    offs = row_major_offsets(RANK, SHAPE, REG)
    gl.store(read_ptr + offs, a.load(REG))
    barrier()
    a.store(gl.load(write_ptr + offs))
    barrier()
    for r in range(RAW_ROWS):
        gl.store(dump_ptr + r * RAW_W + w, raw.index(r).load(ROW))


def launch_args(case: dict[str, Any]) -> dict[str, Any]:
    """The constexpr arguments of ``corpus_kernel`` for one corpus case."""
    nbytes = case["expect"]["alloc_bytes"]
    rw = raw_width(nbytes)
    return {**case_constexprs(case, NUM_WARPS), "RAW_ROWS": nbytes // rw, "RAW_W": rw}


def signature(case: dict[str, Any]) -> dict[str, str]:
    """The GluonASTSource signature of ``corpus_kernel`` for one case (CPU compiles)."""
    ptr = pointer_type(case["chain"][-1]["dtype"])
    sig = {"fill_ptr": "*i8", "read_ptr": ptr, "write_ptr": ptr, "dump_ptr": "*i8"}
    sig["vi"] = "i32"
    sig.update({k: "constexpr" for k in launch_args(case)})
    return sig
