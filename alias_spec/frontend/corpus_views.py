"""Gluon pieces that rebuild a GPU corpus case (tests/gpu/corpus.json) inside a kernel.

Shared by the kernel ``alias_spec.difftest.lowering_check`` compiles for each case and by the GPU
corpus kernel (tests/gpu/corpus_kernel.py): the case's constexpr arguments, its view of the
root allocation and alias chain, row-major offsets of the last alias and a barrier that works
on Triton 3.6-3.9. Imports Triton: import it only where Triton is installed.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language._core import _unwrap_if_constexpr, builtin

from alias_spec.frontend import tle
from alias_spec.model.dtypes import BY_NAME, GPU_DTYPES

# Corpus dtype names -> Gluon dtypes (the model's dtype table names them); the pointer type of
# a signature is "*" + the name.
DTYPES: dict[str, Any] = {name: getattr(gl, BY_NAME[name].gluon) for name in GPU_DTYPES}
# 0 none, 1 static index, 2 runtime index (the kernel's ``vi``), 3 slice.
VIEW_OPS = {"none": 0, "index": 1, "slice": 3}
RUNTIME_INDEX = 2
CHAIN_MAX = 3

# Triton 3.7 renamed thread_barrier to barrier; a builtin, so kernels may call it as a global.
barrier = getattr(gl, "barrier", None) or gl.thread_barrier


def pointer_type(dtype: str) -> str:
    """The signature type of a pointer to corpus dtype ``dtype``."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype: unknown corpus dtype {dtype!r}")
    return "*" + dtype


def make_layout(spec: dict[str, Any]) -> Any:
    """A Gluon shared layout from its corpus JSON form."""
    if spec["kind"] == "nvmma":
        return gl.NVMMASharedLayout(
            spec["swizzle_bytes"],
            spec["element_bitwidth"],
            spec["rank"],
            spec.get("transposed", False),
        )
    return gl.SwizzledSharedLayout(
        spec["vec"], spec["per_phase"], spec["max_phase"], list(spec["order"])
    )


def case_constexprs(case: dict[str, Any], num_warps: int) -> dict[str, Any]:
    """The constexpr arguments of ``case_view``, ``alias_chain`` and ``row_major_offsets`` for one
    case: ROOT_SHAPE/DTYPE/LAYOUT, VIEW_OP with VA VB VC, N_CHAIN with S/D/L/O 1-3 (unused
    steps None, offset 0), then RANK, SHAPE and the register layout REG of the last alias."""
    root, view, chain = case["root"], case["view"], case["chain"]
    op = VIEW_OPS[view["op"]]
    if view["op"] == "index" and view.get("runtime"):
        op = RUNTIME_INDEX
    args: dict[str, Any] = {
        "ROOT_SHAPE": tuple(root["shape"]),
        "ROOT_DTYPE": DTYPES[root["dtype"]],
        "ROOT_LAYOUT": make_layout(root["layout"]),
        "VIEW_OP": op,
        "VA": view.get("i", view.get("start", 0)),
        "VB": view.get("length", 0),
        "VC": view.get("dim", 0),
        "N_CHAIN": len(chain),
    }
    for k in range(CHAIN_MAX):
        step = chain[k] if k < len(chain) else None
        n = str(k + 1)
        args["S" + n] = tuple(step["shape"]) if step else None
        args["D" + n] = DTYPES[step["dtype"]] if step else None
        args["L" + n] = make_layout(step["layout"]) if step else None
        args["O" + n] = step["offset"] if step else 0
    final = chain[-1]["shape"]
    args["RANK"] = len(final)
    args["SHAPE"] = tuple(final)
    args["REG"] = tle.gpu.default_blocked(list(final), num_warps)
    return args


# Builtins, not jit functions: a descriptor passed into a jit call comes back as a new IR
# value without its tle place, and the aliases would then be judged on different facts. Two
# of them, so that the IR names the view ``src`` and the aliases ``a`` wherever a kernel
# assigns them so.
@builtin
def case_view(
    root: Any, vi: Any, VIEW_OP: Any, VA: Any, VB: Any, VC: Any, _semantic: Any = None
) -> Any:
    """The case's view of ``root``: itself, ``index(VA)``, ``index(vi)`` or
    ``slice(VA, VB, VC)``, as VIEW_OP says."""
    op = _unwrap_if_constexpr(VIEW_OP)
    if op == VIEW_OPS["none"]:
        return root
    if op == VIEW_OPS["index"]:
        return root.index(VA, _semantic=_semantic)
    if op == RUNTIME_INDEX:
        return root.index(vi, _semantic=_semantic)
    return root.slice(VA, VB, VC, _semantic=_semantic)


@builtin
def alias_chain(
    src: Any,
    N_CHAIN: Any,
    S1: Any,
    D1: Any,
    L1: Any,
    O1: Any,
    S2: Any,
    D2: Any,
    L2: Any,
    O2: Any,
    S3: Any,
    D3: Any,
    L3: Any,
    O3: Any,
    _semantic: Any = None,
) -> Any:
    """The case's first N_CHAIN tle aliases, the first of ``src``, each next of the one before
    (shape Sk, dtype Dk, layout Lk, offset Ok); returns the last."""
    steps = ((S1, D1, L1, O1), (S2, D2, L2, O2), (S3, D3, L3, O3))
    a = src
    for shape, dtype, layout, off in steps[: _unwrap_if_constexpr(N_CHAIN)]:
        a = tle.gpu.alloc(
            shape, dtype, layout=layout, alias=a, alias_offset_bytes=off, _semantic=_semantic
        )
    return a


@gluon.jit
def row_major_offsets(RANK: gl.constexpr, SHAPE: gl.constexpr, L: gl.constexpr):
    # Row-major element offsets of a tensor of SHAPE in register layout L.
    if RANK == 1:
        offs = gl.arange(0, SHAPE[0], layout=L)
    elif RANK == 2:
        r = gl.arange(0, SHAPE[0], layout=gl.SliceLayout(1, L))
        c = gl.arange(0, SHAPE[1], layout=gl.SliceLayout(0, L))
        offs = gl.expand_dims(r, 1) * SHAPE[1] + gl.expand_dims(c, 0)
    else:
        a = gl.arange(0, SHAPE[0], layout=gl.SliceLayout(1, gl.SliceLayout(2, L)))
        b = gl.arange(0, SHAPE[1], layout=gl.SliceLayout(0, gl.SliceLayout(2, L)))
        c = gl.arange(0, SHAPE[2], layout=gl.SliceLayout(0, gl.SliceLayout(1, L)))
        a3 = gl.expand_dims(gl.expand_dims(a, 1), 2)
        b3 = gl.expand_dims(gl.expand_dims(b, 0), 2)
        c3 = gl.expand_dims(gl.expand_dims(c, 0), 1)
        offs = a3 * (SHAPE[1] * SHAPE[2]) + b3 * SHAPE[2] + c3
    return offs
