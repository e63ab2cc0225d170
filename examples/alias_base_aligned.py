"""Experiment: does a swizzled NVMMA alias need to start on a swizzle repeat?

The spec's ``alias.base.aligned`` rule says a result with an NVMMA swizzle must start on a
multiple of 8 x swizzle bytes (1024 for the 128-byte swizzle), because TMA and wgmma swizzle
absolute shared-memory address bits. This puts a 64x64 fp16 NVMMA-128 alias at several offsets
of one 1024-aligned allocation and feeds it to consumers of three kinds:

* ``tma_load``: a TMA copy writes the alias, ordinary shared loads read it back;
* ``tma_store``: ordinary shared stores write the alias, a TMA copy reads it out;
* ``wgmma``: ordinary stores write the alias, wgmma reads it as the A operand.

Each offset runs in its own process (a fault cannot hide the others' results) with the
'flagtree' profile, which does not check the rule. ``python examples/alias_base_aligned.py
OUT.json`` writes one record per offset: ok / wrong data (with the share of bytes that match) /
fault. That needs torch and a CUDA GPU (Hopper). Without one it compiles the wgmma kernel for
sm_90 on the CPU at each offset under the default ``safe`` profile, which does check the rule:
the offsets off the swizzle repeat are rejected at compile time with the rule and its fix, the
others compile, are linted and have their shared-memory plan checked; it prints those verdicts
and a line saying the GPU part was skipped (exit 0; 1 if a compiled kernel has a finding).
Without Triton (or, on the CPU, the plan extra's pydantic, z3, llvmlite) it says so in one
line and exits 77.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _requires import CPU_PATH, require

if __name__ == "__main__":  # imported (by the GPU tests) it needs only triton
    require(__file__, ("triton",))

from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import (  # noqa: E402
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alias_spec.frontend import tle  # noqa: E402

M = N = 64
ROOT_ROWS = 128  # 16 KiB: room for a tile at any offset below 8 KiB
OFFSETS = (0, 1024, 4096, 128, 256, 512, 896, 16)
TILE_LAYOUT = gl.NVMMASharedLayout(128, 16, 2)


@gluon.jit
def _offsets(B: gl.constexpr):
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, 64, layout=gl.SliceLayout(0, B))
    return gl.expand_dims(rows, 1) * 64 + gl.expand_dims(cols, 0)


@gluon.jit
def tma_alias_kernel(in_desc, out_desc, ref_ptr, got_ptr, OFF: gl.constexpr, ROWS: gl.constexpr):
    L: gl.constexpr = in_desc.layout
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    root = tle.gpu.alloc([ROWS, 64], gl.float16, layout=L)
    tile = tle.gpu.alloc([64, 64], gl.float16, layout=L, alias=root, alias_offset_bytes=OFF)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    offs = _offsets(B)
    # TMA writes the alias; ordinary shared loads read it.
    mbarrier.expect(bar, 64 * 64 * 2)
    tma.async_copy_global_to_shared(in_desc, [0, 0], bar, tile)
    mbarrier.wait(bar, 0)
    gl.store(got_ptr + offs, tile.load(B))
    gl.thread_barrier()
    # Ordinary shared stores write the alias; TMA reads it out.
    tile.store(gl.load(ref_ptr + offs))
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [0, 0], tile)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


@gluon.jit
def wgmma_alias_kernel(a_ptr, b_ptr, c_ptr, OFF: gl.constexpr, ROWS: gl.constexpr):
    L: gl.constexpr = gl.NVMMASharedLayout(128, 16, 2)
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    ACC: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, 64, 16]
    )
    root = tle.gpu.alloc([ROWS, 64], gl.float16, layout=L)
    a = tle.gpu.alloc([64, 64], gl.float16, layout=L, alias=root, alias_offset_bytes=OFF)
    b = tle.gpu.alloc([64, 64], gl.float16, layout=L)
    offs = _offsets(B)
    a.store(gl.load(a_ptr + offs))
    b.store(gl.load(b_ptr + offs))
    fence_async_shared()
    acc = warpgroup_mma(a, b, gl.zeros([64, 64], gl.float32, layout=ACC))
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, ACC))
    cols = gl.arange(0, 64, layout=gl.SliceLayout(0, ACC))
    gl.store(c_ptr + gl.expand_dims(rows, 1) * 64 + gl.expand_dims(cols, 0), acc)


def _verdict(got, want) -> dict:
    import torch

    same = (got.view(torch.uint8) == want.view(torch.uint8)).float().mean().item()
    return {"outcome": "ok" if same == 1.0 else "wrong data", "bytes_matching": round(same, 4)}


def measure(off: int) -> dict:
    """Run the three consumers for one offset in this process."""
    import torch
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    torch.manual_seed(off)
    x = torch.randint(-3, 4, (M, N), device="cuda").to(torch.float16)
    ref = torch.randint(-3, 4, (M, N), device="cuda").to(torch.float16)
    out = torch.zeros_like(x)
    got = torch.zeros_like(x)
    in_desc = TensorDescriptor.from_tensor(x, [M, N], TILE_LAYOUT)
    out_desc = TensorDescriptor.from_tensor(out, [M, N], TILE_LAYOUT)
    record: dict = {"offset": off, "swizzle_repeat": 1024, "aligned": off % 1024 == 0}
    tma_alias_kernel[(1,)](in_desc, out_desc, ref, got, off, ROOT_ROWS, num_warps=4)
    torch.cuda.synchronize()
    record["tma_load"] = _verdict(got, x)
    record["tma_store"] = _verdict(out, ref)
    a = torch.randint(-2, 3, (M, N), device="cuda").to(torch.float16)
    b = torch.randint(-2, 3, (M, N), device="cuda").to(torch.float16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float32)
    wgmma_alias_kernel[(1,)](a, b, c, off, ROOT_ROWS, num_warps=4)
    torch.cuda.synchronize()
    record["wgmma"] = _verdict(c, a.float() @ b.float())
    return record


def main(out_path: str) -> int:
    env = dict(os.environ, TLE_ALIAS_PROFILE="flagtree")
    records = []
    for off in OFFSETS:
        proc = subprocess.run(
            [sys.executable, __file__, "--one", str(off)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        line = [s for s in proc.stdout.splitlines() if s.startswith("{")]
        if proc.returncode == 0 and line:
            records.append(json.loads(line[-1]))
        else:
            tail = (proc.stderr or proc.stdout)[-1500:]
            records.append(
                {"offset": off, "aligned": off % 1024 == 0, "outcome": "fault", "error": tail}
            )
        print(json.dumps(records[-1])[:400], flush=True)
    Path(out_path).write_text(json.dumps(records, indent=1) + "\n")
    return 0


def cpu() -> int:
    from _cpu import judge, skipped

    ok = True
    for off in OFFSETS:
        ok &= judge(f"wgmma_alias_kernel[OFF={off}]", wgmma_alias_kernel,
                    {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                    {"OFF": off, "ROWS": ROOT_ROWS})  # fmt: skip
    skipped(__file__, "the TMA and wgmma runs at each offset (profile flagtree)")
    return 0 if ok else 1


if __name__ == "__main__":
    from _cpu import gpu_present

    if not gpu_present():
        require(__file__, CPU_PATH)
        raise SystemExit(cpu())
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(measure(int(sys.argv[2]))), flush=True)
    else:
        raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "alias_base_aligned.json"))
