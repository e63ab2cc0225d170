"""Write ``docs/benchmarks.md`` (and its plots) from the reuse benchmarks' measured results.

    python benchmarks/report_reuse.py [--check] [--no-plots]

Reads ``benchmarks/results/reuse_gpu_h200.json`` (``bench_reuse_gpu.py`` on an H200),
``reuse_price.json`` (``bench_reuse_price.py``) and ``reuse_code.json``
(``bench_reuse_code.py``). The page is a function of those files alone, so
``tests/benchmarks/test_benchmarks_doc.py`` re-renders it and fails when it is stale; the plots
(matplotlib PNGs under ``docs/img/``) are drawn only when writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"
IMG = ROOT / "docs" / "img"
# The H200's dense bf16 ceiling as measured on such a machine (the issue's reference point).
CEILING_TFLOPS = 790.0
NOISY = 0.10  # pass-to-pass spread above which a shape's timings are not conclusive
MODES = {"planned": "planned alias", "upfront": "three allocations", "late": "C allocated late"}


def load(results: Path = RESULTS) -> dict[str, Any]:
    out = {}
    for key, name in (("gpu", "reuse_gpu_h200.json"), ("price", "reuse_price.json"),
                      ("code", "reuse_code.json"),
                      ("attention", "reuse_attention_h200.json")):  # fmt: skip
        path = results / name
        out[key] = json.loads(path.read_text()) if path.is_file() else None
    return out


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    rule = ["---:" if i else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines + [""]


def _shape(s: list[int]) -> str:
    return "x".join(str(d) for d in s)


def _spread(runs: list[dict[str, Any]], **problem: Any) -> float:
    """The largest relative difference between the timing passes of one run on the problem
    whose fields are ``problem``."""
    passes = [r["ms_passes"] for r in runs
              if all(r[k] == v for k, v in problem.items()) and r.get("ms_passes")]  # fmt: skip
    return max((max(p) / min(p) - 1 for p in passes), default=0.0)


def _best(runs: list[dict[str, Any]], mode: str, **problem: Any) -> dict[str, Any] | None:
    """The fastest run of ``mode`` on the problem whose fields are ``problem``."""
    mine = [r for r in runs if r["mode"] == mode and all(r[k] == v for k, v in problem.items())]
    return max(mine, key=lambda r: r["tflops"]) if mine else None


def _noisy(labels: list[str]) -> list[str]:
    """The sentence under a throughput table that names the rows whose passes disagree."""
    if not labels:
        return []
    return [f"*Spread* is the largest difference between the timing passes of one run on that "
            f"problem; above {NOISY:.0%} ({'; '.join(labels)}: tens of microseconds per call, "
            "where clocks and launch overhead dominate) the row says little.", ""]  # fmt: skip


def _byte_exact(runs: list[dict[str, Any]], names: dict[str, str]) -> str:
    """Per mode, how many runs equal the upfront run of the same depth byte for byte, of those
    that had one to compare with ("not compared" where none did)."""
    parts = []
    for mode, name in names.items():
        same = [r for r in runs if r["mode"] == mode and r["equals_upfront"] is not None]
        if mode != "upfront":
            exact = sum(1 for r in same if r["equals_upfront"])
            parts.append(f"{name}, {exact} of {len(same)}" if same else f"{name}, not compared")
    return "; ".join(parts)


def gpu_section(g: dict[str, Any]) -> list[str]:
    runs = g["runs"]
    shapes = [c["shape"] for c in g["cublas"]]
    cublas = {tuple(c["shape"]): c["tflops"] for c in g["cublas"]}
    out = ["## The payoff on an H200", "",
           f"Measured on an {g['device']} ({g['sms']} SMs, {g['smem_per_block_optin']} bytes of "
           f"shared memory per block at most, {g['smem_per_sm']} per SM), Triton {g['triton']}, "
           f"torch {g['torch']}, Python {g['python']}, {g['date']}. The kernel is "
           "`benchmarks/reuse_matmul.py`: a pipelined TMA + wgmma matmul, bf16 in, fp32 "
           f"accumulate, bf16 out, tile {_shape(g['tile'])}, {g['num_warps']} warps, its C tile "
           "written to shared memory and stored by TMA. *Planned alias*: the reuse planner "
           "places C over the A and B rings (`tle.gpu.alloc_reuse`); *three allocations*: A, B "
           "and C allocated at the start; *C allocated late*: C allocated after the mainloop, "
           "where Triton's own allocator may reuse the rings' bytes.", "",
           "### Shared memory per CTA and CTAs per SM", "",
           "Triton's `metadata.shared` (bytes) and the CTAs per SM it allows (shared memory "
           "and registers); a dash: the depth does not fit in shared memory.", ""]  # fmt: skip
    depths = sorted({r["stages"] for r in runs})
    rows = []
    for mode in MODES:
        row: list[Any] = [MODES[mode]]
        for s in depths:
            r = next((r for r in runs if r["mode"] == mode and r["stages"] == s), None)
            row.append(f"{r['shared']} ({r['ctas_per_sm']}/SM)" if r else "-")
        rows.append(row)
    out += _table(["mode"] + [f"{s} stages" for s in depths], rows)
    shared = {(r["mode"], r["stages"]): r["shared"] for r in runs}
    both = [s for s in depths if ("late", s) in shared and ("planned", s) in shared]
    same = [s for s in both if shared["late", s] == shared["planned", s]]
    deeper = [s for s in depths if ("planned", s) in shared and ("upfront", s) not in shared]
    out += [f"Allocated after the mainloop, C gets the rings' bytes from Triton's own allocator "
            f"at {len(same)} of {len(both)} depths (the same bytes as the planned alias): "
            "liveness-based reuse already covers a tile whose allocation the compiler sees "
            "start after the rings' last use. Allocated at the start, as a kernel that keeps C "
            "across tiles or declares its buffers up front does, it costs its own bytes"
            + (f", and {', '.join(map(str, deeper))} stages fit only with the alias."
               if deeper else "."), ""]  # fmt: skip
    out += ["![shared memory per CTA](img/benchmarks-smem.png)", "",
            "### Throughput", "",
            "Best over the pipeline depths of each mode (TFLOP/s, the depth in brackets), "
            "torch.matmul (cuBLAS) on the same shape, and the ratio of the planned alias to "
            f"the three allocations; the last column is the planned alias against the H200's "
            f"measured bf16 ceiling of about {CEILING_TFLOPS:.0f} TFLOP/s.", ""]  # fmt: skip
    rows = []
    for shape in shapes:
        best = {m: _best(runs, m, shape=shape) for m in MODES}
        cells = [f"{best[m]['tflops']:.0f} ({best[m]['stages']})" if best[m] else "-"
                 for m in MODES]  # fmt: skip
        p, u = best["planned"], best["upfront"]
        ratio = f"{p['tflops'] / u['tflops']:.3f}" if p and u else "-"
        ceiling = f"{p['tflops'] / CEILING_TFLOPS:.0%}" if p else "-"
        rows.append([_shape(shape), *cells, f"{cublas[tuple(shape)]:.0f}", ratio, ceiling,
                     f"{_spread(runs, shape=shape):.0%}"])  # fmt: skip
    out += _table(["M x N x K", *MODES.values(), "cuBLAS", "planned / three", "of ceiling",
                   "spread"], rows)  # fmt: skip
    out += _noisy([_shape(sh) for sh in shapes if _spread(runs, shape=sh) > NOISY])
    out += ["At the same depth the alias saves the C tile's bytes; where that lets one more "
            "CTA share an SM, it shows in throughput. Planned alias against three allocations "
            "at equal depth (TFLOP/s ratio):", ""]  # fmt: skip
    rows = []
    for shape in shapes:
        row = [_shape(shape)]
        for s in depths:
            p = next((r for r in runs if r["shape"] == shape and r["mode"] == "planned"
                      and r["stages"] == s), None)  # fmt: skip
            u = next((r for r in runs if r["shape"] == shape and r["mode"] == "upfront"
                      and r["stages"] == s), None)  # fmt: skip
            row.append(f"{p['tflops'] / u['tflops']:.2f}" if p and u else "-")
        rows.append(row)
    out += _table(["M x N x K"] + [f"{s} stages" for s in depths], rows)
    out += ["![throughput per depth](img/benchmarks-tflops.png)", ""]
    worst = max(r["max_abs_err"] for r in runs)
    out += ["### Correctness", "",
            f"Every run that has a three-allocation run at the same depth and shape is compared "
            f"with it byte for byte (same instructions on the same data), equal in: "
            f"{_byte_exact(runs, MODES)}. Against an fp32 reference rounded to bf16, the "
            f"largest difference over all {len(runs)} runs is {worst} (bf16 rounding of sums "
            "of up to 8192 products). `tests/gpu/test_reuse_gpu.py` checks the planned alias "
            "byte-exact against three allocations.", ""]  # fmt: skip
    return out


def attention_section(a: dict[str, Any]) -> list[str]:
    runs = a["runs"]
    sdpa = {(r["seq"], r["head_dim"]): r["tflops"] for r in a["sdpa"]}
    problems = list(dict.fromkeys((r["seq"], r["head_dim"], r["block_n"]) for r in runs))
    modes = {"planned": "planned alias", "upfront": "four allocations", "late": "O allocated late"}
    out = ["### Attention: the output tile over Q and the K/V ring", "",
           f"`benchmarks/reuse_attention.py`, measured on the same {a['device']} ({a['date']}, "
           f"Triton {a['triton']}, torch {a['torch']}): a flash-attention forward, bf16, "
           f"non-causal, {a['heads']} heads, {a['block_m']} query rows per CTA, "
           f"{a['num_warps']} warps, K and V in a ring of TMA-filled slots. *Planned alias*: "
           "the planner puts O (in use only in the epilogue) over Q and the ring. Best over "
           "the ring depths of each mode: TFLOP/s, (depth, shared bytes, CTAs per SM); torch's "
           "scaled_dot_product_attention on the same problem.", ""]  # fmt: skip
    rows = []
    for seq, d, bn in problems:
        best = {m: _best(runs, m, seq=seq, head_dim=d, block_n=bn) for m in modes}
        cells = [f"{b['tflops']:.0f} ({b['stages']}, {b['shared']}, {b['ctas_per_sm']}/SM)"
                 if b else "-" for b in best.values()]  # fmt: skip
        p, u = best["planned"], best["upfront"]
        ratio = f"{p['tflops'] / u['tflops']:.3f}" if p and u else "-"
        spread = _spread(runs, seq=seq, head_dim=d, block_n=bn)
        rows.append([seq, d, bn, *cells, f"{sdpa[seq, d]:.0f}", ratio, f"{spread:.0%}"])
    out += _table(["seq", "D", "key block", *modes.values(), "torch SDPA", "planned / four",
                   "spread"], rows)  # fmt: skip
    out += _noisy([f"seq {sq}, D {d}, key block {bn}" for sq, d, bn in problems
                   if _spread(runs, seq=sq, head_dim=d, block_n=bn) > NOISY])  # fmt: skip
    errs = [r["max_abs_err"] for r in runs if r["max_abs_err"] is not None]
    out += [f"Byte for byte against four allocations at the same depth, equal in: "
            f"{_byte_exact(runs, modes)}. Against an fp32 reference (sequences up to 4096), "
            f"the largest difference is {max(errs):.4f}; the most registers spilled by any run: "
            f"{max(r['spills'] for r in runs)} bytes. `tests/gpu/test_reuse_attention_gpu.py` "
            "checks the planned alias byte-exact against both other modes.", ""]  # fmt: skip
    return out


def code_section(c: dict[str, Any]) -> list[str]:
    out = ["## Zero-cost views", "",
           f"Compiled for {c.get('target', 'sm_90')} by Triton {c['triton']} ({c['date']}, "
           "`benchmarks/bench_reuse_code.py`): instructions in the SASS and the PTX of each "
           "mode, and what the planned alias adds or removes against the other two at the "
           "same depth. Opcodes that differ and are not address arithmetic or constants are "
           "listed as *other*; a removed one is an instruction the alias saves.", ""]  # fmt: skip
    rows = [[k["stages"], MODES.get(k["mode"], k["mode"]), k["shared"], k["sass_total"],
             k["ptx_total"]] for k in c["kernels"]]  # fmt: skip
    out += _table(["stages", "mode", "shared", "SASS instructions", "PTX instructions"], rows)
    rows = []
    for d in c["diffs"]:
        for kind in ("sass", "ptx"):
            diff = d[kind]
            added = ", ".join(f"{op} +{n}" for op, n in sorted(diff["added"].items())) or "none"
            removed = ", ".join(f"{op} -{n}" for op, n in sorted(diff["removed"].items()))
            other = ", ".join(diff["other"]) or "none"
            rows.append([d["stages"], MODES.get(d["against"], d["against"]), kind.upper(),
                         added, removed or "none", other])  # fmt: skip
    out += _table(["stages", "against", "code", "added", "removed", "other"], rows)
    sass = [d for d in c["diffs"] if d["against"] == "upfront"]
    none_added = sum(1 for d in sass if not d["sass"]["added"] and not d["ptx"]["added"])
    out += [f"Against the separate allocation the planned alias adds no instruction at "
            f"{none_added} of {len(sass)} depths, in SASS and PTX alike: its offset folds into "
            "the constants the code already has, and the C tile's own base address is no longer "
            "computed.", ""]  # fmt: skip
    return out


def price_section(p: dict[str, Any]) -> list[str]:
    out = ["## Price", "",
           f"Measured on the CPU ({p['cpus']} cores, Python {p['python']}, Triton "
           f"{p['triton']}, z3 {p['z3']}, {p['date']}; `benchmarks/bench_reuse_price.py`, best "
           "of several runs).", "",
           "### Planning time", "",
           "Buffers with lifetimes over 8 phases (each live in 1 to 3 consecutive phases, "
           "half of them 128-byte swizzled): the planner's time, its footprint, the lower "
           "bound (the most bytes in use in one phase), first fit and no reuse.", ""]  # fmt: skip
    rows = [[r["buffers"], f"{r['ms']:.1f}", r["total"], r["lower_bound"],
             "yes" if r["optimal"] else "no", r["first_fit"], r["no_reuse"]]
            for r in p["planning"]]  # fmt: skip
    out += _table(["buffers", "ms", "planned bytes", "lower bound", "proved smallest",
                   "first fit", "no reuse"], rows)  # fmt: skip
    out += ["![planning time](img/benchmarks-planning.png)", "",
            "### Against TLX's greedy rule", "",
            "The same group declarations (shared: one offset, size the largest; distinct: one "
            "after another, size the sum). The greedy rule ignores alignment: *misaligned* "
            "counts the starts it puts off their alignment (16 bytes, or the swizzle repeat). "
            "*Greedy, aligned* rounds each start up, the least a correct greedy rule needs; "
            "the planner may also reorder members of a distinct group.", ""]  # fmt: skip
    rows = [[r["declarations"], r["buffers"], r["no_reuse"], r["greedy"],
             len(r["greedy_misaligned"]), r["greedy_aligned"], r["planned"],
             "yes" if r["optimal"] else "no"] for r in p["greedy"]]  # fmt: skip
    out += _table(["declarations", "buffers", "no reuse", "greedy", "misaligned",
                   "greedy, aligned", "planned", "proved smallest"], rows)  # fmt: skip
    c = p["compile"]
    out += ["### The checks' share of a compile", "",
            f"The payoff kernel (planned, 3 stages) compiled for sm_90 in a fresh cache: "
            f"{c['compile_s'] * 1e3:.0f} ms in all, of which {c['checks_s'] * 1e6:.0f} us in the "
            f"generated checks ({c['check_calls']} calls, {c['checks_share']:.3%} of the compile; "
            f"target under 0.1%) and {c['planner_s'] * 1e3:.2f} ms in the planner "
            f"({c['planner_share']:.3%}).", ""]  # fmt: skip
    return out


def render(data: dict[str, Any]) -> str:
    out = ["<!-- generated by benchmarks/report_reuse.py from benchmarks/results/; "
           "do not edit -->", "", "# Benchmarks: planned shared-memory reuse", "",
           "What placing buffers over each other buys, what it costs, and what it compiles "
           "to. Every number below is read from the committed result files in "
           "`benchmarks/results/`; `python benchmarks/report_reuse.py` rewrites this page.",
           ""]  # fmt: skip
    if data["gpu"]:
        out += gpu_section(data["gpu"])
    if data["attention"]:
        out += attention_section(data["attention"])
    if data["code"]:
        out += code_section(data["code"])
    if data["price"]:
        out += price_section(data["price"])
    return "\n".join(out).rstrip() + "\n"


def plot(data: dict[str, Any], img: Path = IMG) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img.mkdir(parents=True, exist_ok=True)
    g = data["gpu"]
    if g:
        shapes = [c["shape"] for c in g["cublas"]]
        fig, axes = plt.subplots(1, len(shapes), figsize=(3.2 * len(shapes), 3), sharey=True)
        for ax, shape, cub in zip(axes, shapes, g["cublas"], strict=True):
            for mode in MODES:
                rs = sorted((r for r in g["runs"] if r["shape"] == shape and r["mode"] == mode),
                            key=lambda r: r["stages"])  # fmt: skip
                ax.plot([r["stages"] for r in rs], [r["tflops"] for r in rs], marker="o",
                        label=MODES[mode])  # fmt: skip
            ax.axhline(cub["tflops"], color="gray", ls="--", label="cuBLAS")
            ax.set_title(_shape(shape), fontsize=9)
            ax.set_xlabel("stages")
        axes[0].set_ylabel("TFLOP/s")
        axes[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(img / "benchmarks-tflops.png", dpi=110)
        plt.close(fig)
        fig, ax = plt.subplots(figsize=(5, 3))
        for mode in MODES:
            rs = sorted({r["stages"]: r for r in g["runs"] if r["mode"] == mode}.values(),
                        key=lambda r: r["stages"])  # fmt: skip
            ax.plot([r["stages"] for r in rs], [r["shared"] / 1024 for r in rs], marker="o",
                    label=MODES[mode])  # fmt: skip
        ax.axhline(g["smem_per_block_optin"] / 1024, color="red", ls=":", label="limit per block")
        ax.set_xlabel("stages")
        ax.set_ylabel("KiB per CTA")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(img / "benchmarks-smem.png", dpi=110)
        plt.close(fig)
    p = data["price"]
    if p:
        fig, ax = plt.subplots(figsize=(5, 3))
        rows = p["planning"]
        ax.plot([r["buffers"] for r in rows], [max(r["ms"], 1e-3) for r in rows], marker="o")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("buffers")
        ax.set_ylabel("planning time (ms)")
        fig.tight_layout()
        fig.savefig(img / "benchmarks-planning.png", dpi=110)
        plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/benchmarks.md is stale")
    ap.add_argument("--no-plots", action="store_true", help="write the page only")
    args = ap.parse_args(argv)
    data = load()
    text = render(data)
    if args.check:
        if not PAGE.is_file() or PAGE.read_text() != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run python benchmarks/report_reuse.py",
                  file=sys.stderr)  # fmt: skip
            return 1
        return 0
    PAGE.write_text(text)
    if not args.no_plots:
        plot(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
