"""What aliasing the epilogue tile onto the mainloop ring buys, measured on a GPU in one run.

    python -m benchmarks.bench_reuse_gpu [--out FILE.json] [--quick]

For every pipeline depth that fits and every way of getting shared memory (``reuse_matmul``:
planned alias, three allocations up front, C allocated late), over a sweep of shapes: the
shared memory per CTA Triton allocates, the CTAs per SM it allows (shared memory and registers,
from the device's limits), TFLOP/s, and cuBLAS (torch.matmul) on the same shape. Every kernel's
result is compared with the upfront kernel's, byte for byte (the same instructions on the same
data), and with an fp32 reference. Needs CUDA, torch and z3 (the planner runs at compile time).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
from typing import Any

from benchmarks import reuse_matmul as rm
from benchmarks import scratch

SHAPES = ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024),
          (16384, 16384, 4096))  # fmt: skip
QUICK_SHAPES = ((2048, 2048, 2048), (4096, 4096, 4096))
SM_RESERVED = 1024  # shared memory the driver keeps per CTA on sm_90
# Upfront first: the other modes are compared byte for byte with its result at the same depth.
ORDER = ("upfront", "late", "planned")


def occupancy(shared: int, regs: int, props: Any) -> int:
    """CTAs per SM allowed by shared memory and registers (threads: 128 per CTA)."""
    by_smem = props.shared_memory_per_multiprocessor // (shared + SM_RESERVED)
    threads = rm.NUM_WARPS * 32
    by_regs = props.regs_per_multiprocessor // max(1, regs * threads)
    return int(min(by_smem, by_regs, props.max_threads_per_multi_processor // threads))


def parser(doc: str, out: str) -> argparse.ArgumentParser:
    """The options both GPU benchmarks take."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", default=None, help=scratch.HELP.format(out))
    ap.set_defaults(out_name=out)
    ap.add_argument("--passes", type=int, default=3, help="timing passes (default: %(default)s)")
    return ap


def machine(props: Any) -> dict[str, Any]:
    """What a result file records of the machine and the software it ran on."""
    import torch
    import triton

    return {
        "device": props.name,
        "sms": props.multi_processor_count,
        "smem_per_block_optin": props.shared_memory_per_block_optin,
        "smem_per_sm": props.shared_memory_per_multiprocessor,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def launch_once(
    run: Any,
    out: Any,
    mode: str,
    stages: int,
    baseline: dict[int, Any],
    ref: Any,
    props: Any,
    problem: dict[str, Any],
) -> dict[str, Any] | None:
    """Launch one configuration once. None when it does not fit (shared memory, or a plan the
    planner refuses); else its row: the result ``out`` compared byte for byte with the upfront
    run of the same depth (kept in ``baseline``) and with ``ref`` (None: not compared)."""
    import torch
    import triton
    from triton.compiler.errors import CompilationError

    try:
        compiled = run()
    except (triton.runtime.errors.OutOfResources, CompilationError) as exc:
        print(f"{mode} stages={stages}: {str(exc).strip().splitlines()[-1]}", flush=True)
        return None
    torch.cuda.synchronize()
    data = out.view(torch.uint8)
    same = None
    if mode == "upfront":
        baseline[stages] = data.clone()
    elif stages in baseline:
        same = bool(torch.equal(data, baseline[stages]))
    err = None if ref is None else (out.float() - ref.float()).abs().max().item()
    shared = int(compiled.metadata.shared)
    return {
        **problem, "mode": mode, "stages": stages, "shared": shared,
        "ctas_per_sm": occupancy(shared, int(compiled.n_regs), props),
        "regs": int(compiled.n_regs), "spills": int(compiled.n_spills),
        "max_abs_err": err, "equals_upfront": same, "ms_passes": [],
    }  # fmt: skip


def time_in_passes(rows: list[dict[str, Any]], runs: list[Any], passes: int, flops: float,
                   out: list[dict[str, Any]]) -> None:  # fmt: skip
    """Time every run in passes, each in another order, so that drift in clocks or temperature
    does not favour whichever mode runs first; the median over passes is reported."""
    from triton.testing import do_bench

    for p in range(passes):
        for i in list(range(len(rows)))[:: 1 if p % 2 == 0 else -1]:
            rows[i]["ms_passes"].append(do_bench(runs[i]))
    for row in rows:
        row["ms"] = statistics.median(row["ms_passes"])
        row["tflops"] = flops / row["ms"] / 1e9
        out.append(row)
        print(json.dumps(row), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__, "reuse_gpu.json")
    ap.add_argument("--quick", action="store_true", help="two shapes, three depths")
    args = ap.parse_args(argv)
    if args.passes < 1:
        ap.error("--passes must be at least 1")

    import torch
    from triton.experimental.gluon import language as gl
    from triton.testing import do_bench

    props = torch.cuda.get_device_properties(0)
    shapes = QUICK_SHAPES if args.quick else SHAPES
    depths = (2, 3, 4) if args.quick else (2, 3, 4, 5, 6, 7)
    out: dict[str, Any] = {
        **machine(props),
        "tile": [rm.BM, rm.BN, rm.BK],
        "num_warps": rm.NUM_WARPS,
        "runs": [],
        "cublas": [],
    }
    torch.manual_seed(0)
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        ref = (a.float() @ b.float()).to(torch.bfloat16)
        ms = statistics.median(
            do_bench(lambda a=a, b=b: torch.matmul(a, b)) for _ in range(args.passes)
        )
        out["cublas"].append({"shape": [m, n, k], "ms": ms, "tflops": flops / ms / 1e9})
        print(f"cuBLAS {m}x{n}x{k}: {flops / ms / 1e9:.0f} TFLOP/s", flush=True)
        baseline: dict[int, Any] = {}
        rows, runs = [], []
        for mode in ORDER:
            for stages in depths:
                c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                descs = rm.descriptors(a, b, c)
                plan = gl.constexpr(rm.reuse_plan(stages))

                def run(descs=descs, dims=(m, n, k), stages=stages, mode=mode, plan=plan) -> Any:
                    return rm.matmul_kernel[rm.grid(dims[0], dims[1])](
                        *descs, *dims, STAGES=stages, MODE=gl.constexpr(mode), PLAN=plan,
                        num_warps=rm.NUM_WARPS,
                    )  # fmt: skip

                row = launch_once(run, c, mode, stages, baseline, ref, props,
                                  {"shape": [m, n, k]})  # fmt: skip
                if row is not None:
                    rows.append(row)
                    runs.append(run)
        time_in_passes(rows, runs, args.passes, flops, out["runs"])
    scratch.write(args.out, args.out_name, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
