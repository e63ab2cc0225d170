"""Run a Triton release's shared-memory allocation on a TTGIR module, in a subprocess.

The interpreter named by ``--python`` (default: this one) runs ``worker.py`` by path: it needs
Triton but not this package. Some inputs abort inside the compiler, so the allocation always
runs in its own process, with a time limit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

WORKER = Path(__file__).resolve().parent / "worker.py"
# The allocator's debug type: with it, each function's buffers, their sizes and offsets are
# written to stderr (older releases print only the offsets into the module).
DEBUG_TYPE = "allocation-shared-memory"
TIMEOUT_S = 300.0


class AllocationError(Exception):
    """The release could not allocate the module, or could not be run (one line)."""


@dataclass
class Allocated:
    module: str  # the module as printed after the allocation pass
    debug: str  # the allocator's debug output
    version: str  # the Triton version that allocated it


def _no_paths(text: str) -> str:
    """Messages quote paths of the machine: keep only the file names."""
    return re.sub(r"(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", text)


def allocate(text: str, python: str | None = None, timeout: float = TIMEOUT_S) -> Allocated:
    """The module after ``python``'s Triton ran its allocation; AllocationError otherwise."""
    env = dict(os.environ, TRITON_LLVM_DEBUG_ONLY=DEBUG_TYPE, PYTHONDONTWRITEBYTECODE="1")
    try:
        proc = subprocess.run(
            [python or sys.executable, str(WORKER)],
            input=json.dumps({"text": text}),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except FileNotFoundError:
        raise AllocationError("--python: no such file") from None
    except PermissionError:
        raise AllocationError("--python: not executable") from None
    except OSError as exc:
        raise AllocationError(f"--python: cannot run it ({exc.strerror or exc})") from None
    except subprocess.TimeoutExpired:
        raise AllocationError(f"the allocation took over {timeout:.0f} s") from None
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()][-1:]
        if "No module named 'triton'" in proc.stderr:
            raise AllocationError("--python: that interpreter cannot import triton") from None
        why = (
            f"died (signal {-proc.returncode})"
            if proc.returncode < 0
            else f"exit status {proc.returncode}"
        )
        detail = f": {_no_paths(tail[0])[:200]}" if tail else ""
        raise AllocationError(f"Triton's allocation failed ({why}){detail}") from None
    if not isinstance(reply, dict) or not reply.get("ok"):
        error = reply.get("error", "unknown error") if isinstance(reply, dict) else "bad reply"
        raise AllocationError(f"Triton cannot read the module: {_no_paths(str(error))[:200]}")
    return Allocated(str(reply["module"]), str(reply.get("debug", "")), str(reply["version"]))
