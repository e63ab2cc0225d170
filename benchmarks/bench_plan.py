"""What ``alias-spec plan`` costs next to compiling the kernel it checks, and how it scales.

    python -m benchmarks.bench_plan [--repeat N] [NAME ... | --all] [--scaling [--no-compile]]
                                    [--out FILE.json]
    python -m benchmarks.bench_plan --cache DIR [--sample N] [--seed S] [--out FILE.json]
                                    [--compile-times FILE.json [--jobs N]] [--races]

Run from the checkout's root (the plan corpus is imported from ``tests/plan/cases/``).

Compiles kernels of the plan corpus (``tests/plan/cases/corpus.py``) for sm_90 with the
installed Triton (no GPU needed, a fresh compile cache each time) and times, per kernel:
the compile (``triton.compile``), the validation of its compiled texts (liveness, the plan proof
and the lowering check), and ``check_compiled`` end to end (which also starts the release's
interpreter to recover the plan). Prints the times (best of N), the ratios to the compile and
the size of the texts judged, then the distribution of the ratios (median, p90, p99, max).

``--cache DIR`` takes the kernels of a Triton cache instead (the real-world corpus's packed
caches, unpacked: ``tests/plan/cases/realworld/h200/*.tar.xz``), where the Python source is
not at hand: per kernel, the compile from its TTGIR on (``triton.compile`` of the ``.ttgir``:
LLVM IR, PTX and ptxas for sm_90; the frontend and the TTIR and TTGIR passes are left out, so
the compile is undercounted and the ratio overstated) against the plan of the kernel as
``alias-spec plan DIR`` judges it (``batch.judge_texts``, the allocation recovered included).
``--sample N`` judges N kernels drawn with ``--seed`` (default: all); ``--repeat N`` keeps the
best of N runs of each (default 1 here), so that a load spike costs a run, not a ratio.
``--compile-times FILE`` takes each kernel's whole compile (the frontend and every stage, as
Triton's compilation listener timed it) from the ``compile_times.json`` that ``capture.py``
wrote while the kernels were compiled, instead of compiling the TTGIR here: the ratio of the
target, when the plan is timed on the machine that compiled (``--jobs N``: N kernels judged at
once, one process each; run on a machine with more cores than N, so that each plan has a core
of its own).
``--races`` (either table) also times each kernel's plan with the race check (``plan --races``:
the same validation and every pair of shared accesses judged), apart, with its verdict, and
prints that distribution too.

``--scaling`` times the validator on generated modules of growing size: the plan proof on TTGIR
of n allocations in n blocks (``tools/plan/scaling.py``), the lowering check on LLVM IR
of n nested pipelined loops (``tools/plan/soundness/llir/make_scaling.py``); a part whose
generator is absent is skipped with a message. Per size it prints the seconds and the seconds
per unit of n, and the ratio of the largest size's per-unit time to the smallest's (about 1:
linear; about 8 over 8x the size: quadratic); ``--no-compile`` leaves the compile table out.
Nothing is written but the compile caches (a temporary directory, removed at the end) and,
with ``--out``, a JSON of every row.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
TTGIR_SIZES = (250, 500, 1000, 2000)
LLIR_SIZES = (4, 8, 16, 32, 64)
CACHE: list[str] = []  # the temporary directory the compile caches go under

DEFAULT = ["matmul_mma2_s3", "matmul_s3", "attention_fwd_mma2", "softmax", "layer_norm",
           "gluon_tma_wgmma_s3", "gluon_warp_specialized", "call_frame"]  # fmt: skip


def _compile(k: Any) -> tuple[Any, float]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.experimental.gluon._runtime import GluonASTSource

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-", dir=CACHE[0])
    if k.gluon:
        src = GluonASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs))
    else:
        src = ASTSource(k.fn, signature=dict(k.signature), constexprs=dict(k.constexprs),
                        attrs=k.attrs())  # fmt: skip
    t0 = time.perf_counter()
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(k.options))
    return compiled, time.perf_counter() - t0


def compile_table(names: list[str], repeat: int,
                  races: bool = False) -> list[dict[str, Any]] | None:  # fmt: skip
    """The compile-vs-plan table; None (after a message) when a name is unknown. ``races``:
    also the validation with the race check (``plan --races``), timed apart."""
    from alias_spec.plan.api import check_compiled, check_texts
    from alias_spec.plan.runner import allocate
    from tests.plan.cases import corpus
    from tests.plan.cases import kernels as call_kernels

    known = {k.name: k for k in corpus.kernels()}
    for name, (fn, sig) in call_kernels.KERNELS.items():
        known[name] = corpus.Kernel(name, fn, sig, {}, {"num_warps": 4}, gluon=True)
    missing = [n for n in names if n not in known]
    if missing:
        print(f"bench_plan: unknown kernel {', '.join(missing)}", file=sys.stderr)
        return None
    _compile(known[names[0]])  # warm Triton's imports before timing anything
    print(f"{'kernel':24} {'compile s':>10} {'validate s':>11} {'ratio':>6} {'end-to-end s':>13}"
          f" {'ratio':>6} {'ttgir KiB':>10} {'llir KiB':>9}  verdict"
          + (f"  {'races s':>8} {'ratio':>6}  verdict" if races else ""))  # fmt: skip
    rows: list[dict[str, Any]] = []
    for name in names:
        k = known[name]
        best_c = best_v = best_e = best_r = float("inf")
        status, sizes, status_r = "", (0, 0), ""
        for _ in range(max(1, repeat)):
            compiled, t_c = _compile(k)
            ttgir, llir = compiled.asm["ttgir"], compiled.asm["llir"]
            done = allocate(ttgir)  # the plan, recovered once, not timed here
            allocated = (done.module, done.debug, done.version)
            t0 = time.perf_counter()
            report = check_texts(ttgir, llir, f"{name}.ttgir", allocated=allocated)
            t_v = time.perf_counter() - t0
            if races:
                t0 = time.perf_counter()
                status_r = check_texts(ttgir, llir, f"{name}.ttgir", races=True,
                                       allocated=allocated).status  # fmt: skip
                best_r = min(best_r, time.perf_counter() - t0)
            t0 = time.perf_counter()
            check_compiled(compiled)
            t_e = time.perf_counter() - t0
            best_c, best_v, best_e = min(best_c, t_c), min(best_v, t_v), min(best_e, t_e)
            status, sizes = report.status, (len(ttgir.encode()), len(llir.encode()))
        rows.append({"kernel": name, "compile_s": best_c, "validate_s": best_v,
                     "end_to_end_s": best_e, "ttgir_bytes": sizes[0], "llir_bytes": sizes[1],
                     "status": status})  # fmt: skip
        shown = ""
        if races:
            rows[-1].update(races_s=best_r, races_status=status_r)
            shown = f"  {best_r:8.3f} {best_r / best_c:6.2f}  {status_r}"
        print(f"{name:24} {best_c:10.3f} {best_v:11.3f} {best_v / best_c:6.2f} "
              f"{best_e:13.3f} {best_e / best_c:6.2f} {sizes[0] / 1024:10.1f} "
              f"{sizes[1] / 1024:9.1f}  {status}{shown}")  # fmt: skip
    tc, tv, te = (sum(r[f] for r in rows) for f in ("compile_s", "validate_s", "end_to_end_s"))
    print(f"{'all':24} {tc:10.3f} {tv:11.3f} {tv / tc:6.2f} {te:13.3f} {te / tc:6.2f}")
    fields = [("validate / compile", "validate_s"), ("end-to-end / compile", "end_to_end_s")]
    for what, field in fields + ([("races / compile", "races_s")] if races else []):
        ratios = sorted(r[field] / r["compile_s"] for r in rows)
        print(
            f"{what:24} over {len(ratios)} kernels: median {_pct(ratios, 50):.2f}, "
            f"p90 {_pct(ratios, 90):.2f}, p99 {_pct(ratios, 99):.2f}, max {ratios[-1]:.2f}"
        )
    return rows


def _judged(k: Any, races: bool = False) -> tuple[float, str]:
    """One kernel's plan (``races``: with the race check): its seconds and its verdict."""
    from alias_spec.plan import batch

    t0 = time.perf_counter()
    verdict = batch.judge_files(k, races=races)
    return time.perf_counter() - t0, verdict.status


def _judged_both(k: Any, races: bool,
                 repeat: int = 1) -> tuple[float, str, float | None, str | None]:  # fmt: skip
    """The plan's seconds (the best of ``repeat`` runs) and verdict, then (``races``) those
    with the race check too (in a worker process with --jobs)."""
    t_p, status = min(_judged(k) for _ in range(max(1, repeat)))
    t_r, status_r = (min(_judged(k, True) for _ in range(max(1, repeat))) if races else
                     (None, None))  # fmt: skip
    return t_p, status, t_r, status_r


def _warm(k: Any) -> None:
    """A pool worker's imports and first allocation worker, not timed."""
    _judged(k)


def cache_table(root: str, sample: int | None, seed: int,
                recorded: dict[str, Any] | None = None, jobs: int = 1,
                races: bool = False, repeat: int = 1) -> list[dict[str, Any]] | None:  # fmt: skip
    """Compile against plan, per kernel of a Triton cache; None after a message. The compile
    is ``recorded`` (``capture.py``'s compile_times.json: the whole compile as Triton timed
    it, on the machine that ran the capture), else the compile from TTGIR on, timed here.
    ``jobs``: kernels judged at once, each in a process of its own (with recorded times).
    ``races``: each kernel judged again with the race check (``plan --races``), timed apart.
    ``repeat``: each time the best of that many runs (a load spike of the machine costs one
    run, not the kernel's ratio)."""
    import random

    from alias_spec.plan import batch

    try:
        found = batch.find_kernels(root)
    except batch.BatchInputError as exc:
        print(f"bench_plan: {exc}", file=sys.stderr)
        return None
    if recorded is not None:
        times = recorded.get("kernels", {})
        had = len(found)
        found = [k for k in found if _recorded_key(root, k) in times]
        print(f"{len(found)} of {had} kernels have a recorded compile time", flush=True)
    if sample is not None and sample < len(found):
        found = sorted(random.Random(seed).sample(found, sample), key=lambda k: k.ttgir)
    print(f"{len(found)} kernels of {root}", flush=True)
    if not found:
        return []
    what = "compile s" if recorded is None else "whole s"
    extra = f" {'races s':>8} {'ratio':>6}" if races else ""
    print(f"{'kernel':40} {what:>10} {'plan s':>8} {'ratio':>6}{extra}  verdict")
    rows: list[dict[str, Any]] = []

    def row(k: Any, t_c: float, t_p: float, status: str, t_r: float | None = None,
            status_r: str | None = None) -> None:  # fmt: skip
        rows.append({"kernel": k.name, "ttgir": os.path.relpath(k.ttgir, root),
                     "compile_s": t_c, "plan_s": t_p, "status": status})  # fmt: skip
        shown = ""
        if t_r is not None:
            rows[-1].update(races_s=t_r, races_status=status_r)
            shown = f" {t_r:8.3f} {t_r / t_c:6.2f}"
            status = status if status_r == status else f"{status}, with races {status_r}"
        print(f"{k.name[:40]:40} {t_c:10.3f} {t_p:8.3f} {t_p / t_c:6.2f}{shown}  {status}",
              flush=True)  # fmt: skip

    if recorded is not None:
        times = recorded["kernels"]
        for k, judged in _judge_all(found, jobs, races, repeat):
            row(k, times[_recorded_key(root, k)]["compile_s"], *judged)
    else:
        _warm(found[0])  # the plan's imports and its allocation worker, not timed
        for k in found:
            times_c = [_compile_ttgir(k) for _ in range(max(1, repeat))]
            if None not in times_c:
                row(k, min(times_c), *_judged_both(k, races, repeat))  # type: ignore[type-var]
    if rows:
        ratios = sorted(r["plan_s"] / r["compile_s"] for r in rows)
        tc, tp = sum(r["compile_s"] for r in rows), sum(r["plan_s"] for r in rows)
        print(f"all: compile {tc:.1f} s, plan {tp:.1f} s, ratio {tp / tc:.2f}")
        print(f"plan / compile over {len(ratios)} kernels: median {_pct(ratios, 50):.2f}, "
              f"p90 {_pct(ratios, 90):.2f}, p99 {_pct(ratios, 99):.2f}, "
              f"max {ratios[-1]:.2f}")  # fmt: skip
        if races:
            ratios = sorted(r["races_s"] / r["compile_s"] for r in rows)
            tr = sum(r["races_s"] for r in rows)
            moved = Counter(f"{r['status']} -> {r['races_status']}" for r in rows)
            print(f"with races: plan {tr:.1f} s, ratio {tr / tc:.2f}; verdicts "
                  + ", ".join(f"{n} {k}" for k, n in sorted(moved.items())))  # fmt: skip
            print(f"plan --races / compile over {len(ratios)} kernels: median "
                  f"{_pct(ratios, 50):.2f}, p90 {_pct(ratios, 90):.2f}, "
                  f"p99 {_pct(ratios, 99):.2f}, max {ratios[-1]:.2f}")  # fmt: skip
    return rows


def _recorded_key(root: str, k: Any) -> str:
    """The key capture.py records a kernel's compile under: its cache folder and name."""
    return f"{os.path.basename(os.path.dirname(k.ttgir))}/{k.name}"


def _judge_all(found: list[Any], jobs: int, races: bool,
               repeat: int = 1) -> Iterable[tuple[Any, tuple[Any, ...]]]:  # fmt: skip
    """Each kernel with its plan's seconds and verdict (``_judged_both``), as each is judged."""
    if jobs <= 1:
        _warm(found[0])
        for k in found:
            yield k, _judged_both(k, races, repeat)
        return
    import functools
    import multiprocessing

    both = functools.partial(_judged_both, races=races, repeat=repeat)
    with multiprocessing.get_context("spawn").Pool(jobs, _warm, (found[0],)) as pool:
        yield from zip(found, pool.imap(both, found, chunksize=1), strict=True)


def _compile_ttgir(k: Any) -> float | None:
    """Seconds to compile the kernel's TTGIR for sm_90 here (None, said, when it fails)."""
    import triton
    from triton.backends.compiler import GPUTarget

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-", dir=CACHE[0])
    try:
        if not CACHE[1:]:  # Triton's imports and the backend's first use, not timed
            triton.compile(k.ttgir, target=GPUTarget("cuda", 90, 32))
            os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-", dir=CACHE[0])
            CACHE.append("warm")
        t0 = time.perf_counter()
        triton.compile(k.ttgir, target=GPUTarget("cuda", 90, 32))
        return time.perf_counter() - t0
    except Exception as exc:  # a kernel this Triton cannot rebuild is left out, said
        print(f"{k.name[:40]:40} not compiled: {type(exc).__name__}", flush=True)
        return None


def _pct(sorted_values: list[float], q: float) -> float:
    """The q-th percentile, nearest rank."""
    k = max(0, min(len(sorted_values) - 1, -(-len(sorted_values) * q // 100) - 1))
    return sorted_values[int(k)]


def _load(path: Path, name: str) -> Any:
    """The generator module at ``path`` (None, with a message, when it or ``name`` is absent)."""
    if not path.is_file():
        print(f"bench_plan: {path.relative_to(ROOT)} is absent: its part is skipped")
        return None
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, name, None)):
        print(f"bench_plan: {path.relative_to(ROOT)} has no {name}(): its part is skipped")
        return None
    return module


def _time_ttgir(sizes: Iterable[int], repeat: int) -> Iterable[dict[str, Any]]:
    gen = _load(TOOLS / "plan" / "scaling.py", "scaling_allocs")
    if gen is None:
        return
    from alias_spec.plan.plan import check_plan

    for n in sizes:
        text = gen.scaling_allocs(n)  # carries its plan: no Triton run to time
        best, status = float("inf"), ""
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            report, _, _ = check_plan(text, f"scaling_{n}.ttgir")
            best, status = min(best, time.perf_counter() - t0), report.status
        yield {"n": n, "bytes": len(text.encode()), "seconds": best, "status": status}


def _time_llir(sizes: Iterable[int], repeat: int) -> Iterable[dict[str, Any]]:
    gen = _load(TOOLS / "plan" / "soundness" / "llir" / "make_scaling.py", "scaling")
    if gen is None:
        return
    best: dict[int, dict[str, Any]] = {}
    for _ in range(max(1, repeat)):
        for row in gen.scaling(tuple(sizes)):  # it times the lowering check itself
            n = int(row["n"])
            if n not in best or row["seconds"] < best[n]["seconds"]:
                best[n] = {"n": n, "bytes": int(row["bytes"]), "seconds": float(row["seconds"]),
                           "status": str(row["status"])}  # fmt: skip
    yield from best.values()


def scaling_table(repeat: int) -> dict[str, list[dict[str, Any]]]:
    parts: dict[str, tuple[str, Callable[..., Iterable[dict[str, Any]]], tuple[int, ...]]] = {
        "ttgir": ("plan proof, TTGIR of n allocations in n blocks", _time_ttgir, TTGIR_SIZES),
        "llir": ("lowering check, LLVM IR of n nested loops", _time_llir, LLIR_SIZES),
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for key, (title, timer, sizes) in parts.items():
        print(f"\n{title} (best of {max(1, repeat)})")
        rows = []
        for row in timer(sizes, repeat):
            row["seconds_per_n"] = row["seconds"] / row["n"]
            rows.append(row)
            per = 1e3 * row["seconds_per_n"]
            print(f"  n={row['n']:<6} {row['bytes'] / 1024:9.1f} KiB {row['seconds']:8.3f} s "
                  f"{per:9.3f} ms/n  {row['status']}", flush=True)  # fmt: skip
        if len(rows) >= 2:
            lo, hi = min(rows, key=lambda r: r["n"]), max(rows, key=lambda r: r["n"])
            ratio = hi["seconds_per_n"] / lo["seconds_per_n"]
            print(f"  per-n time, n={hi['n']} over n={lo['n']} ({hi['n'] // lo['n']}x the size): "
                  f"{ratio:.2f} (about 1 = linear)")  # fmt: skip
        out[key] = rows
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help=f"corpus kernels (default: {' '.join(DEFAULT)})")
    p.add_argument("--all", action="store_true", help="every kernel of the corpus")
    p.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="runs per measurement, the best kept (default 3; with --cache 1)",
    )
    p.add_argument("--scaling", action="store_true",
                   help="also time generated modules of growing size")  # fmt: skip
    p.add_argument("--no-compile", action="store_true", help="leave the compile table out")
    p.add_argument("--cache", metavar="DIR", help="time the kernels of a Triton cache instead")
    p.add_argument("--sample", type=int, metavar="N", help="with --cache: N kernels at random")
    p.add_argument("--seed", type=int, default=0, help="with --cache: the sample's seed")
    p.add_argument("--compile-times", metavar="FILE",
                   help="with --cache: the whole compile times capture.py recorded "
                   "(compile_times.json), instead of compiling the TTGIR here")  # fmt: skip
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="with --compile-times: kernels judged at once, one process each",
    )
    p.add_argument(
        "--races",
        action="store_true",
        help="also time each kernel's plan with the race check (plan --races)",
    )
    p.add_argument("--out", metavar="FILE", help="also write every row as JSON here")
    args = p.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        p.error("--sample must be at least 1")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if (args.compile_times or args.jobs > 1) and not args.cache:
        p.error("--compile-times and --jobs go with --cache")
    if args.jobs > 1 and not args.compile_times:
        p.error("--jobs needs --compile-times (compiles timed here run one at a time)")
    if args.repeat is not None and args.repeat < 1:
        p.error("--repeat must be at least 1")
    args.repeat = args.repeat or (1 if args.cache else 3)
    recorded = None
    if args.compile_times:
        try:
            recorded = json.loads(Path(args.compile_times).read_text())
            if not isinstance(recorded, dict) or not isinstance(recorded.get("kernels"), dict):
                raise ValueError("no kernels")
        except (OSError, ValueError) as exc:
            print(f"bench_plan: --compile-times {args.compile_times}: not a compile_times.json "
                  f"({exc})", file=sys.stderr)  # fmt: skip
            return 2
    if args.cache:
        with tempfile.TemporaryDirectory(prefix="bench-plan-") as cache:
            CACHE[:] = [cache]
            rows = cache_table(args.cache, args.sample, args.seed, recorded, args.jobs,
                               args.races, args.repeat)  # fmt: skip
        if rows is None:
            return 2
        if args.out:
            Path(args.out).write_text(json.dumps({"cache": rows}, indent=1) + "\n")
            print(f"wrote {args.out}")
        return 0
    if args.no_compile and not args.scaling:
        p.error("--no-compile leaves nothing to run without --scaling")
    doc: dict[str, Any] = {"repeat": args.repeat}
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as cache:
        CACHE[:] = [cache]
        if not args.no_compile:
            names = args.names or DEFAULT
            if args.all:
                from tests.plan.cases import corpus

                names = [k.name for k in corpus.kernels()]
            rows = compile_table(names, args.repeat, args.races)
            if rows is None:
                return 2
            doc["compile"] = rows
        if args.scaling:
            doc["scaling"] = scaling_table(args.repeat)
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
