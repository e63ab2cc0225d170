"""LLVM IR kernels of growing size for timing the lowering check (``scaling()``).

Each module nests ``n`` loops, the shape of a software-pipelined kernel after LLVM's loop
passes: every loop header carries a trip counter, a stage index that wraps at ``STAGES`` and a
shared pointer to its stage's buffer, all loop phis; each loop stores through its pointer and
loads at the stage's slot computed from the index. Loop ``d`` owns ``STAGES`` buffers of
``STRIDE`` bytes after those of the loops around it, so every access lies in
``[0, shared_bytes(n))``: the verdict is clean, and with one byte less it is not (partial:
a witness over loop-carried values is not reported as a finding).

    python -m tools.plan.soundness.llir.make_scaling [N ...]

prints, per ``n``, the module's size, its phis and accesses, the verdict and the seconds the
check took (what the benchmark imports ``scaling()`` for).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

STAGES = 3
STRIDE = 512  # bytes per stage: 128 threads x 4 bytes
THREADS = 128


def shared_bytes(n: int) -> int:
    """The plan's ``ttg.shared`` for a module of ``n`` loops."""
    return n * STAGES * STRIDE


def module(n: int, trip: str = "%n", chained: bool = False) -> str:
    """``n`` nested loops, ``3 n`` loop phis and ``2 n`` shared accesses; ``trip`` bounds every
    loop's counter (an i32 argument, or a constant); ``chained``: each inner loop's first stage
    pointer is the outer loop's pointer moved on (a phi carried into the next loop's phi)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    out = [
        "@global_smem = external addrspace(3) global [0 x i8], align 16",
        "",
        "define ptx_kernel void @scaling(i32 %n) #0 {",
        "entry:",
        "  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "  %t = and i32 %tid, 127",
        "  %off = shl nuw nsw i32 %t, 2",
        "  br label %h0",
    ]
    for d in range(n):
        pred, latch = ("%entry" if d == 0 else f"%h{d - 1}"), f"%l{d}"
        base = d * STAGES * STRIDE
        first = f"getelementptr (i8, ptr addrspace(3) @global_smem, i32 {base})" if base else (
            "@global_smem")  # fmt: skip
        if chained and d:
            first = f"%e{d}"  # the stage pointer of the loop around, moved on to this loop's
        out += [
            f"h{d}:",
            f"  %i{d} = phi i32 [ 0, {pred} ], [ %i{d}.n, {latch} ]",
            f"  %s{d} = phi i32 [ 0, {pred} ], [ %s{d}.n, {latch} ]",
            f"  %p{d} = phi ptr addrspace(3) [ {first}, {pred} ], [ %p{d}.n, {latch} ]",
            f"  %a{d} = getelementptr inbounds i8, ptr addrspace(3) %p{d}, i32 %off",
            f"  store i32 {d}, ptr addrspace(3) %a{d}, align 4",
            f"  %o{d} = mul nuw nsw i32 %s{d}, {STRIDE}",
            f"  %x{d} = add nuw nsw i32 %o{d}, %off",
            f"  %y{d} = add nuw nsw i32 %x{d}, {base}",
            f"  %b{d} = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %y{d}",
            f"  %v{d} = load i32, ptr addrspace(3) %b{d}, align 4",
        ]
        if chained and d + 1 < n:
            out.append(f"  %e{d + 1} = getelementptr inbounds i8, ptr addrspace(3) %p{d}, i32 "
                       f"{STAGES * STRIDE}")  # fmt: skip
        out.append(f"  br label %{f'h{d + 1}' if d + 1 < n else f'l{d}'}")
    for d in reversed(range(n)):
        base = d * STAGES * STRIDE
        after = "exit" if d == 0 else f"l{d - 1}"
        out += [
            f"l{d}:",
            f"  %s{d}.1 = add nuw nsw i32 %s{d}, 1",
            f"  %w{d} = icmp slt i32 %s{d}.1, {STAGES}",
            f"  %s{d}.n = select i1 %w{d}, i32 %s{d}.1, i32 0",
            f"  %q{d} = mul nuw nsw i32 %s{d}.n, {STRIDE}",
            f"  %r{d} = add nuw nsw i32 %q{d}, {base}",
            f"  %p{d}.n = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %r{d}",
            f"  %i{d}.n = add nuw nsw i32 %i{d}, 1",
            f"  %c{d} = icmp slt i32 %i{d}.n, {trip}",
            f"  br i1 %c{d}, label %h{d}, label %{after}",
        ]
    out += [
        "exit:",
        "  ret void",
        "}",
        "",
        "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "",
        f'attributes #0 = {{ "nvvm.reqntid"="{THREADS}" }}',
        "",
    ]
    return "\n".join(out)


def ttgir(n: int, shared: int | None = None) -> str:
    """A TTGIR module the plan reads as one buffer filling ``[0, shared)``."""
    size = shared_bytes(n) if shared is None else shared
    ty = f"!ttg.memdesc<{size}xi8, #shared, #smem, mutable>"
    return (
        "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
        "#smem = #ttg.shared_memory\n"
        f'module attributes {{"ttg.num-warps" = 4 : i32, ttg.shared = {size} : i32}} {{\n'
        "  tt.func public @scaling(%n: i32) {\n"
        f"    %buf = ttg.local_alloc {{allocation.offset = 0 : i32}} : () -> {ty}\n"
        f"    %v = ttg.local_load %buf : {ty} -> tensor<{size}xi8>\n"
        "    tt.return\n  }\n}\n"
    )


def scaling(sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32)) -> Iterator[dict[str, object]]:
    """Per size: the module's bytes, loop phis, accesses, the verdict and the seconds the
    lowering check took (the plan's own proof is not timed)."""
    from alias_spec.plan.llir import check_lowering
    from alias_spec.plan.plan import check_plan

    for n in sizes:
        text = module(n)
        report, mod, _ = check_plan(ttgir(n), "scaling.ttgir")
        t0 = time.perf_counter()
        check_lowering(text, "scaling.llir", report, mod.num_warps, kernels=["scaling"])
        seconds = time.perf_counter() - t0
        yield {"n": n, "bytes": len(text), "phis": 3 * n, "accesses": 2 * n,
               "status": report.status, "seconds": round(seconds, 3)}  # fmt: skip


if __name__ == "__main__":
    sizes = tuple(int(a) for a in sys.argv[1:]) or (1, 2, 4, 8, 16, 32)
    for row in scaling(sizes):
        print(row, flush=True)
