"""What an example needs beyond the README's install, said in one line instead of a traceback.

An example that cannot run here prints ``examples/NAME.py: needs ...`` on stderr and exits
with ``MISSING`` (77, the "skipped" status of automake and meson test harnesses).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

MISSING = 77
# The plan extra installs everything the path without a GPU needs (compile, lint, plan check).
PLAN_EXTRA = "pip install -e '.[plan]'"
INSTALL = {"triton": PLAN_EXTRA, "pydantic": PLAN_EXTRA, "z3": PLAN_EXTRA,
           "llvmlite": PLAN_EXTRA, "torch": "pip install torch"}  # fmt: skip
# What the path without a GPU imports beyond Triton.
CPU_PATH = ("pydantic", "z3", "llvmlite")


def require(script: str, modules: tuple[str, ...], gpu: bool = False) -> None:
    """Exit with one line naming what is missing: a module (and how to install it), or a
    CUDA GPU. Returns when everything is there."""
    name = f"examples/{Path(script).name}"
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        how = "; ".join(dict.fromkeys(INSTALL.get(m, f"pip install {m}") for m in missing))
        gpu_too = " and a CUDA GPU" if gpu else ""
        sys.exit(_say(f"{name}: needs {' and '.join(missing)}{gpu_too} ({how})"))
    if gpu:
        import torch

        if not torch.cuda.is_available():
            sys.exit(_say(f"{name}: needs a CUDA GPU (torch sees none)"))


def _say(line: str) -> int:
    print(line, file=sys.stderr)
    return MISSING
