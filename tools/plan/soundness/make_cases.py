"""Compile the kernels in ``tests/plan/cases/soundness/kernels.py`` for sm_90 and write their
dumps beside them.

    python -m tools.plan.soundness.make_cases   # any Triton release; no GPU needed

The files are named as ``tools/plan/make_dumps.py`` names its own: ``<name>.ttgir``, ``.llir``
and ``.alloc.ttgir`` for Triton 3.6, ``<name>-<major>.<minor>.*`` for another release.
"""

from __future__ import annotations

import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource

from tests.paths import PLAN_CASES
from tests.plan.cases.soundness import kernels
from tools.plan import make_dumps

HERE = PLAN_CASES / "soundness"  # where the dumps are written


def main() -> int:
    suffix = make_dumps.SUFFIX
    for name, (fn, signature) in kernels.KERNELS.items():
        compiled = triton.compile(
            GluonASTSource(fn, signature=signature, constexprs={}),
            target=GPUTarget("cuda", 90, 32),
            options={"num_warps": 4},
        )
        for kind in ("ttgir", "llir"):
            text = make_dumps.relative_paths(compiled.asm[kind])
            (HERE / f"{name}{suffix}.{kind}").write_text(text)
        alloc = make_dumps.relative_paths(make_dumps.allocated(compiled))
        (HERE / f"{name}{suffix}.alloc.ttgir").write_text(alloc)
        print(f"wrote {name}{suffix}.* (shared {compiled.metadata.shared} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
