"""Compile the kernels in ``kernels.py`` for sm_90 and write their TTGIR dumps here.

    python tests/lint_cases/make_dumps.py        # needs triton 3.6.0; no GPU

Location paths in the dumps are rewritten relative to the repository, so the committed files
do not depend on where they were made.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE)]
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="lint-dumps-"))

import triton  # noqa: E402
from kernels import KERNELS  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def relative_locations(ttgir: str) -> str:
    """Absolute source paths in loc(...) become paths relative to the repository."""

    def fix(m: re.Match[str]) -> str:
        path = Path(m.group(1))
        try:
            return f'"{path.resolve().relative_to(ROOT).as_posix()}"'
        except ValueError:
            return f'"{path.name}"'

    return re.sub(r'"(/[^"]+\.py)"', fix, ttgir)


def main() -> int:
    for name, (fn, signature) in KERNELS.items():
        compiled = triton.compile(
            GluonASTSource(fn, signature=signature, constexprs={}),
            target=TARGET,
            options={"num_warps": 4},
        )
        (HERE / f"{name}.ttgir").write_text(relative_locations(compiled.asm["ttgir"]))
        print(f"wrote {name}.ttgir (shared {compiled.metadata.shared} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
