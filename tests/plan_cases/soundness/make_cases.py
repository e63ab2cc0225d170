"""Compile the kernels in ``kernels.py`` (this folder) for sm_90 and write their dumps here.

    python tests/plan_cases/soundness/make_cases.py   # any Triton release; no GPU needed

The files are named as ``../make_dumps.py`` names its own: ``<name>.ttgir``, ``.llir`` and
``.alloc.ttgir`` for Triton 3.6, ``<name>-<major>.<minor>.*`` for another release.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("make_dumps", HERE.parent / "make_dumps.py")
assert _spec and _spec.loader
make_dumps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_dumps)
sys.path[:0] = [str(HERE)]
_spec = importlib.util.spec_from_file_location("soundness_kernels", HERE / "kernels.py")
assert _spec and _spec.loader
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402


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
