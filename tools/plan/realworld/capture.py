"""Run real libraries' Triton kernels on a CUDA GPU, each op checked against a reference, and
keep every kernel they compile (``TRITON_CACHE_DIR``): the real-world corpus of ``alias-spec
plan``.

    python -m tools.plan.realworld.capture OUT_DIR [--only liger fla inductor] [--budget SECONDS]

Needs torch with CUDA and Triton; Liger-Kernel, flash-linear-attention (``fla-core``, which
needs ``einops``) where installed (a library that is missing is recorded as skipped). Writes
``OUT_DIR/ops.json`` (device, versions, date, each op's largest error against its reference
and whether it is within the op's tolerance), ``OUT_DIR/cache.tar.xz`` (each kernel's
``.ttgir``, ``.llir`` and metadata ``.json``, nothing else) and ``OUT_DIR/compile_times.json``
(each kernel's whole compile, frontend included, as Triton's compilation listener timed it:
what ``benchmarks/bench_plan.py --compile-times`` sets plan's time against). No project code
is imported.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import re
import sys
import tarfile
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

OPS: list[dict[str, Any]] = []
TIMES: dict[str, dict[str, Any]] = {}  # "cache dir/kernel name" -> its compile's times


def _listen(*, src: Any, metadata: Any, metadata_group: dict[str, str], times: Any,
            cache_hit: bool) -> None:  # fmt: skip
    """Triton's compilation listener: each kernel compiled (not a cache hit), its times."""
    if cache_hit or not metadata_group:
        return
    meta = metadata if isinstance(metadata, dict) else {}
    folder = os.path.basename(os.path.dirname(next(iter(metadata_group.values()))))
    stages = {name: us / 1e6 for name, us in times.lowering_stages}
    front = times.ir_initialization / 1e6
    TIMES[f"{folder}/{meta.get('name', '?')}"] = {
        "compile_s": front + sum(stages.values()) + times.store_results / 1e6,
        "frontend_s": front,
        "stages_s": stages,
    }


def _err(got: Any, want: Any) -> float:
    return float((got.float() - want.float()).abs().max().item())


DEADLINE: list[float] = []  # with --budget: past it, the ops left are skipped
SAVE: list[Path] = []  # where the compile times so far are written after each op


def check(name: str, fn: Callable[[], list[tuple[str, Any, Any, float]]]) -> None:
    """Run one op; record each compared output's largest error and its tolerance."""
    if DEADLINE and time.monotonic() > DEADLINE[0]:
        OPS.append({"op": name, "skipped": "past the capture's --budget"})
        return
    t0 = time.perf_counter()
    try:
        rows = fn()
        outs = [{"output": o, "max_err": _err(g, w), "tol": tol, "ok": _err(g, w) <= tol}
                for o, g, w, tol in rows]  # fmt: skip
        rec = {"op": name, "outputs": outs, "ok": all(o["ok"] for o in outs)}
    except Exception as exc:  # one op failing must not lose the others
        rec = {"op": name, "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
               "where": traceback.format_exc().splitlines()[-3:]}  # fmt: skip
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    OPS.append(rec)
    if SAVE:  # kept after each op: a capture stopped from outside keeps what it timed
        SAVE[0].write_text(json.dumps({"kernels": TIMES}, indent=1, sort_keys=True) + "\n")
    print(json.dumps(rec)[:400], flush=True)


def _grads(*ts: Any) -> list[Any]:
    """Each leaf's gradient (zeros where the op gave none)."""
    return [t.grad.detach().clone() if t.grad is not None else t.detach() * 0 for t in ts]


def _zero(*ts: Any) -> None:
    for t in ts:
        t.grad = None


# --- Liger-Kernel -------------------------------------------------------------------------------


def liger(torch: Any) -> None:
    import torch.nn.functional as F

    dev = "cuda"
    torch.manual_seed(0)

    def rms_norm() -> list:
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        x = torch.randn(64, 4096, device=dev, dtype=torch.bfloat16, requires_grad=True)
        w = torch.randn(4096, device=dev, dtype=torch.bfloat16, requires_grad=True)
        y = LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False)
        y.float().sum().backward()
        gx, gw = _grads(x, w)
        _zero(x, w)
        xf = x.float()
        ref = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
        ref.float().sum().backward()
        rx, rw = _grads(x, w)
        return [("y", y, ref, 0.1), ("dx", gx, rx, 0.1), ("dw", gw, rw, 2.0)]

    def layer_norm() -> list:
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction

        x = torch.randn(64, 2048, device=dev, requires_grad=True)
        w = torch.randn(2048, device=dev, requires_grad=True)
        b = torch.randn(2048, device=dev, requires_grad=True)
        y = LigerLayerNormFunction.apply(x, w, b, 1e-5)
        y.sum().backward()
        g = _grads(x, w, b)
        _zero(x, w, b)
        ref = F.layer_norm(x, (2048,), w, b, 1e-5)
        ref.sum().backward()
        r = _grads(x, w, b)
        return [("y", y, ref, 1e-3)] + [
            (f"d{n}", a, c, 1e-2) for n, a, c in zip("xwb", g, r, strict=True)
        ]

    def gated(op: Any, act: Callable[[Any], Any], tol: float) -> list:
        """act(a) * b through ``op``; the reference first, on copies: the op's backward works
        in place on its inputs."""
        a = torch.randn(128, 4096, device=dev, requires_grad=True)
        b = torch.randn(128, 4096, device=dev, requires_grad=True)
        ref = act(a) * b
        ref.sum().backward()
        r = _grads(a, b)
        a2, b2 = (t.detach().clone().requires_grad_() for t in (a, b))
        y = op.apply(a2, b2)
        y.sum().backward()
        g = _grads(a2, b2)
        return [("y", y, ref, tol), ("da", g[0], r[0], tol), ("db", g[1], r[1], tol)]

    def swiglu() -> list:
        from liger_kernel.ops.swiglu import LigerSiLUMulFunction

        return gated(LigerSiLUMulFunction, F.silu, 1e-4)

    def geglu() -> list:
        from liger_kernel.ops.geglu import LigerGELUMulFunction

        return gated(LigerGELUMulFunction, lambda x: F.gelu(x, approximate="tanh"), 1e-3)

    def cross_entropy() -> list:
        from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction

        x = torch.randn(256, 32000, device=dev, requires_grad=True)
        t = torch.randint(0, 32000, (256,), device=dev)
        out = LigerCrossEntropyFunction.apply(x, t)
        loss = out[0] if isinstance(out, tuple) else out
        loss.backward()
        (g,) = _grads(x)
        _zero(x)
        ref = F.cross_entropy(x, t)
        ref.backward()
        (r,) = _grads(x)
        return [("loss", loss, ref, 1e-3), ("dx", g, r, 1e-5)]

    def fused_linear_ce() -> list:
        from liger_kernel.ops.fused_linear_cross_entropy import (
            LigerFusedLinearCrossEntropyFunction,
        )

        h = torch.randn(256, 1024, device=dev, requires_grad=True)
        w = torch.randn(8192, 1024, device=dev, requires_grad=True) * 0.02
        w = w.detach().requires_grad_()
        t = torch.randint(0, 8192, (256,), device=dev)
        out = LigerFusedLinearCrossEntropyFunction.apply(h, w, t)
        loss = out[0] if isinstance(out, tuple) else out
        loss.backward()
        g = _grads(h, w)
        _zero(h, w)
        ref = F.cross_entropy(h @ w.t(), t)
        ref.backward()
        r = _grads(h, w)
        return [("loss", loss, ref, 1e-2), ("dh", g[0], r[0], 1e-3), ("dw", g[1], r[1], 1e-3)]

    def softmax() -> list:
        from liger_kernel.ops.softmax import LigerSoftmaxFunction

        x = torch.randn(128, 4096, device=dev, requires_grad=True)
        y = LigerSoftmaxFunction.apply(x)
        (y * torch.arange(4096, device=dev)).sum().backward()
        (g,) = _grads(x)
        _zero(x)
        ref = torch.softmax(x, -1)
        (ref * torch.arange(4096, device=dev)).sum().backward()
        (r,) = _grads(x)
        return [("y", y, ref, 1e-5), ("dx", g, r, 1e-2)]

    def rope() -> list:
        from liger_kernel.ops.rope import LigerRopeFunction

        bsz, heads, seq, dim = 2, 8, 128, 64
        q = torch.randn(bsz, heads, seq, dim, device=dev, requires_grad=True)
        k = torch.randn(bsz, heads, seq, dim, device=dev, requires_grad=True)
        pos = torch.arange(seq, device=dev).float()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, device=dev).float() / dim))
        ang = torch.cat([pos[:, None] * inv[None]] * 2, -1)
        cos, sin = ang.cos()[None], ang.sin()[None]
        qo, ko = LigerRopeFunction.apply(q, k, cos, sin)
        (qo.sum() + (ko * 2).sum()).backward()
        g = _grads(q, k)
        _zero(q, k)

        def rot(x: Any) -> Any:
            return torch.cat([-x[..., dim // 2 :], x[..., : dim // 2]], -1)

        rq = q * cos[:, None] + rot(q) * sin[:, None]
        rk = k * cos[:, None] + rot(k) * sin[:, None]
        (rq.sum() + (rk * 2).sum()).backward()
        r = _grads(q, k)
        return [("q", qo, rq, 1e-4), ("k", ko, rk, 1e-4), ("dq", g[0], r[0], 1e-4),
                ("dk", g[1], r[1], 1e-4)]  # fmt: skip

    def group_norm() -> list:
        from liger_kernel.ops.group_norm import LigerGroupNormFunction

        x = torch.randn(4, 64, 512, device=dev, requires_grad=True)
        w = torch.randn(64, device=dev, requires_grad=True)
        b = torch.randn(64, device=dev, requires_grad=True)
        y = LigerGroupNormFunction.apply(x, w, b, 64, 8, 1e-6)
        y.sum().backward()
        g = _grads(x, w, b)
        _zero(x, w, b)
        ref = F.group_norm(x, 8, w, b, 1e-6)
        ref.sum().backward()
        r = _grads(x, w, b)
        return [("y", y, ref, 1e-3)] + [
            (f"d{n}", a, c, 1e-2) for n, a, c in zip("xwb", g, r, strict=True)
        ]

    def kl_div() -> list:
        from liger_kernel.ops.kl_div import LigerKLDivLossFunction

        x = torch.randn(64, 4096, device=dev).log_softmax(-1).requires_grad_()
        t = torch.randn(64, 4096, device=dev).softmax(-1)
        loss = LigerKLDivLossFunction.apply(x, t, "batchmean", False, 1e-10)
        loss.backward()
        (g,) = _grads(x)
        _zero(x)
        ref = F.kl_div(x, t, reduction="batchmean")
        ref.backward()
        (r,) = _grads(x)
        return [("loss", loss, ref, 1e-4), ("dx", g, r, 1e-5)]

    def jsd() -> list:
        from liger_kernel.ops.jsd import LigerJSDFunction

        x = torch.randn(64, 4096, device=dev).log_softmax(-1).requires_grad_()
        t = torch.randn(64, 4096, device=dev).log_softmax(-1)
        loss = LigerJSDFunction.apply(x, t, None, 0.5, -100)
        loss.backward()
        (g,) = _grads(x)
        _zero(x)
        m = 0.5 * (x.exp() + t.exp())
        ref = 0.5 * (F.kl_div(m.log(), x, reduction="sum", log_target=True)
                     + F.kl_div(m.log(), t, reduction="sum", log_target=True)) / 64  # fmt: skip
        ref.backward()
        (r,) = _grads(x)
        return [("loss", loss, ref, 1e-3), ("dx", g, r, 1e-4)]

    for name, fn in (("liger.rms_norm", rms_norm), ("liger.layer_norm", layer_norm),
                     ("liger.swiglu", swiglu), ("liger.geglu", geglu),
                     ("liger.cross_entropy", cross_entropy),
                     ("liger.fused_linear_cross_entropy", fused_linear_ce),
                     ("liger.softmax", softmax), ("liger.rope", rope),
                     ("liger.group_norm", group_norm), ("liger.kl_div", kl_div),
                     ("liger.jsd", jsd)):  # fmt: skip
        check(name, fn)


# --- flash-linear-attention --------------------------------------------------------------------


def fla(torch: Any) -> None:
    dev = "cuda"
    torch.manual_seed(0)
    B, T, H, K, V = 2, 256, 4, 64, 64

    def pair(chunk: Callable, recurrent: Callable, gated: str | None) -> list:
        q = torch.randn(B, T, H, K, device=dev, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(B, T, H, K, device=dev, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(B, T, H, V, device=dev, dtype=torch.bfloat16, requires_grad=True)
        leaves = [q, k, v]
        kw: dict[str, Any] = {}
        if gated == "g":  # per key channel (GLA)
            g = (torch.rand(B, T, H, K, device=dev).clamp(0.9, 0.999).log()).requires_grad_()
            kw["g"] = g
            leaves.append(g)
        elif gated == "scalar":  # per head (simple GLA)
            g = (torch.rand(B, T, H, device=dev).clamp(0.9, 0.999).log()).requires_grad_()
            kw["g"] = g
            leaves.append(g)
        dout = torch.randn(B, T, H, V, device=dev, dtype=torch.bfloat16)
        o, _ = chunk(q, k, v, **kw, scale=K**-0.5)
        (o * dout).sum().backward()
        got = [o.detach()] + _grads(*leaves)
        _zero(*leaves)
        ro, _ = recurrent(q, k, v, **kw, scale=K**-0.5)
        (ro * dout).sum().backward()
        want = [ro.detach()] + _grads(*leaves)
        names = ["o", "dq", "dk", "dv", "dg"]
        return [(n, a, b, 0.25) for n, a, b in zip(names[: len(got)], got, want, strict=True)]

    def gla() -> list:
        from fla.ops.gla import chunk_gla, fused_recurrent_gla

        return pair(chunk_gla, fused_recurrent_gla, "g")

    def simple_gla() -> list:
        from fla.ops.simple_gla import chunk_simple_gla, fused_recurrent_simple_gla

        return pair(chunk_simple_gla, fused_recurrent_simple_gla, "scalar")

    def retention() -> list:
        from fla.ops.retention import chunk_retention, fused_recurrent_retention

        return pair(chunk_retention, fused_recurrent_retention, None)

    def delta_rule() -> list:
        import torch.nn.functional as F
        from fla.ops.delta_rule import chunk_delta_rule, fused_recurrent_delta_rule

        q = torch.randn(B, T, H, K, device=dev, dtype=torch.bfloat16)
        k = F.normalize(torch.randn(B, T, H, K, device=dev), p=2, dim=-1).to(torch.bfloat16)
        v = torch.randn(B, T, H, V, device=dev, dtype=torch.bfloat16)
        beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
        leaves = [t.requires_grad_() for t in (q, k, v, beta)]
        dout = torch.randn(B, T, H, V, device=dev, dtype=torch.bfloat16)
        o, _ = chunk_delta_rule(q, k, v, beta, scale=K**-0.5)
        (o * dout).sum().backward()
        got = [o.detach()] + _grads(*leaves)
        _zero(*leaves)
        ro, _ = fused_recurrent_delta_rule(q, k, v, beta, scale=K**-0.5)
        (ro * dout).sum().backward()
        want = [ro.detach()] + _grads(*leaves)
        return [
            (n, a, b, 0.25)
            for n, a, b in zip(["o", "dq", "dk", "dv", "dbeta"], got, want, strict=True)
        ]

    # GLA last: its autotuning takes minutes. Simple GLA refuses Triton 3.4-3.7.0 on Hopper
    # (its gated backward is wrong there, fla#640): recorded as an error.
    for name, fn in (("fla.chunk_retention", retention), ("fla.chunk_delta_rule", delta_rule),
                     ("fla.chunk_simple_gla", simple_gla), ("fla.chunk_gla", gla)):  # fmt: skip
        check(name, fn)


# --- torch.compile (Inductor's Triton templates) --------------------------------------------


def inductor(torch: Any) -> None:
    import torch._inductor.config as cfg

    cfg.max_autotune_gemm_backends = "TRITON"
    dev = "cuda"
    torch.manual_seed(0)

    def mlp() -> list:
        net = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                  torch.nn.Linear(4096, 1024)).to(dev, torch.float16)  # fmt: skip
        x = torch.randn(512, 1024, device=dev, dtype=torch.float16, requires_grad=True)
        fast = torch.compile(net, mode="max-autotune-no-cudagraphs")
        y = fast(x)
        y.float().sum().backward()
        (g,) = _grads(x)
        _zero(x)
        ref = net(x)
        ref.float().sum().backward()
        (r,) = _grads(x)
        return [("y", y, ref, 0.05), ("dx", g, r, 0.05)]

    def conv() -> list:
        net = torch.nn.Sequential(torch.nn.Conv2d(64, 128, 3, padding=1), torch.nn.ReLU(),
                                  torch.nn.Conv2d(128, 64, 3, padding=1)).to(dev, torch.float16)  # noqa: E501  # fmt: skip
        x = torch.randn(8, 64, 32, 32, device=dev, dtype=torch.float16)
        fast = torch.compile(net, mode="max-autotune-no-cudagraphs")
        with torch.no_grad():
            return [("y", fast(x), net(x), 0.05)]

    def flex() -> list:
        from torch.nn.attention.flex_attention import flex_attention

        def causal(score: Any, b: Any, h: Any, qi: Any, ki: Any) -> Any:
            return torch.where(qi >= ki, score, -float("inf"))

        shape = (2, 4, 512, 64)
        q, k, v = (torch.randn(shape, device=dev, dtype=torch.float16, requires_grad=True)
                   for _ in range(3))  # fmt: skip
        fast = torch.compile(flex_attention)
        o = fast(q, k, v, score_mod=causal)
        dout = torch.randn_like(o)
        (o * dout).sum().backward()
        got = [o.detach()] + _grads(q, k, v)
        _zero(q, k, v)
        mask = torch.ones(512, 512, device=dev, dtype=torch.bool).tril()
        ro = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        (ro * dout).sum().backward()
        want = [ro.detach()] + _grads(q, k, v)
        return [(n, a, b, 0.05) for n, a, b in zip(["o", "dq", "dk", "dv"], got, want, strict=True)]

    for name, fn in (("inductor.mlp", mlp), ("inductor.conv", conv),
                     ("inductor.flex_attention", flex)):  # fmt: skip
        check(name, fn)


LIBRARIES = {"liger": liger, "fla": fla, "inductor": inductor}


# Absolute paths (the libraries' install directories in source locations) cut to their file
# names: the corpus must not depend on where it was made.
_PATH = re.compile(r"(?:/[\w.+-]+)+/([\w.+-]+)")


def pack(cache: Path, out: Path) -> int:
    """The cache's kernels (TTGIR, LLVM IR, metadata) into one xz tar, paths cut to file
    names; how many kernels."""
    n = 0
    cache.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for d in sorted(p for p in cache.iterdir() if p.is_dir()):
            files = sorted(f for f in d.iterdir() if f.suffix in (".ttgir", ".llir", ".json")
                           and not f.name.startswith("__grp__"))  # fmt: skip
            if not any(f.suffix == ".ttgir" for f in files):
                continue
            n += 1
            for f in files:
                data = _PATH.sub(r"\1", f.read_text(errors="replace")).encode()
                info = tarfile.TarInfo(f"{d.name}/{f.name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return n


def _cpu() -> str:
    """The host processor's model name (compile times are this machine's)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("out", type=Path)
    p.add_argument("--only", nargs="*", choices=sorted(LIBRARIES), default=sorted(LIBRARIES))
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="start no op past this many seconds (the cache so far is kept)",
    )
    args = p.parse_args(argv)
    if args.budget is not None:
        DEADLINE.append(time.monotonic() + args.budget)
    args.out.mkdir(parents=True, exist_ok=True)
    SAVE.append(args.out / "compile_times.json")
    cache = Path(os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="capture-")))
    try:
        import torch
        import triton
    except ImportError as exc:
        print(f"capture: needs torch and Triton ({exc})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("capture: needs a CUDA GPU", file=sys.stderr)
        return 2
    listener = getattr(getattr(triton, "knobs", None), "compilation", None)
    if listener is not None:  # Triton 3.5 on: each compile's times
        triton.knobs.compilation.listener = _listen
    for lib in args.only:
        LIBRARIES[lib](torch)
    args.out.mkdir(parents=True, exist_ok=True)
    kernels = pack(cache, args.out / "cache.tar.xz")
    versions = {}
    for mod in ("liger_kernel", "fla", "einops"):
        try:
            from importlib.metadata import version

            versions[mod] = version({"fla": "fla-core"}.get(mod, mod.replace("_", "-")))
        except Exception:
            versions[mod] = None
    doc = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "libraries": versions,
        "kernels": kernels,
        "ops": OPS,
    }
    (args.out / "ops.json").write_text(json.dumps(doc, indent=1) + "\n")
    stamp = {k: doc[k] for k in ("date", "device", "torch", "triton")}
    (args.out / "compile_times.json").write_text(
        json.dumps({**stamp, "cpu": _cpu(), "kernels": TIMES}, indent=1, sort_keys=True) + "\n"
    )
    print(f"{kernels} kernels; {sum(1 for o in OPS if o.get('ok'))} of {len(OPS)} ops within "
          "tolerance")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
