"""The generic Gluon kernel that runs one corpus case: a root allocation, an optional view of it
(index or slice), a chain of up to three tle aliases, then reads and writes through the last
alias while a raw byte view of the whole allocation fills it and dumps it back.

Also importable without a GPU: the CPU tests compile it for sm_90.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from compiler_patch import tle

DTYPES: dict[str, Any] = {
    "i8": gl.int8,
    "u8": gl.uint8,
    "fp8e4nv": gl.float8e4nv,
    "fp8e5": gl.float8e5,
    "i16": gl.int16,
    "fp16": gl.float16,
    "bf16": gl.bfloat16,
    "i32": gl.int32,
    "fp32": gl.float32,
    "i64": gl.int64,
    "fp64": gl.float64,
}
TORCH_DTYPES = {
    "i8": "int8",
    "u8": "uint8",
    "fp8e4nv": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
    "i16": "int16",
    "fp16": "float16",
    "bf16": "bfloat16",
    "i32": "int32",
    "fp32": "float32",
    "i64": "int64",
    "fp64": "float64",
}
BITS = {"i8": 8, "u8": 8, "fp8e4nv": 8, "fp8e5": 8, "i16": 16, "fp16": 16, "bf16": 16}
BITS.update({"i32": 32, "fp32": 32, "i64": 64, "fp64": 64})
NUM_WARPS = 4
RAW_WIDTH_MAX = 256


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


def register_layout(shape: list[int], num_warps: int = NUM_WARPS) -> gl.BlockedLayout:
    return tle.gpu.default_blocked(list(shape), num_warps)


def raw_width(nbytes: int) -> int:
    """Bytes per row of the raw byte view: a power of 2 dividing the allocation."""
    w = nbytes & -nbytes
    return min(w, RAW_WIDTH_MAX)


@gluon.jit
def _lin(RANK: gl.constexpr, SHAPE: gl.constexpr, L: gl.constexpr):
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
    VIEW_OP: gl.constexpr,  # 0 none, 1 static index, 2 runtime index (vi), 3 slice
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
    gl.thread_barrier()

    if VIEW_OP == 0:
        src = root
    elif VIEW_OP == 1:
        src = root.index(VA)
    elif VIEW_OP == 2:
        src = root.index(vi)
    else:
        src = root.slice(VA, VB, VC)
    a = tle.gpu.alloc(S1, D1, layout=L1, alias=src, alias_offset_bytes=O1)
    if N_CHAIN >= 2:
        a = tle.gpu.alloc(S2, D2, layout=L2, alias=a, alias_offset_bytes=O2)
    if N_CHAIN >= 3:
        a = tle.gpu.alloc(S3, D3, layout=L3, alias=a, alias_offset_bytes=O3)

    offs = _lin(RANK, SHAPE, REG)
    gl.store(read_ptr + offs, a.load(REG))
    gl.thread_barrier()
    a.store(gl.load(write_ptr + offs))
    gl.thread_barrier()
    for r in range(RAW_ROWS):
        gl.store(dump_ptr + r * RAW_W + w, raw.index(r).load(ROW))


def launch_args(case: dict[str, Any]) -> dict[str, Any]:
    """The constexpr arguments of ``corpus_kernel`` for one corpus case."""
    root = case["root"]
    nbytes = case["expect"]["alloc_bytes"]
    rw = raw_width(nbytes)
    view = case["view"]
    op = {"none": 0, "index": 1, "slice": 3}[view["op"]]
    if view["op"] == "index" and view.get("runtime"):
        op = 2
    va = view.get("i", view.get("start", 0))
    chain = case["chain"]
    args: dict[str, Any] = {
        "ROOT_SHAPE": tuple(root["shape"]),
        "ROOT_DTYPE": DTYPES[root["dtype"]],
        "ROOT_LAYOUT": make_layout(root["layout"]),
        "RAW_ROWS": nbytes // rw,
        "RAW_W": rw,
        "VIEW_OP": op,
        "VA": va,
        "VB": view.get("length", 0),
        "VC": view.get("dim", 0),
        "N_CHAIN": len(chain),
    }
    for k in range(3):
        step = chain[k] if k < len(chain) else None
        n = str(k + 1)
        args["S" + n] = tuple(step["shape"]) if step else None
        args["D" + n] = DTYPES[step["dtype"]] if step else None
        args["L" + n] = make_layout(step["layout"]) if step else None
        args["O" + n] = step["offset"] if step else 0
    final = chain[-1]
    args["RANK"] = len(final["shape"])
    args["SHAPE"] = tuple(final["shape"])
    args["REG"] = register_layout(final["shape"])
    return args


def signature(case: dict[str, Any]) -> dict[str, str]:
    """The GluonASTSource signature of ``corpus_kernel`` for one case (CPU compiles)."""
    final = case["chain"][-1]["dtype"]
    ptr = {"i8": "*i8", "u8": "*u8", "fp8e4nv": "*fp8e4nv", "fp8e5": "*fp8e5", "i16": "*i16"}
    ptr.update({"fp16": "*fp16", "bf16": "*bf16", "i32": "*i32", "fp32": "*fp32"})
    ptr.update({"i64": "*i64", "fp64": "*fp64"})
    sig = {"fill_ptr": "*i8", "read_ptr": ptr[final], "write_ptr": ptr[final], "dump_ptr": "*i8"}
    sig["vi"] = "i32"
    sig.update({k: "constexpr" for k in launch_args(case)})
    return sig
