"""Triton's own allocation size for one shared buffer of each layout kind, measured.

    python -m tools.reuse.measure          # one JSON object: the release, date, each case's bytes
    python -m tools.reuse.measure --out F  # writes it to F (tests/reuse_sizes/triton-X.Y.Z.json)

Needs only Triton (3.6 or later): each case is a small Gluon kernel holding one
shared allocation of the case's shape, dtype and layout (filled from global memory, read back),
compiled for sm_90 on the CPU; its ``shared`` metadata is the allocation's size, as the
allocator reserved it (the kernel has no other shared memory). ``CASES`` is plain data so that
a test on another release can rebuild each layout (``build_layout``) and size it with the
reuse planner's physical model.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from typing import Any

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

# name -> (shape, dtype, layout as data). Padded layouts use an identity offset map over the
# order given; linear ones give their offset bases ("identity" spells the row-major one).
CASES: dict[str, tuple[list[int], str, dict[str, Any]]] = {
    "swizzled_f16": ([64, 64], "float16", {"kind": "swizzled", "vec": 8, "per_phase": 2,
                                           "max_phase": 4, "order": [1, 0]}),
    "swizzled_f32_col": ([32, 64], "float32", {"kind": "swizzled", "vec": 4, "per_phase": 1,
                                               "max_phase": 8, "order": [0, 1]}),
    "nvmma128_f16": ([64, 64], "float16", {"kind": "nvmma", "swizzle": 128, "bits": 16}),
    "nvmma64_f16_t": ([64, 32], "float16", {"kind": "nvmma", "swizzle": 64, "bits": 16,
                                            "transposed": True}),
    "nvmma32_bf16": ([32, 16], "bfloat16", {"kind": "nvmma", "swizzle": 32, "bits": 16}),
    "nvmma128_i8": ([64, 128], "int8", {"kind": "nvmma", "swizzle": 128, "bits": 8}),
    "nvmma0_f32": ([16, 32], "float32", {"kind": "nvmma", "swizzle": 0, "bits": 32}),
    "padded_64p8_f16": ([64, 64], "float16", {"kind": "padded", "pairs": [[64, 8]],
                                              "order": [1, 0]}),
    "padded_64p8_f16_small": ([16, 16], "float16", {"kind": "padded", "pairs": [[64, 8]],
                                                    "order": [1, 0]}),
    "padded_32p4_f16": ([32, 128], "float16", {"kind": "padded", "pairs": [[32, 4]],
                                               "order": [1, 0]}),
    "padded_two_pairs_f16": ([64, 64], "float16", {"kind": "padded",
                                                   "pairs": [[64, 8], [128, 16]],
                                                   "order": [1, 0]}),
    "padded_16p1_f16": ([64, 64], "float16", {"kind": "padded", "pairs": [[16, 1]],
                                              "order": [1, 0]}),
    "padded_whole_f16": ([64, 64], "float16", {"kind": "padded", "pairs": [[4096, 8]],
                                               "order": [1, 0]}),
    "padded_past_f16": ([64, 64], "float16", {"kind": "padded", "pairs": [[8192, 8]],
                                              "order": [1, 0]}),
    "padded_32p4_f32_col": ([32, 64], "float32", {"kind": "padded", "pairs": [[32, 4]],
                                                  "order": [0, 1]}),
    "padded_128p16_i8": ([32, 64], "int8", {"kind": "padded", "pairs": [[128, 16]],
                                            "order": [1, 0]}),
    "linear_identity_f16": ([64, 64], "float16", {"kind": "linear", "bases": "identity"}),
    "linear_transposed_f16": ([64, 64], "float16", {"kind": "linear", "bases": "transposed"}),
    "linear_align128_f32": ([32, 32], "float32", {"kind": "linear", "bases": "identity",
                                                  "alignment": 128}),
}  # fmt: skip


def _bases(shape: list[int], which: str) -> list[list[int]]:
    """Offset bases of a bijective linear map: "identity" row-major, "transposed" column-major."""
    rows, cols = (int(math.log2(d)) for d in shape)
    col = [[0, 1 << i] for i in range(cols)]
    row = [[1 << i, 0] for i in range(rows)]
    return col + row if which == "identity" else row + col


def build_layout(shape: list[int], spec: dict[str, Any]) -> Any:
    """The Gluon layout object of a case's layout data, on the running release."""
    kind = spec["kind"]
    if kind == "swizzled":
        return gl.SwizzledSharedLayout(spec["vec"], spec["per_phase"], spec["max_phase"],
                                       spec["order"])  # fmt: skip
    if kind == "nvmma":
        return gl.NVMMASharedLayout(spec["swizzle"], spec["bits"], rank=len(shape),
                                    transposed=spec.get("transposed", False))  # fmt: skip
    if kind == "padded":
        return gl.PaddedSharedLayout.with_identity_for(spec["pairs"], shape, spec["order"])
    if kind == "linear":
        bases = _bases(shape, spec["bases"])
        return gl.SharedLinearLayout(bases, alignment=spec.get("alignment", 16))
    raise ValueError(f"unknown layout kind {kind!r}")


@gluon.jit
def one_buffer(ptr, M: gl.constexpr, N: gl.constexpr, DT: gl.constexpr, LAY: gl.constexpr):
    blk: gl.constexpr = gl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0])
    buf = gl.allocate_shared_memory(DT, [M, N], LAY)
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, blk))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, blk))
    ptrs = ptr + rows[:, None] * N + cols[None, :]
    buf.store(gl.load(ptrs))
    gl.store(ptrs, buf.load(blk))


_POINTER = {"float16": "*fp16", "float32": "*fp32", "int8": "*i8", "bfloat16": "*bf16"}


def measure(name: str) -> int:
    """Bytes Triton's allocator reserves for case ``name``'s buffer."""
    shape, dtype, spec = CASES[name]
    sig = {"ptr": _POINTER[dtype], "M": "constexpr", "N": "constexpr", "DT": "constexpr",
           "LAY": "constexpr"}  # fmt: skip
    consts = {(1,): shape[0], (2,): shape[1], (3,): getattr(gl, dtype),
              (4,): build_layout(shape, spec)}  # fmt: skip
    src = GluonASTSource(one_buffer, sig, consts)
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    return int(compiled.metadata.shared)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the JSON here (default: stdout)")
    args = ap.parse_args()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    result = {"triton": triton.__version__, "target": "sm_90", "date": date,
              "bytes": {name: measure(name) for name in CASES}}  # fmt: skip
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
