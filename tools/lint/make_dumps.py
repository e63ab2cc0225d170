"""Compile the kernels in ``tests/lint/cases/kernels.py`` for sm_90 (or the arch they ask for)
and write their TTGIR dumps beside them.

    python -m tools.lint.make_dumps [NAME ...]   # needs triton 3.6.0; no GPU

Another release's interpreter (a virtual environment with only that Triton) writes
``<name>-<major>.<minor>.ttgir`` instead, so that its dumps sit beside 3.6's; the plain Triton
kernels compile on every release, e.g. ``v39/bin/python -m tools.lint.make_dumps triton_pipelined``.

Location paths in the dumps are rewritten relative to the repository, so the committed files
do not depend on where they were made. A dump's ``// EXPECT:`` lines (its expected lint
results) are kept at its end.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from tests.paths import LINT_CASES, ROOT

HERE = LINT_CASES  # where the dumps are written
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="lint-dumps-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction  # noqa: E402

from tests.lint.cases.kernels import KERNELS, OPTIONS  # noqa: E402

# The committed dumps without a suffix are 3.6.0's.
_RELEASE = ".".join(triton.__version__.split(".")[:2])
SUFFIX = "" if _RELEASE == "3.6" else f"-{_RELEASE}"


def relative_locations(ttgir: str) -> str:
    """Absolute source paths in loc(...) become paths relative to the repository."""

    def fix(m: re.Match[str]) -> str:
        path = Path(m.group(1))
        try:
            return f'"{path.resolve().relative_to(ROOT).as_posix()}"'
        except ValueError:
            return f'"{path.name}"'

    return re.sub(r'"(/[^"]+\.py)"', fix, ttgir)


def main(names: list[str]) -> int:
    unknown = sorted(set(names) - set(KERNELS))
    if unknown:
        print(f"make_dumps: unknown kernel {', '.join(unknown)}", file=sys.stderr)
        return 2
    for name, (fn, signature) in KERNELS.items():
        if names and name not in names:
            continue
        opts = OPTIONS.get(name, {})
        source = GluonASTSource if isinstance(fn, GluonJITFunction) else ASTSource
        compiled = triton.compile(
            source(fn, signature=signature, constexprs=opts.get("constexprs", {}),
                   attrs=opts.get("attrs")),
            target=GPUTarget("cuda", opts.get("arch", 90), 32),
            options={"num_warps": 4},
        )  # fmt: skip
        out = HERE / f"{name}{SUFFIX}.ttgir"
        # The expected lint results (``// EXPECT:`` lines, see tests/lint/test_lint_expect.py) stay
        # at the end of the file, after the new dump: check their line numbers against it.
        expect = [ln for ln in (out.read_text().splitlines() if out.exists() else [])
                  if ln.startswith("// EXPECT:")]  # fmt: skip
        text = relative_locations(compiled.asm["ttgir"])
        out.write_text(text + "".join(f"{ln}\n" for ln in expect))
        print(f"wrote {out.name} (shared {compiled.metadata.shared} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
