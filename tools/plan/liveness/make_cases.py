"""Compile the kernels in ``tests/plan/cases/liveness/kernels.py`` for sm_90 and write one text
case per kernel to ``tests/plan/cases/text/liveness/``.

    python -m tools.plan.liveness.make_cases      # Triton 3.6; no GPU needed

A case is ``<name>.ttgir``: what it shows and where it comes from, its ``// EXPECT:`` lines (the
format of ``tests/plan/expect.py``), then the TTGIR; and ``<name>.alloc.ttgir`` beside it, the
module after the release's own allocation with the allocator's version and debug output at its
top (``expect.allocated_text``), from which ``tests/plan/test_plan_cases.py`` judges it. The
verdict is written by hand below, not by running the plan: a finding names its rule and the
TTGIR line it is on, as a pattern the line must match (its number is counted in the file
written). ``branch_buffers_unique`` is ``branch_buffers`` with the else branch's SSA names
suffixed, as a reader that tells sibling regions' names apart sees it.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

from tests.paths import PLAN_CASES

HERE = PLAN_CASES / "text" / "liveness"  # where the cases are written
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="plan-liveness-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

from alias_spec.plan.runner import allocate  # noqa: E402
from tests.plan.cases.liveness.kernels import KERNELS  # noqa: E402
from tests.plan.expect import allocated_text  # noqa: E402
from tools.plan.make_dumps import relative_paths  # noqa: E402

# name -> (the findings, each (rule, a pattern its TTGIR line matches), none: clean; why)
EXPECT: dict[str, tuple[list[tuple[str, str]], str]] = {
    "tma_store_pending": (
        [("plan.overlap", r"^\s*%b\w* = ttg\.local_alloc ")],
        "B is placed over A while A's TMA store is pending",
    ),
    "tma_store_waited": ([], "A's store is waited for before B is allocated"),
    "branch_buffers": ([], "one buffer per branch: only one branch runs"),
    "branch_buffers_unique": (
        [],
        "one buffer per branch (the else branch's names suffixed): only one branch runs",
    ),
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


def case_text(name: str, ttgir: str, compiled_by: str) -> str:
    """The case file: what it shows, where it comes from, its EXPECT lines, the TTGIR."""
    findings, why = EXPECT[name]
    kernel = "branch_buffers" if name == "branch_buffers_unique" else name
    source = f"@{kernel} of tests/plan/cases/liveness/kernels.py"
    head = [
        f"// {why[0].upper()}{why[1:]}.",
        f"// Written by tools/plan/liveness/make_cases.py: {source} compiled by Triton "
        f"{compiled_by} for sm_90.",
    ]
    lines = ttgir.split("\n")
    expect = []
    for rule, pattern in findings:
        (no,) = [i for i, ln in enumerate(lines, 1) if re.search(pattern, ln)]
        expect.append((rule, no))
    top = len(head) + max(1, len(expect))
    head += [f"// EXPECT: {rule} @ {no + top}" for rule, no in expect] or ["// EXPECT: clean"]
    return "\n".join(head) + "\n" + ttgir


def write(name: str, ttgir: str) -> None:
    done = allocate(ttgir)
    (HERE / f"{name}.ttgir").write_text(case_text(name, ttgir, triton.__version__))
    alloc = allocated_text(relative_paths(done.module), done.debug, done.version)
    (HERE / f"{name}.alloc.ttgir").write_text(alloc)
    print(f"wrote {name}.ttgir, {name}.alloc.ttgir")


def main() -> int:
    HERE.mkdir(parents=True, exist_ok=True)
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
