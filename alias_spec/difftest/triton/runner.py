"""Run many MLIR modules through one Triton's real verifiers, in as few processes as possible.

All modules go to one worker process (``worker.py``), which imports Triton once and judges each
module in a forked child: a module that kills its child (an assert or abort inside the compiler)
is recorded as ``crash``. Should the worker itself die, a fresh one continues after the module
it was on.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

WORKER = Path(__file__).resolve().parent / "worker.py"


def _no_paths(text: str) -> str:
    """Abort messages quote build paths of the machine: keep only the file names. An assert
    also names the program as invoked (python, python3): drop it, it says nothing."""
    text = re.sub(r"(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", text)
    return re.sub(r"(^|: )[\w.+-]+: (?=[\w.+-]+:\d+: )", r"\1", text)


class InterpreterError(Exception):
    """The interpreter given cannot run the test (missing, not Python, or without Triton)."""


def triton_version(python: str = sys.executable) -> str:
    """The Triton version ``python`` imports; InterpreterError (one line) if it cannot."""
    try:
        proc = subprocess.run(
            [python, "-c", "import triton; print(triton.__version__)"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except FileNotFoundError:
        raise InterpreterError("no such file") from None
    except PermissionError:
        raise InterpreterError("not executable") from None
    except OSError as exc:
        raise InterpreterError(f"cannot run it: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise InterpreterError("importing triton took over 300 s") from None
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 0:
        last = lines[-1] if lines else f"exit status {proc.returncode}"
        raise InterpreterError(f"cannot import triton ({_no_paths(last)[:200]})")
    out = proc.stdout.strip().splitlines()
    if not out:
        raise InterpreterError("printed no Triton version (not a Python interpreter?)")
    return out[-1]


def verify_modules(
    modules: Sequence[tuple[str, str]], python: str = sys.executable, timeout: float = 600
) -> dict[str, dict[str, Any]]:
    """{id: {"ok": bool, "error": str, "crash": bool}} for (id, MLIR text) pairs."""
    results: dict[str, dict[str, Any]] = {}
    todo = list(modules)
    while todo:
        payload = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in todo)
        proc = subprocess.run(
            [python, str(WORKER)],
            input=payload,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        begun: str | None = None
        for line in proc.stdout.splitlines():
            msg = json.loads(line)
            if "begin" in msg:
                begun = msg["begin"]
            else:
                results[msg["id"]] = {
                    "ok": msg["ok"],
                    "error": _no_paths(msg["error"]),
                    "crash": msg.get("crash", False),
                }
                begun = None
        if proc.returncode == 0 and begun is None:
            missing = [i for i, _ in todo if i not in results]
            if missing:
                raise RuntimeError(f"worker skipped {len(missing)} modules: {missing[:3]}")
            break
        if begun is None:
            begun = next((i for i, _ in todo if i not in results), None)
        if begun is None:
            raise RuntimeError(f"worker failed before any module:\n{proc.stderr[-2000:]}")
        tail = proc.stderr.strip().splitlines()[-3:]
        results[begun] = {"ok": False, "error": _no_paths(" | ".join(tail))[-400:], "crash": True}
        done = {i for i, _ in todo if i in results}
        todo = [(i, t) for i, t in todo if i not in done]
    return results
