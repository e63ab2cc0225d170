"""Compile the plan validator's corpus for sm_90 with one Triton release and record each kernel.

    PY -m tools.plan.make_corpus OUT_DIR [--frontend N] [--only NAME ...]

``PY`` is any interpreter with a Triton release (a virtual environment with only Triton is
enough; run from the checkout's root, whose ``alias_spec`` the frontend corpus imports). No GPU
is needed. For every kernel of ``tests/plan/cases/corpus.py``, of ``tests/plan/cases/kernels.py``
(the call-frame cases) and, with ``--frontend N``,
every ``330 // N``-th case of the frontend's GPU corpus (``tests/gpu/corpus.json``, built with
``alias_spec/difftest/lowering_check.py``'s kernel), it writes ``OUT_DIR/<release>/<name>.json.gz``:
the TTGIR and LLVM IR as compiled, the module after the release's own allocation with the
allocator's debug output (what ``alias_spec/plan/worker.py`` prints), the compile time and
``metadata.shared``; or the compile error. ``tools/plan/judge_corpus.py`` judges the records.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.paths import GPU_CORPUS, PACKAGE

WORKER = PACKAGE / "plan" / "worker.py"
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-corpus-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from tools.plan.make_dumps import relative_paths  # noqa: E402

RELEASE = ".".join(triton.__version__.split(".")[:2])
TARGET = GPUTarget("cuda", 90, 32)


def no_paths(text: str) -> str:
    """Absolute paths of this machine (temporary files, warnings naming site-packages) cut to
    their file names: the records must not depend on where they were made."""
    return re.sub(r"(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", text)


def allocation(ttgir: str) -> dict[str, Any]:
    """The worker's reply for this module: the allocated module, the debug text, the version."""
    env = dict(os.environ, TRITON_LLVM_DEBUG_ONLY="allocation-shared-memory")
    proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps({"text": ttgir}),
                          capture_output=True, text=True, check=False, env=env)  # fmt: skip
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        return {"ok": False, "error": f"worker exit status {proc.returncode}"}
    return reply


def record(name: str, family: str, build: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"name": name, "family": family, "triton": triton.__version__}
    t0 = time.perf_counter()
    try:
        compiled = build()
    except Exception as exc:  # noqa: BLE001 - a kernel this release cannot compile
        lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
        rec["error"] = f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]
        return rec
    rec["compile_s"] = round(time.perf_counter() - t0, 3)
    rec["shared"] = int(compiled.metadata.shared)
    rec["ttgir"] = relative_paths(compiled.asm["ttgir"])
    rec["llir"] = relative_paths(compiled.asm["llir"])
    reply = allocation(rec["ttgir"])
    if reply.get("ok"):
        rec["alloc"] = {"module": no_paths(reply["module"]),
                        "debug": no_paths(reply.get("debug", "")),
                        "version": reply["version"]}  # fmt: skip
    else:
        rec["alloc_error"] = str(reply.get("error"))[:300]
    return rec


def builders(frontend_every: int) -> list[tuple[str, str, Any]]:
    from tests.plan.cases import corpus, kernels

    out: list[tuple[str, str, Any]] = []

    def make(k: Any) -> Any:
        cls = GluonASTSource if k.gluon else ASTSource
        sig = dict(k.signature)
        if k.gluon:
            src = cls(k.fn, signature=sig, constexprs=dict(k.constexprs))
        else:
            src = cls(k.fn, signature=sig, constexprs=dict(k.constexprs), attrs=k.attrs())
        return lambda: triton.compile(src, target=TARGET, options=dict(k.options))

    for k in corpus.kernels():
        out.append((k.name, k.family, make(k)))
    for name, (fn, sig) in kernels.KERNELS.items():
        k = corpus.Kernel(name, fn, sig, {}, {"num_warps": 4}, gluon=True, family="call")
        out.append((name, "call", make(k)))
    if frontend_every:
        out.extend(_frontend(frontend_every))
    return out


def _frontend(every: int) -> list[tuple[str, str, Any]]:
    """Every ``every``-th case of the frontend's GPU corpus, built as lowering_check builds it."""
    from alias_spec.difftest import lowering_check as lc
    from alias_spec.frontend import corpus_views as cv

    cases = json.loads(GPU_CORPUS.read_text())["cases"]
    out = []
    for case in cases[::every]:
        cx = cv.case_constexprs(case, lc.NUM_WARPS)
        sig = {"out_ptr": cv.pointer_type(case["chain"][-1]["dtype"]), "vi": "i32"}
        sig.update({k: "constexpr" for k in cx})

        def build(sig: dict[str, str] = sig, cx: dict[str, Any] = cx) -> Any:
            src = GluonASTSource(lc._kernel(), signature=sig, constexprs=cx)
            return triton.compile(src, target=TARGET, options={"num_warps": lc.NUM_WARPS})

        out.append((f"frontend_{case['id']}", "frontend", build))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument(
        "--frontend",
        type=int,
        default=0,
        metavar="N",
        help="also every (330 // N)-th frontend corpus case (about N cases)",
    )
    p.add_argument("--only", nargs="*", default=None)
    args = p.parse_args(argv)
    every = max(1, 330 // args.frontend) if args.frontend else 0
    dest = args.out / RELEASE
    dest.mkdir(parents=True, exist_ok=True)
    for name, family, build in builders(every):
        if args.only and name not in args.only:
            continue
        rec = record(name, family, build)
        with gzip.open(dest / f"{name}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(rec, f)
        state = rec.get("error") or rec.get("alloc_error") or f"shared {rec['shared']}"
        print(f"{RELEASE} {name}: {state}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
