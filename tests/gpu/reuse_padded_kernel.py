"""Two 64x64 f16 buffers of a padded shared layout, in use together, each filled and read back.

    python -m tests.gpu.reuse_padded_kernel                 # on a CUDA GPU: prints one JSON line
    python -m tests.gpu.reuse_padded_kernel --seeded        # also the old logical-size placement
    python -m tests.gpu.reuse_padded_kernel --compile-only  # no GPU: compile both for sm_90
    python -m tests.gpu.reuse_padded_kernel --out F         # also write the JSON to F

(from the checkout's root, whose alias_spec it imports).

``planned``: the reuse planner places both (``tle.gpu.alloc_reuse``) by their physical
footprint, the 9,200 bytes Triton reserves for a 64x64 f16 buffer padded 8 elements after
every 64, so the second starts at byte 9200. ``seeded`` (``--seeded``): the offsets the planner
chose when it sized buffers by their logical 8,192 bytes (the second at byte 8192, inside the
first one's padded span), made with plain Gluon ops at exactly that byte (through a dense byte
view) in an allocation large enough for the second's padded span, so that the overlap shows as
wrong values, not as a fault past the allocation.

Every value of the first buffer differs from every value of the second (bit patterns 0..4095
against 0x4000 + 0..4095), so any overlap shows. The first is stored, a barrier, the second is
stored, a barrier, both are read back and compared bit for bit with their inputs. The JSON
gives, per placement, the values compared and how many came back wrong, and ``expected_wrong``:
the first buffer's values whose padded slot is also a data slot of the second (none when
planned; 392 when seeded: of the 448 values of the first buffer's rows 57..63, which lie in
bytes [8192, 9200), 56 fall in the second's padding and survive). Exit 1 when a placement's
wrong count is not its expected count.

Needs torch (not for --compile-only), Triton 3.6 and, for the GPU run, CUDA; neither z3 (first
fit is already smallest here) nor pydantic.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from alias_spec.frontend import tle

M: gl.constexpr = gl.constexpr(64)
N: gl.constexpr = gl.constexpr(64)
INTERVAL, PAD_ELEMS = 64, 8
PADDING = [[INTERVAL, PAD_ELEMS]]
PAD: gl.constexpr = gl.constexpr(gl.PaddedSharedLayout.with_identity_for(PADDING, [64, 64], [1, 0]))
ROOT: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
PHYSICAL_BYTES = 9200  # Triton's size of one buffer (tests/reuse_sizes); the planned offset
# What the old planner gave each buffer: its logical bytes; the rows of 16 bytes holding the
# second buffer's padded span from there.
LOGICAL_BYTES: gl.constexpr = gl.constexpr(64 * 64 * 2)
LOGICAL_ROWS: gl.constexpr = gl.constexpr((64 * 64 * 2 + PHYSICAL_BYTES) // 16)
BYTES_1D: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
# The descriptor's reinterpret method is public from Triton 3.9.
PUBLIC_REINTERPRET: gl.constexpr = gl.constexpr(hasattr(gl.shared_memory_descriptor, "reinterpret"))
MODES = ("planned", "seeded")
SECOND_AT = {"planned": PHYSICAL_BYTES, "seeded": 64 * 64 * 2}  # the second buffer's byte


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


def slot(e: int) -> int:
    """The padded element slot of logical element ``e`` (identity map, row-major)."""
    return e + e // INTERVAL * PAD_ELEMS


def expected_wrong(mode: str) -> int:
    """Values of the first buffer the second's stores overwrite: data slots in common."""
    second = SECOND_AT[mode] // 2
    b_slots = {second + slot(e) for e in range(64 * 64)}
    return sum(slot(e) in b_slots for e in range(64 * 64))


def run(mode: str) -> dict[str, Any]:
    import torch

    n = 64 * 64
    # Distinct bit patterns, none a NaN: the first buffer's values never occur in the second.
    bits = torch.arange(n, dtype=torch.int16).reshape(M, N)
    x = bits.view(torch.float16).cuda()
    y = (bits + 0x4000).view(torch.float16).cuda()
    out = torch.full((2, M, N), float("nan"), dtype=torch.float16, device="cuda")
    kernel = padded_pair[(1,)](x, y, out, PLAN=gl.constexpr(plan()), MODE=gl.constexpr(mode),
                               num_warps=4)  # fmt: skip
    torch.cuda.synchronize()
    want = torch.stack([x, y]).view(torch.int16)
    wrong = (out.view(torch.int16) != want).sum(dim=(1, 2)).tolist()
    return {"shared": int(kernel.metadata.shared), "second_at": SECOND_AT[mode],
            "compared": int(want.numel()), "wrong": int(sum(wrong)), "wrong_a": int(wrong[0]),
            "wrong_b": int(wrong[1]), "expected_wrong": expected_wrong(mode)}  # fmt: skip


def compile_cpu(mode: str) -> Any:
    """The kernel of ``mode`` compiled for sm_90 without a GPU (for the CPU tests)."""
    from alias_spec.frontend.compile import compile_for

    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16"}
    return compile_for(padded_pair, sig, {"PLAN": plan(), "MODE": mode})


def main(argv: list[str]) -> int:
    import triton

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeded", action="store_true", help="also run the old logical placement")
    ap.add_argument("--compile-only", action="store_true", help="compile for sm_90, no launch")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)
    modes = list(MODES) if args.seeded else ["planned"]
    result: dict[str, Any] = {
        "triton": triton.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if args.compile_only:
        result["device"] = "none (compiled for sm_90)"
        for mode in modes:
            k = compile_cpu(mode)
            result[mode] = {"shared": int(k.metadata.shared), "second_at": SECOND_AT[mode],
                            "expected_wrong": expected_wrong(mode)}  # fmt: skip
    else:
        import torch

        if not torch.cuda.is_available():
            print("reuse_padded_kernel.py: no CUDA GPU (use --compile-only)", file=sys.stderr)
            return 2
        result |= {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
        result |= {mode: run(mode) for mode in modes}
    text = json.dumps(result, sort_keys=True)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")
    bad = [m for m in modes if "wrong" in result[m]
           and result[m]["wrong"] != result[m]["expected_wrong"]]  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
