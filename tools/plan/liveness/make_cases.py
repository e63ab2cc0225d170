"""Compile the kernels in ``tests/plan/cases/liveness/kernels.py`` for sm_90 and write one case
file per kernel beside them.

    python -m tools.plan.liveness.make_cases      # Triton 3.6; no GPU needed

A case is ``<name>.json``: the TTGIR, the module after the release's own allocation (module,
allocator debug text, version), and the verdict the plan must give (written by hand below,
not by running the plan). ``branch_buffers_unique`` is ``branch_buffers`` with the else
branch's SSA names suffixed, as a reader that tells sibling regions' names apart sees it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile

from tests.paths import PLAN_CASES

HERE = PLAN_CASES / "liveness"  # where the cases are written
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-liveness-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from alias_spec.plan.runner import allocate  # noqa: E402
from tests.plan.cases.liveness.kernels import KERNELS  # noqa: E402
from tools.plan.make_dumps import relative_paths  # noqa: E402

EXPECT = {
    "tma_store_pending": ("plan.overlap", "B is placed over A while A's TMA store is pending"),
    "tma_store_waited": ("clean", "A's store is waited for before B is allocated"),
    "branch_buffers": ("clean", "one buffer per branch: only one branch runs"),
    "branch_buffers_unique": ("clean", "one buffer per branch: only one branch runs"),
}


def unique_else(text: str) -> str:
    """The else branch's names given a suffix (the branch's own names only)."""
    start = text.index("} else {")
    end = text.index("} loc(", start)
    names = set(re.findall(r"(%[\w]+)(?::\d+)? = ", text[start:end]))
    body = text[start:end]
    for name in sorted(names, key=len, reverse=True):
        body = re.sub(re.escape(name) + r"\b", name + "_else", body)
    return text[:start] + body + text[end:]


def write(name: str, ttgir: str) -> None:
    done = allocate(ttgir)
    verdict, why = EXPECT[name]
    record = {"name": name, "expect": verdict, "why": why, "triton": triton.__version__,
              "ttgir": ttgir,
              "alloc": {"module": relative_paths(done.module), "debug": done.debug,
                        "version": done.version}}  # fmt: skip
    (HERE / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {name}.json")


def main() -> int:
    for name, (fn, signature) in KERNELS.items():
        compiled = triton.compile(GluonASTSource(fn, signature=signature, constexprs={}),
                                  target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": 4})  # fmt: skip
        ttgir = relative_paths(compiled.asm["ttgir"])
        write(name, ttgir)
        if name == "branch_buffers":
            write("branch_buffers_unique", unique_else(ttgir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
