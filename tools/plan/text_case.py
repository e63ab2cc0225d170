"""Writing a compiled kernel as a text case of the plan (``tests/plan/cases/text/TOPIC/``): the
case file (its comment lines, then the TTGIR), the LLVM IR beside it and the module after the
release's own allocation, so that the case is judged without Triton (``tests/plan/expect.py``)."""

from __future__ import annotations

from pathlib import Path

from alias_spec.plan.runner import allocate
from tests.plan.expect import allocated_text
from tools.plan.make_dumps import relative_paths


def write(here: Path, name: str, case: str, ttgir: str, llir: str) -> None:
    """``case`` (the case file's text) as ``NAME.ttgir``, ``llir`` as ``NAME.llir`` and the
    allocated ``ttgir`` as ``NAME.alloc.ttgir`` in ``here``."""
    here.mkdir(parents=True, exist_ok=True)
    (here / f"{name}.ttgir").write_text(case)
    (here / f"{name}.llir").write_text(llir)
    done = allocate(ttgir)
    alloc = allocated_text(relative_paths(done.module), done.debug, done.version)
    (here / f"{name}.alloc.ttgir").write_text(alloc)
    print(f"wrote {name}.ttgir, {name}.llir, {name}.alloc.ttgir in {here}")
