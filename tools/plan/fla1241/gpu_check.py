"""Run the fla#1241 kernel (``tests/plan/cases/fla1241/kernel.py``) on a GPU and compare it with a
float64 reference.

    python3 -m tools.plan.fla1241.gpu_check [--out FILE.json] [--only NAME ...] [--repeat N]

Needs torch and a CUDA GPU (the device machine's image has both, with Triton 3.6.0). For each
variant of ``kernel.VARIANTS`` and configuration of ``kernel.CONFIGS`` (names as in
``compile_fla1241.py``: ``odd153-w4-s3``), for T = 1 and T = 200 (a partial last chunk), it
launches the kernel ``--repeat`` times on the same random bf16 inputs and reports the largest
error against the reference (the same bf16 inputs, the ``dh`` block rounded to bf16 and ``A``
rounded to bf16 as the kernel does, in float64), relative to the reference's largest value,
and whether the launches agreed bit for bit. Written to ``--out`` as JSON, one row per run.
Not a test: the tests run where there is no GPU. Not yet run: no device machine was lent to
the session that wrote it, so neither it nor the symptom has been seen on a GPU here. Next to
it on a GPU: ``compute-sanitizer --tool racecheck`` (and ``memcheck``) of one launch, e.g.
``--only odd153-w4-s3 --T 200 --repeat 1``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from tests.plan.cases.fla1241.kernel import CONFIGS, VARIANTS, chunk_dv_kernel, constexprs


def reference(q, k, do, dh, scale, T, c) -> torch.Tensor:
    """dv in float64, the kernel's roundings kept (dh and A to bf16)."""
    B, _, H, K = q.shape
    V, BT = c["V"], c["BT"]
    dv = torch.zeros(B, T, H, V, dtype=torch.float64, device=q.device)
    for i_t in range((T + BT - 1) // BT):
        t0, t1 = i_t * BT, min(T, i_t * BT + BT)
        qb, kb, dob = (x[:, t0:t1].double() for x in (q, k, do))  # B, n, H, *
        dhb = dh[:, i_t].to(torch.bfloat16).double()  # B, H, K, V
        a = torch.einsum("bihk,bjhk->bhij", kb, qb).float()
        n = t1 - t0
        causal = torch.ones(n, n, dtype=torch.bool, device=q.device).triu()
        a = torch.where(causal, a * scale, 0).to(torch.bfloat16).double()
        dv[:, t0:t1] = (torch.einsum("bihk,bhkv->bihv", kb, dhb)
                        + torch.einsum("bhij,bjhv->bihv", a, dob))  # fmt: skip
    return dv


def run(name: str, K: int, w: int, s: int, T: int, repeat: int) -> dict:
    c = constexprs(K)
    B, H, V, BT = 2, c["H"], c["V"], c["BT"]
    NT = (T + BT - 1) // BT
    g = torch.Generator(device="cuda").manual_seed(1241)
    q, k = (torch.randn(B, T, H, K, device="cuda", generator=g).bfloat16() for _ in range(2))
    do = torch.randn(B, T, H, V, device="cuda", generator=g).bfloat16()
    dh = torch.randn(B, NT, H, K, V, device="cuda", generator=g)
    scale = K**-0.5
    ref = reference(q, k, do, dh, scale, T, c)
    outs = []
    for _ in range(repeat):
        dv = torch.full_like(do, float("nan"))
        grid = (NT * ((V + c["BV"] - 1) // c["BV"]), B * H)
        chunk_dv_kernel[grid](q, k, do, dv, dh, scale, T, **c, num_warps=w, num_stages=s)
        outs.append(dv)
    torch.cuda.synchronize()
    errs = [(o.double() - ref).abs().max().item() for o in outs]
    top = ref.abs().max().item()
    return {"kernel": name, "K": K, "num_warps": w, "num_stages": s, "T": T, "B": B,
            "max_err": max(errs), "rel_err": max(errs) / top, "ref_max": top,
            "nan": any(o.isnan().any().item() for o in outs),
            "bitwise_same": all(torch.equal(outs[0], o) for o in outs)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--T", type=int, nargs="*", default=[1, 200])
    args = ap.parse_args(argv)
    rows = []
    for v, K in VARIANTS.items():
        for w, s in CONFIGS:
            name = f"{v}-w{w}-s{s}"
            if args.only and name not in args.only:
                continue
            for T in args.T:
                try:
                    row = run(name, K, w, s, T, args.repeat)
                except Exception as exc:  # an illegal address, an out-of-resources launch
                    row = {"kernel": name, "T": T, "error": f"{type(exc).__name__}: {exc}"[:300]}
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"torch": torch.__version__, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
