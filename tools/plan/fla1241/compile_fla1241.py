"""Compile the fla#1241 kernel (``tests/plan/cases/fla1241/kernel.py``) for sm_90 on the CPU and
write its TTGIR and LLVM IR.

    PY -m tools.plan.fla1241.compile_fla1241 OUT_DIR [--only NAME ...]

``PY`` is any interpreter with a Triton release (no GPU, no torch needed). For every variant of
``kernel.VARIANTS`` and every configuration of ``kernel.CONFIGS`` it writes
``OUT_DIR/<release>/<variant>-w<num_warps>-s<num_stages>.ttgir``, ``.llir`` and ``.ptx``
(what ``triton.compile`` returns as ``asm["ttgir"]``, ``asm["llir"]`` and ``asm["ptx"]``; the
PTX for ``ptxas -v``, which plan does not read), ready for
``alias-spec plan X.ttgir --llir X.llir --races [--python PY]`` or ``alias-spec plan OUT_DIR``.
``--only`` keeps the names given (``odd153-w4-s3``). Prints one line per kernel.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="fla1241-cache-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from tests.plan.cases.fla1241.kernel import (  # noqa: E402
    CONFIGS,
    DIVISIBLE,
    SIGNATURE,
    VARIANTS,
    chunk_dv_kernel,
    constexprs,
)

RELEASE = ".".join(triton.__version__.split(".")[:2])
TARGET = GPUTarget("cuda", 90, 32)


def names() -> list[tuple[str, int, int, int]]:
    """(name, K, num_warps, num_stages) of every kernel compiled."""
    return [(f"{v}-w{w}-s{s}", K, w, s) for v, K in VARIANTS.items() for w, s in CONFIGS]


def compile_one(K: int, num_warps: int, num_stages: int) -> dict[str, str]:
    """The compiled kernel's texts: ``{"ttgir": ..., "llir": ..., "ptx": ...}``."""
    params = list(SIGNATURE)
    attrs = {(params.index(a),): [["tt.divisibility", 16]] for a in DIVISIBLE}
    src = ASTSource(chunk_dv_kernel, signature=dict(SIGNATURE), constexprs=constexprs(K),
                    attrs=attrs)  # fmt: skip
    compiled = triton.compile(src, target=TARGET,
                              options={"num_warps": num_warps, "num_stages": num_stages})  # noqa: E501  # fmt: skip
    return {kind: compiled.asm[kind] for kind in ("ttgir", "llir", "ptx")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args(argv)
    out = args.out / RELEASE
    out.mkdir(parents=True, exist_ok=True)
    for name, K, w, s in names():
        if args.only and name not in args.only:
            continue
        texts = compile_one(K, w, s)
        for kind, text in texts.items():
            (out / f"{name}.{kind}").write_text(text)
        print(f"{RELEASE} {name}: ttgir {len(texts['ttgir'])} B, llir {len(texts['llir'])} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
