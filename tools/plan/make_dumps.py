"""Compile the kernels in ``tests/plan/cases/kernels.py`` for sm_90 and write their TTGIR and LLVM
IR beside them.

    python -m tools.plan.make_dumps [NAME ...]   # any Triton release; no GPU needed

Triton 3.6's dumps are ``<name>.ttgir`` / ``<name>.llir``, and ``<name>.alloc.ttgir``: the module
after the release's own allocation (what ``alias_spec/plan/worker.py`` prints), a dump that carries
``allocation.offset`` attributes as a FlagTree dump does. Another release's interpreter (a
virtual environment with only that Triton) writes ``<name>-<major>.<minor>.*`` beside them:
``v39/bin/python -m tools.plan.make_dumps``. Source paths in locations are made relative
to the repository, so the committed files do not depend on where they were made.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.paths import PACKAGE, PLAN_CASES, ROOT

HERE = PLAN_CASES  # where the dumps are written
WORKER = PACKAGE / "plan" / "worker.py"
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-dumps-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from tests.plan.cases.kernels import KERNELS  # noqa: E402

_RELEASE = ".".join(triton.__version__.split(".")[:2])
SUFFIX = "" if _RELEASE == "3.6" else f"-{_RELEASE}"


def relative_paths(text: str) -> str:
    """Absolute source paths become paths relative to the repository (or bare file names)."""

    def fix(m: re.Match[str]) -> str:
        path = Path(m.group(1))
        try:
            return f'"{path.resolve().relative_to(ROOT).as_posix()}"'
        except ValueError:
            return f'"{path.name}"'

    text = re.sub(r'"(/[^"]+\.py)"', fix, text)
    # LLVM debug info names the directory apart from the file: drop it.
    return re.sub(r'directory: "/[^"]*"', 'directory: "."', text)


def allocated(compiled) -> str:
    """The module after this release's allocation, printed by the plan validator's worker."""
    proc = subprocess.run(
        [sys.executable, str(WORKER)],
        input=json.dumps({"text": compiled.asm["ttgir"]}),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(proc.stdout)["module"]


def main(names: list[str]) -> int:
    unknown = sorted(set(names) - set(KERNELS))
    if unknown:
        print(f"make_dumps: unknown kernel {', '.join(unknown)}", file=sys.stderr)
        return 2
    for name, (fn, signature) in KERNELS.items():
        if names and name not in names:
            continue
        compiled = triton.compile(
            GluonASTSource(fn, signature=signature, constexprs={}),
            target=GPUTarget("cuda", 90, 32),
            options={"num_warps": 4},
        )
        for kind in ("ttgir", "llir"):
            out = HERE / f"{name}{SUFFIX}.{kind}"
            out.write_text(relative_paths(compiled.asm[kind]))
        (HERE / f"{name}{SUFFIX}.alloc.ttgir").write_text(relative_paths(allocated(compiled)))
        print(
            f"wrote {name}{SUFFIX}.ttgir/.llir/.alloc.ttgir "
            f"(shared {compiled.metadata.shared} bytes)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
