"""Run many MLIR modules through one Triton's real verifiers, in as few processes as possible.

All modules go to one worker process (``worker.py``), which imports Triton once and judges each
module in a forked child: a module that kills its child (an assert or abort inside the compiler)
is recorded as ``crash``. Should the worker itself die, a fresh one continues after the module
it was on. Processes are started by ``alias_spec.ir.procs``: a failure to run the interpreter,
or a worker past its time, is one line (``procs.RunError``, a RuntimeError).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alias_spec.ir import procs

WORKER = Path(__file__).resolve().parent / "worker.py"
# Asked of the interpreter: its Triton's version, as a JSON reply.
_VERSION = "import json, triton; print(json.dumps({'version': triton.__version__}))"


class InterpreterError(Exception):
    """The interpreter given cannot run the test (missing, not Python, or without Triton)."""


def _has_version(reply: Any) -> bool:
    return isinstance(reply, dict) and isinstance(reply.get("version"), str)


def triton_version(python: str = sys.executable) -> str:
    """The Triton version ``python`` imports; InterpreterError (one line) if it cannot."""
    try:
        done = procs.run([python, "-c", _VERSION], timeout=300, who=python, task="importing triton")
        reply = done.reply(_has_version)
    except procs.RunError as exc:  # the caller names the interpreter
        raise InterpreterError(exc.problem) from None
    return str(reply["version"])


def verify_modules(
    modules: Sequence[tuple[str, str]], python: str = sys.executable, timeout: float = 600
) -> dict[str, dict[str, Any]]:
    """{id: {"ok": bool, "error": str, "crash": bool}} for (id, MLIR text) pairs."""
    results: dict[str, dict[str, Any]] = {}
    todo = list(modules)
    while todo:
        payload = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in todo)
        # RunError (a RuntimeError, one line) when it cannot run or runs past its time.
        ran = procs.run([python, str(WORKER)], payload, timeout=timeout, who=python,
                       task="verifying the modules")  # fmt: skip
        begun: str | None = None
        for line in ran.stdout.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                raise RuntimeError(
                    f"the worker answered a line that is not JSON: {line[:80]!r}"
                ) from None
            if "begin" in msg:
                begun = msg["begin"]
            else:
                results[msg["id"]] = {
                    "ok": msg["ok"],
                    "error": procs.no_paths(msg["error"]),
                    "crash": msg.get("crash", False),
                }
                begun = None
        if ran.status == 0 and begun is None:
            missing = [i for i, _ in todo if i not in results]
            if missing:
                raise RuntimeError(f"worker skipped {len(missing)} modules: {missing[:3]}")
            break
        if begun is None:
            begun = next((i for i, _ in todo if i not in results), None)
        if begun is None:
            raise RuntimeError(f"worker failed before any module:\n{ran.stderr[-2000:]}")
        tail = ran.stderr.strip().splitlines()[-3:]
        results[begun] = {"ok": False, "error": procs.no_paths(" | ".join(tail))[-400:],
                          "crash": True}  # fmt: skip
        done = {i for i, _ in todo if i in results}
        todo = [(i, t) for i, t in todo if i not in done]
    return results
