"""Two 64x64 f16 buffers of a padded shared layout, in use together, each filled and read back.

    python tests/gpu/reuse_padded_kernel.py [MODE ...]   # on a CUDA GPU; prints one JSON line

``planned``: the reuse planner places both (``tle.gpu.alloc_reuse``) by their physical
footprint, the 9,200 bytes Triton reserves for a 64x64 f16 buffer padded 8 elements after
every 64, so the second starts at byte 9200. ``logical``: the offsets the planner chose when
it sized buffers by their logical 8,192 bytes (the second at byte 8192, inside the first one's
padded span), made in plain Gluon ops at exactly that byte (through a dense byte view) in an
allocation large enough for the second's padded span, so that the overlap shows as wrong
values, not as a fault past the allocation. Each buffer is stored from its own input (the
second after the first, a barrier between), both are read back, and every value is compared
bit for bit with its input. The JSON line gives, per placement, the values compared and how
many came back wrong (``planned`` must have none: exit 1 otherwise); under ``logical`` the
first buffer's 448 values stored in bytes [8192, 9200) are expected wrong.

Needs torch, Triton 3.6 and CUDA; no z3 (first fit is already smallest here) and no pydantic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's alias_spec

from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402

M: gl.constexpr = gl.constexpr(64)
N: gl.constexpr = gl.constexpr(64)
PADDING = [[64, 8]]
PAD: gl.constexpr = gl.constexpr(gl.PaddedSharedLayout.with_identity_for(PADDING, [64, 64], [1, 0]))
ROOT: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
# What the old planner gave each buffer: its logical bytes; the rows of 16 bytes holding the
# second buffer's padded span from there (9200 bytes: physical.allocation_bytes).
LOGICAL_BYTES: gl.constexpr = gl.constexpr(64 * 64 * 2)
LOGICAL_ROWS: gl.constexpr = gl.constexpr((64 * 64 * 2 + 9200) // 16)
BYTES_1D: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
# The descriptor's reinterpret method is public from Triton 3.9.
PUBLIC_REINTERPRET: gl.constexpr = gl.constexpr(hasattr(gl.shared_memory_descriptor, "reinterpret"))
MODES = ("planned", "logical")


def plan() -> tle.gpu.reuse_plan:
    pad = PAD.value
    bufs = [tle.gpu.buffer("a", [64, 64], gl.float16, pad),
            tle.gpu.buffer("b", [64, 64], gl.float16, pad)]  # fmt: skip
    return tle.gpu.reuse_plan(bufs, uses={"a": "both", "b": "both"}, phases=["both"])


@gluon.jit
def _view(desc, dtype: gl.constexpr, shape: gl.constexpr, layout: gl.constexpr):
    if PUBLIC_REINTERPRET:
        return desc.reinterpret(dtype, shape, layout)
    else:
        return desc._reinterpret(dtype, shape, layout)


@gluon.jit
def padded_pair(x_ptr, y_ptr, out_ptr, PLAN: gl.constexpr, MODE: gl.constexpr):
    blk: gl.constexpr = gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, blk))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, blk))
    at = rows[:, None] * N + cols[None, :]
    if MODE == "planned":
        a, b = tle.gpu.alloc_reuse(PLAN)
    else:
        root = gl.allocate_shared_memory(gl.int8, [LOGICAL_ROWS, 16], ROOT)
        a = _view(root, gl.float16, [M, N], PAD)
        b_bytes = _view(root, gl.int8, [2, LOGICAL_BYTES], BYTES_1D).index(1)
        b = _view(b_bytes, gl.float16, [M, N], PAD)
    a.store(gl.load(x_ptr + at))
    gl.thread_barrier()
    b.store(gl.load(y_ptr + at))
    gl.thread_barrier()
    gl.store(out_ptr + at, a.load(blk))
    gl.store(out_ptr + M * N + at, b.load(blk))


def run(mode: str) -> dict[str, Any]:
    import torch

    gen = torch.Generator(device="cpu").manual_seed(18)
    x = torch.randn(M, N, generator=gen).to(torch.float16).cuda()
    y = torch.randn(M, N, generator=gen).to(torch.float16).cuda()
    out = torch.full((2, M, N), float("nan"), dtype=torch.float16, device="cuda")
    kernel = padded_pair[(1,)](x, y, out, PLAN=gl.constexpr(plan()), MODE=gl.constexpr(mode),
                               num_warps=4)  # fmt: skip
    torch.cuda.synchronize()
    want = torch.stack([x, y]).view(torch.int16)
    wrong = (out.view(torch.int16) != want).sum(dim=(1, 2)).tolist()
    return {"shared": int(kernel.metadata.shared), "compared": int(want.numel()),
            "wrong": int(sum(wrong)), "wrong_a": int(wrong[0]), "wrong_b": int(wrong[1])}  # fmt: skip


def compile_cpu(mode: str) -> Any:
    """The kernel of ``mode`` compiled for sm_90 without a GPU (for the CPU tests)."""
    from alias_spec.frontend.compile import compile_for

    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16"}
    return compile_for(padded_pair, sig, {"PLAN": plan(), "MODE": mode})


def main(argv: list[str]) -> int:
    import torch
    import triton

    modes = argv or list(MODES)
    if any(m not in MODES for m in modes):
        print(f"reuse_padded_kernel.py: a mode is one of {list(MODES)}, got {modes}")
        return 2

    result = {
        "triton": triton.__version__,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        **{mode: run(mode) for mode in modes},
    }
    print(json.dumps(result, sort_keys=True), flush=True)
    return 1 if "planned" in result and result["planned"]["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
