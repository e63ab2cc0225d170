"""Launch every kernel of ``tests/plan/cases/ground_truth.py`` on a CUDA GPU and count the values
it gets wrong.

    python -m tools.plan.ground_truth_gpu --out FILE.json [--repeat N] [--only NAME ...]

Each kernel's outputs are compared, bit for bit, with a reference computed by torch (every
reference is exact in fp32). The JSON holds the device, the Triton and torch versions, the date
and, per kernel, the values and bytes compared and those wrong, with the verdict a right
validator gives and whether the kernel must corrupt (``ground_truth.CASES``). Needs only triton
and torch; exits 77 ("needs a CUDA GPU") where there is none, 1 when a kernel could not be run or
the counts contradict ``corrupts``, else 0. ``tests/gpu/test_plan_ground_truth.py`` runs the same
code under pytest and checks the committed result, ``tests/plan/cases/gpu_ground_truth_h200.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NO_GPU = 77  # the exit status of a test that could not run (automake's "skipped")
# Launches per racy kernel: the TMA race shows in some launches, not all.
REPEAT = 20
N = 1024  # elements of the 1-D kernels (ground_truth.N)


class NoGpu(RuntimeError):
    pass


def cuda_torch() -> Any:
    """torch, with a CUDA device; NoGpu otherwise."""
    try:
        import torch
    except ImportError:
        raise NoGpu("needs a CUDA GPU (torch is not installed)") from None
    if not torch.cuda.is_available():
        raise NoGpu("needs a CUDA GPU (torch sees none)")
    return torch


class Tally:
    """Values and bytes compared with the reference, and how many of them differ."""

    def __init__(self) -> None:
        self.values = self.values_wrong = self.bytes = self.bytes_wrong = 0

    def add(self, torch: Any, got: Any, want: Any) -> int:
        assert got.shape == want.shape and got.dtype == want.dtype == torch.float32
        bad = int((got.view(torch.int32) != want.view(torch.int32)).sum().item())
        self.values += got.numel()
        self.values_wrong += bad
        g, w = got.contiguous().view(torch.uint8), want.contiguous().view(torch.uint8)
        self.bytes += g.numel()
        self.bytes_wrong += int((g != w).sum().item())
        return bad

    def record(self) -> dict[str, int]:
        return {"values": self.values, "values_wrong": self.values_wrong,
                "bytes": self.bytes, "bytes_wrong": self.bytes_wrong}  # fmt: skip


def _distinct(torch: Any, n: int) -> Any:
    return torch.arange(n, dtype=torch.float32, device="cuda") * 0.25 + 1.0


def run_frame_constexpr(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    t = Tally()
    x = _distinct(torch, N)
    y = torch.zeros(N, dtype=torch.float32, device="cuda")
    out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
    fn[(1,)](x, y, out, num_warps=4)
    torch.cuda.synchronize()
    t.add(torch, out, x)  # the caller's buffer, held across the call
    # The callee's own result (a sum, so compared within rounding): the frame bug corrupts the
    # caller, not the callee.
    callee_ok = bool(torch.allclose(y, 3 * x + (3 * x).sum(), rtol=1e-4))
    return {**t.record(), "callee_result_ok": callee_ok}


def run_tma(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    import triton

    # The kernel builds its TMA descriptor on the device, in a global workspace.
    triton.set_allocator(
        lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda")
    )
    tiles, bm, bn = 4 * torch.cuda.get_device_properties(0).multi_processor_count, 64, 128
    want = torch.arange(1, tiles * bm * bn + 1, dtype=torch.float32, device="cuda")
    want = want.view(tiles * bm, bn)
    t, second = Tally(), Tally()
    launches_wrong = 0
    for _ in range(repeat):
        out = torch.full_like(want, float("nan"))
        chk = torch.full_like(want, float("nan"))
        fn[(tiles,)](out, chk, tiles * bm, num_warps=4)
        torch.cuda.synchronize()
        launches_wrong += t.add(torch, out, want) > 0  # what the TMA store wrote
        second.add(torch, chk, -want)  # the buffer that took the stored one's bytes
    return {**t.record(), "launches": repeat, "launches_wrong": launches_wrong,
            "second_buffer_values_wrong": second.values_wrong}  # fmt: skip


def run_asm_store(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    t = Tally()
    x = _distinct(torch, N)
    out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
    fn[(1,)](x, out, num_warps=4)
    torch.cuda.synchronize()
    t.add(torch, out, x)
    # Where the asm's -1.0 landed, to confirm it is the element the kernel's comment names.
    hit = [int(i) for i in torch.nonzero(out.view(torch.int32) != x.view(torch.int32))[:8, 0]]
    return {**t.record(), "wrong_at": hit}


def run_staged_sum(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """The ring kernels: out = the sum of n rows (n = 3 and 4; both sums exact in fp32)."""
    t = Tally()
    for n in (3, 4):
        x = _distinct(torch, n * N).view(n, N)
        out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
        fn[(1,)](x, out, n, num_warps=4)
        torch.cuda.synchronize()
        t.add(torch, out, x.sum(0))
    return t.record()


def _copied(torch: Any, fn: Any, n: int) -> dict[str, Any]:
    """One launch of a kernel whose out must be its x (n values) bit for bit."""
    t = Tally()
    x = _distinct(torch, n)
    out = torch.full((n,), float("nan"), dtype=torch.float32, device="cuda")
    fn[(1,)](x, out, num_warps=4)
    torch.cuda.synchronize()
    t.add(torch, out, x)
    return t.record()


def run_wide_view(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = x (2N values) through a reinterpreted view."""
    return _copied(torch, fn, 2 * N)


def run_cp_async(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = -1 everywhere; a copy that lands late leaves x there instead."""
    t = Tally()
    launches_wrong = 0
    for _ in range(repeat):
        x = _distinct(torch, N)
        out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
        fn[(1,)](x, out, num_warps=4)
        torch.cuda.synchronize()
        launches_wrong += t.add(torch, out, torch.full_like(x, -1.0)) > 0
    return {**t.record(), "launches": repeat, "launches_wrong": launches_wrong}


def run_wgmma(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = x (x @ I, exact); chk = -1 (the buffer written while the wgmma may read)."""
    t, second = Tally(), Tally()
    launches_wrong = 0
    for i in range(repeat):
        x = (torch.arange(64 * 64, device="cuda") % 251 + i).to(torch.float16).view(64, 64)
        out = torch.full((64, 64), float("nan"), dtype=torch.float32, device="cuda")
        chk = torch.full_like(out, float("nan"))
        fn[(1,)](x, out, chk, num_warps=4)
        torch.cuda.synchronize()
        launches_wrong += t.add(torch, out, x.float()) > 0
        second.add(torch, chk, torch.full_like(out, -1.0))
    return {**t.record(), "launches": repeat, "launches_wrong": launches_wrong,
            "second_buffer_values_wrong": second.values_wrong}  # fmt: skip


def run_if_branches(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    t = Tally()
    x = _distinct(torch, N)
    # Neither flag is 1 (a value Triton specializes as a constant, folding the branch away):
    # one compiled kernel runs both branches.
    for flag, want in ((3, x * 2.0 + 1.0), (-2, x - 1.0)):
        out = torch.full((N,), float("nan"), dtype=torch.float32, device="cuda")
        fn[(1,)](x, out, flag, num_warps=4)
        torch.cuda.synchronize()
        t.add(torch, out, want)
    return t.record()


def run_ws_private(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    rows, wb = 16, 128
    # Small integers: every sum and maximum is exact in fp32, whatever the order.
    src = (torch.arange(rows * wb, device="cuda") % 7).to(torch.float32).view(rows, wb)
    s = 0.5 + src.sum(0)
    m = torch.clamp(src.max(0).values, min=0.0)
    out = torch.full((wb,), float("nan"), dtype=torch.float32, device="cuda")
    side = torch.full((wb,), float("nan"), dtype=torch.float32, device="cuda")
    fn[(1,)](src, out, side, rows, num_warps=4)
    torch.cuda.synchronize()
    t = Tally()
    t.add(torch, out, s + s.sum())
    t.add(torch, side, m + m.max())
    return t.record()


def run_tma_load(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = -(1 + index) everywhere (what ``b`` holds); a load that lands late leaves x."""
    import triton

    triton.set_allocator(
        lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda")
    )
    tiles, bm, bn = 4 * torch.cuda.get_device_properties(0).multi_processor_count, 64, 128
    x = torch.arange(1, tiles * bm * bn + 1, dtype=torch.float32, device="cuda").view(-1, bn)
    t = Tally()
    launches_wrong = 0
    for _ in range(repeat):
        out = torch.full_like(x, float("nan"))
        fn[(tiles,)](x, out, tiles * bm, num_warps=4)
        torch.cuda.synchronize()
        launches_wrong += t.add(torch, out, -x) > 0
    return {**t.record(), "launches": repeat, "launches_wrong": launches_wrong}


def run_small_copy(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = x[:4], kept in a buffer while barriers are initialised."""
    return _copied(torch, fn, 4)


def run_copy(torch: Any, fn: Any, repeat: int) -> dict[str, Any]:
    """out = x, kept in a buffer across a call."""
    return _copied(torch, fn, N)


RUNNERS = {
    "frame_constexpr": run_frame_constexpr,
    "tma_store_pending": run_tma,
    "tma_store_waited": run_tma,
    "asm_shared_store": run_asm_store,
    "asm_generic_store": run_asm_store,
    "if_branches": run_if_branches,
    **dict.fromkeys(
        (
            "ring_mod3",
            "ring_mod3_fixed",
            "ring_and3",
            "ring_and3_fixed",
            "ring_const2",
            "ring_const1",
        ),
        run_staged_sum,
    ),  # fmt: skip
    "cp_async_pending": run_cp_async,
    "cp_async_waited": run_cp_async,
    "wgmma_pending": run_wgmma,
    "wgmma_waited": run_wgmma,
    "reinterpret_over": run_wide_view,
    "reinterpret_fits": run_wide_view,
    "ws_private": run_ws_private,
    "tma_load_pending": run_tma_load,
    "tma_load_waited": run_tma_load,
    "mbarrier_over": run_small_copy,
    "mbarrier_fits": run_small_copy,
    "callee_view_over": run_copy,
    "callee_view_fits": run_copy,
}


def run_case(torch: Any, name: str, repeat: int = REPEAT) -> dict[str, Any]:
    """Launch one kernel: its counts, with what ``ground_truth.CASES`` says of it."""
    from tests.plan.cases import ground_truth

    case = ground_truth.CASES[name]
    t0 = time.perf_counter()
    rec = RUNNERS[name](torch, case.fn, repeat)
    rec.update(expect=case.expect, corrupts=case.corrupts, klass=case.klass,
               seconds=round(time.perf_counter() - t0, 2))  # fmt: skip
    return rec


def agrees(rec: dict[str, Any]) -> bool:
    """The counts show what the case says: wrong values where it corrupts, none elsewhere."""
    if "error" in rec:
        return False
    if rec.get("callee_result_ok") is False or rec.get("second_buffer_values_wrong", 0):
        return False  # the kernel is wrong in a way the case does not claim
    return (rec["values_wrong"] > 0) == bool(rec["corrupts"])


def document(torch: Any, results: dict[str, Any], repeat: int) -> dict[str, Any]:
    import triton

    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(0),
        "capability": list(torch.cuda.get_device_capability(0)),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "repeat": repeat,
        "kernels": results,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run the plan ground-truth kernels on a CUDA GPU.")
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--repeat", type=int, default=REPEAT, help="launches of a racy kernel")
    p.add_argument("--only", nargs="*", choices=sorted(RUNNERS), help="these kernels alone")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    try:
        torch = cuda_torch()
    except NoGpu as exc:
        print(f"ground_truth_gpu: {exc}", file=sys.stderr)
        return NO_GPU
    # A private cache: a kernel compiled by another Triton build must not be reused.
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-ground-truth-"))
    from tests.plan.cases import ground_truth

    results: dict[str, Any] = {}
    for name in args.only or list(ground_truth.CASES):
        try:
            rec = run_case(torch, name, args.repeat)
        except Exception as exc:  # one kernel failing must not lose the others' counts
            rec = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
        rec["agrees"] = agrees(rec) if "error" not in rec else False
        results[name] = rec
        print(f"{name:20} {json.dumps(rec)}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document(torch, results, args.repeat), indent=1) + "\n")
    print(f"wrote {out}")
    return 0 if all(r["agrees"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
