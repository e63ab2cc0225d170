"""The examples' path without a GPU: compile each kernel for sm_90 on the CPU and judge what
Triton made of it, then say in one line that the GPU part was skipped.

A kernel that compiles has passed the alias checks of ``tle.gpu.alloc`` (the spec, under the
profile TLE_ALIAS_PROFILE names, ``safe`` by default). Its TTGIR is then linted (every view
judged where it lands in its allocation) and its shared-memory plan and LLVM IR checked
(``alias_spec.plan.check_compiled``), both as ``alias-spec lint`` and ``alias-spec plan`` would.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def gpu_present() -> bool:
    """torch is installed and sees a CUDA device."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def judge(
    label: str,
    kernel: Any,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any] | None = None,
    num_warps: int = 4,
) -> bool:
    """Compile ``kernel`` for sm_90, lint and plan-check it, print the verdicts; True when
    nothing was found. A kernel the alias checks reject prints the rule and its fix."""
    from triton.compiler.errors import CompilationError

    from alias_spec.frontend.compile import compile_for
    from alias_spec.frontend.tle.gpu import PROFILE_ENV
    from alias_spec.lint.lint import lint_text
    from alias_spec.lint.lint import to_text as lint_report
    from alias_spec.plan import check_compiled
    from alias_spec.plan.output import to_text as plan_report

    profile = os.environ.get(PROFILE_ENV) or "safe"
    try:
        compiled = compile_for(kernel, signature, constexprs, "sm_90", num_warps)
    except CompilationError as exc:
        # The frontend's message: "  [rule] what; fix: ..." lines under its headline.
        why = [s.strip() for s in str(exc).splitlines() if re.match(r"\s*\[[\w.-]+\]", s)]
        print(f"{label}: rejected at compile time (profile {profile})")
        for line in why or [str(exc).splitlines()[-1]]:
            print(f"  {line}")
        return True  # the spec said no before any code was made: nothing unsafe was built
    print(
        f"{label}: compiled for sm_90 (alias checks passed, profile {profile}), "
        f"{compiled.metadata.shared} bytes of shared memory"
    )
    lint = lint_text(compiled.asm["ttgir"], f"{label}.ttgir", "safe")
    plan = check_compiled(compiled)
    for name, text in (("lint", lint_report(lint)), ("plan", plan_report(plan))):
        lines = text.splitlines()
        # No view op is left when an alias lowers to its source itself: lint judged nothing.
        none = " (no view op in the TTGIR to judge)" if name == "lint" and not lint.views else ""
        print(f"  {name}: {lines[-1]}{none}")
        for line in lines[:-1]:
            print(f"    {line}")
    return not lint.findings and plan.status != "findings"


def skipped(script: str, what: str) -> None:
    print(f"examples/{Path(script).name}: no CUDA GPU here: {what} skipped")
