"""What ``alias-spec plan`` costs next to compiling the kernel it checks.

    python benchmarks/bench_plan.py [--repeat N] [NAME ...]

Compiles kernels of the plan corpus (``tests/plan_cases/corpus.py``) for sm_90 with the
installed Triton (no GPU needed, a fresh compile cache each time) and times, per kernel:
the compile (``triton.compile``), the validation of its compiled texts (liveness, the plan proof
and the lowering check), and ``check_compiled`` end to end (which also starts the release's
interpreter to recover the plan). Prints the times (best of N) and the ratios to the compile.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "plan_cases"))

DEFAULT = ["matmul_mma2_s3", "matmul_s3", "attention_fwd_mma2", "softmax", "layer_norm",
           "gluon_tma_wgmma_s3", "gluon_warp_specialized", "call_frame"]  # fmt: skip


def _compile(k: Any) -> tuple[Any, float]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.experimental.gluon._runtime import GluonASTSource

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-plan-")
    if k.gluon:
        src = GluonASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs))
    else:
        src = ASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs),
                        attrs=k.attrs())  # fmt: skip
    t0 = time.perf_counter()
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(k.options))
    return compiled, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", default=DEFAULT)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)

    import corpus
    import kernels as call_kernels

    from alias_spec.plan.api import check_compiled, check_texts
    from alias_spec.plan.runner import allocate

    known = {k.name: k for k in corpus.kernels()}
    for name, (fn, sig) in call_kernels.KERNELS.items():
        known[name] = corpus.Kernel(name, fn, sig, {}, {"num_warps": 4}, gluon=True)
    missing = [n for n in args.names if n not in known]
    if missing:
        print(f"bench_plan: unknown kernel {', '.join(missing)}", file=sys.stderr)
        return 2
    _compile(known[args.names[0]])  # warm Triton's imports before timing anything
    print(f"{'kernel':24} {'compile s':>10} {'validate s':>11} {'ratio':>6} "
          f"{'end-to-end s':>13} {'ratio':>6}  verdict")  # fmt: skip
    total_c = total_v = total_e = 0.0
    for name in args.names:
        k = known[name]
        best_c = best_v = best_e = float("inf")
        status = ""
        for _ in range(max(1, args.repeat)):
            compiled, t_c = _compile(k)
            done = allocate(compiled.asm["ttgir"])  # the plan, recovered once, not timed here
            t0 = time.perf_counter()
            report = check_texts(compiled.asm["ttgir"], compiled.asm["llir"], f"{name}.ttgir",
                                 allocated=(done.module, done.debug, done.version))  # fmt: skip
            t_v = time.perf_counter() - t0
            t0 = time.perf_counter()
            check_compiled(compiled)
            t_e = time.perf_counter() - t0
            best_c, best_v, best_e = min(best_c, t_c), min(best_v, t_v), min(best_e, t_e)
            status = report.status
        total_c, total_v, total_e = total_c + best_c, total_v + best_v, total_e + best_e
        print(f"{name:24} {best_c:10.3f} {best_v:11.3f} {best_v / best_c:6.2f} "
              f"{best_e:13.3f} {best_e / best_c:6.2f}  {status}")  # fmt: skip
    print(f"{'all':24} {total_c:10.3f} {total_v:11.3f} {total_v / total_c:6.2f} "
          f"{total_e:13.3f} {total_e / total_c:6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
