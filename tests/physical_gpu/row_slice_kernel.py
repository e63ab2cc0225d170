"""Where a row slice of a column-major shared buffer writes, on a GPU (issue 26, item 4).

A 128x64 f16 buffer in a column-major swizzled layout (``order = [0, 1]``: dim 0 fastest) is
filled with -1, then rows [ROW0, ROW0 + ROWS) are written through ``buf.slice(ROW0, ROWS)``
with each element's index in the slice ((r - ROW0) * 64 + c, exact in f16), and the whole buffer is read back twice: through
its layout (logical (r, c)) and as raw bytes (a dense 1-D reinterpret, the physical order).
The physical model says the slice covers 64 runs of ROWS elements, 128 elements apart; the
script prints, as JSON, which logical and which physical elements were written and with what.

Needs Triton (3.6 or later) and torch on a CUDA GPU; no part of this project:

    python tests/physical_gpu/row_slice_kernel.py > result.json
"""

from __future__ import annotations

import datetime
import json
import sys

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

M, N, ROW0, ROWS = 128, 64, 32, 32


@gluon.jit
def row_slice(out, raw, M: gl.constexpr, N: gl.constexpr, ROW0: gl.constexpr,
              ROWS: gl.constexpr, col_major: gl.constexpr):  # fmt: skip
    blocked: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    buf = gl.allocate_shared_memory(gl.float16, [M, N], col_major)
    buf.store(gl.full([M, N], -1.0, gl.float16, blocked))
    gl.thread_barrier()
    r = gl.arange(0, ROWS, layout=gl.SliceLayout(1, blocked))
    c = gl.arange(0, N, layout=gl.SliceLayout(0, blocked))
    # The slice's own element index (exact in f16: below 2048).
    idx = (gl.expand_dims(r, 1) * N + gl.expand_dims(c, 0)).to(gl.float16)
    buf.slice(ROW0, ROWS, dim=0).store(idx)
    gl.thread_barrier()
    rr = gl.arange(0, M, layout=gl.SliceLayout(1, blocked))
    offs = gl.expand_dims(rr, 1) * N + gl.expand_dims(c, 0)
    gl.store(out + offs, buf.load(blocked))
    flat: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    one_d: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    dense = buf._reinterpret(gl.float16, [M * N], flat)
    k = gl.arange(0, M * N, layout=one_d)
    gl.store(raw + k, dense.load(one_d))


# Column-major layouts: dim 0 is the contiguous one (JSON spelling, Gluon object).
LAYOUTS = {
    "swizzled_col_major": ({"kind": "swizzled", "order": [0, 1]},
                           lambda: gl.SwizzledSharedLayout(1, 1, 1, [0, 1])),
    "nvmma_transposed_128": ({"kind": "nvmma", "swizzle_bytes": 128, "transposed": True,
                              "element_bitwidth": 16, "rank": 2},
                             lambda: gl.NVMMASharedLayout(128, 16, 2, True)),
}  # fmt: skip


def main() -> int:
    import torch

    runs = {}
    for name, (spelled, make) in LAYOUTS.items():
        out = torch.empty((M, N), dtype=torch.float16, device="cuda")
        raw = torch.empty((M * N,), dtype=torch.float16, device="cuda")
        row_slice[(1,)](out, raw, M, N, ROW0, ROWS, make(), num_warps=4)
        torch.cuda.synchronize()
        o, w = out.cpu().tolist(), raw.cpu().tolist()
        logical = sorted((i, j, int(v)) for i, row in enumerate(o) for j, v in enumerate(row)
                         if v != -1)  # fmt: skip
        physical = sorted((k, int(v)) for k, v in enumerate(w) if v != -1)
        runs[name] = {"layout": spelled,
                      "logical_written": [[i, j, v] for i, j, v in logical],
                      "physical_written": [[k, v] for k, v in physical]}  # fmt: skip
    print(json.dumps({
        "device": torch.cuda.get_device_name(), "triton": triton.__version__,
        "torch": torch.__version__, "date": datetime.date.today().isoformat(),
        "shape": [M, N], "dtype": "f16", "slice": {"dim": 0, "start": ROW0, "rows": ROWS},
        "runs": runs,
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
