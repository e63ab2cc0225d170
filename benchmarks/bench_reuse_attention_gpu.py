"""Attention with the output tile over Q and the K/V ring, measured on a GPU in one run.

    python -m benchmarks.bench_reuse_attention_gpu [--out FILE.json] [--passes N]

``reuse_attention.py``'s flash-attention forward (bf16, non-causal, one warpgroup per 128 query
rows) in its three modes (planned alias, four allocations up front, O allocated late) for every
ring depth that fits, over head dims, key blocks and sequence lengths: shared memory per CTA,
CTAs per SM, TFLOP/s, and torch's scaled_dot_product_attention on the same problem. Every run is
compared byte for byte with the upfront run of the same depth and with an fp32 reference.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from benchmarks import bench_reuse_gpu, scratch
from benchmarks import reuse_attention as ra

HEADS = 32
SEQS = (1024, 4096, 8192)
CONFIGS = ((128, 64), (64, 128), (64, 64))  # (head dim, key block)


def main(argv: list[str] | None = None) -> int:
    ap = bench_reuse_gpu.parser(__doc__, "reuse_attention_gpu.json")
    args = ap.parse_args(argv)
    if args.passes < 1:
        ap.error("--passes must be at least 1")

    import torch
    import torch.nn.functional as F
    from triton.experimental.gluon import language as gl
    from triton.testing import do_bench

    props = torch.cuda.get_device_properties(0)
    out: dict[str, Any] = {
        **bench_reuse_gpu.machine(props),
        "heads": HEADS, "block_m": ra.BLOCK_M, "num_warps": ra.NUM_WARPS, "runs": [], "sdpa": [],
    }  # fmt: skip
    torch.manual_seed(0)
    for seq in SEQS:
        for d, bn in CONFIGS:
            q, k, v = (torch.randn(HEADS * seq, d, device="cuda", dtype=torch.bfloat16)
                       for _ in range(3))  # fmt: skip
            scale = 1.0 / math.sqrt(d)
            flops = 4.0 * HEADS * seq * seq * d
            q4, k4, v4 = (t.view(1, HEADS, seq, d) for t in (q, k, v))
            ms = statistics.median(
                do_bench(
                    lambda t=(q4, k4, v4), c=scale: F.scaled_dot_product_attention(*t, scale=c)
                )
                for _ in range(args.passes)
            )
            out["sdpa"].append({"seq": seq, "head_dim": d, "ms": ms, "tflops": flops / ms / 1e9})
            ref = ra.reference(q, k, v, scale, seq) if seq <= 4096 else None
            rows, runs, baseline = [], [], {}
            for mode in bench_reuse_gpu.ORDER:
                for stages in range(2, 8):
                    o = torch.full_like(q, float("nan"))
                    plan = gl.constexpr(ra.reuse_plan(stages, d, bn))

                    def run(o=o, stages=stages, mode=mode, plan=plan, bn=bn, seq=seq, qkv=(q, k, v),
                            scale=scale) -> Any:  # fmt: skip
                        return ra.attention_kernel[ra.grid(HEADS, seq)](
                            *ra.descriptors(*qkv, o, bn), seq, scale, STAGES=stages,
                            MODE=gl.constexpr(mode), PLAN=plan, num_warps=ra.NUM_WARPS,
                        )  # fmt: skip

                    problem = {"seq": seq, "head_dim": d, "block_n": bn}
                    row = bench_reuse_gpu.launch_once(run, o, mode, stages, baseline, ref, props,
                                                      problem)  # fmt: skip
                    if row is not None:
                        rows.append(row)
                        runs.append(run)
            bench_reuse_gpu.time_in_passes(rows, runs, args.passes, flops, out["runs"])
    scratch.write(args.out, args.out_name, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
