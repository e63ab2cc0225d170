"""Parse and verify MLIR modules with the running interpreter's Triton (its real C++ verifiers).

Protocol (stdin and stdout, one JSON object per line): each input line is ``{"id": ..., "text":
...}``; the worker answers ``{"id": id, "ok": bool, "error": str, "crash": bool}`` for each.
Triton is imported once; each module is then judged in a forked child, so a module that aborts
inside the compiler (an assert, not a diagnostic) costs one fork, not a restart, and is reported
as a crash. Without ``os.fork`` every module runs in-process (a crash then ends the worker and
``runner.py`` restarts it after the crasher). This file imports only Triton and the standard
library, so it runs inside any virtual environment that has the Triton version under test.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile


def _first_error(text: str) -> str:
    """The first diagnostic's message, without its location prefix."""
    for line in text.splitlines():
        m = re.search(r"error: (.*)$", line)
        if m:
            return m.group(1).strip()
    return text.strip().splitlines()[0] if text.strip() else ""


def _judge(ir, path: str, diag: str) -> tuple[bool, str]:
    """Parse and verify one module file; diagnostics (on fd 2) go to ``diag``."""
    fd = os.open(diag, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    saved = os.dup(2)
    os.dup2(fd, 2)
    os.close(fd)
    ok, error = False, ""
    try:
        ctx = ir.context()
        ir.load_dialects(ctx)
        mod = ir.parse_mlir_module(path, ctx)
        ok = bool(mod.verify())
    except Exception as exc:  # the parser raises on any parse or verify failure
        error = str(exc)
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
    with open(diag) as f:
        text = f.read()
    if not ok:
        error = _first_error(text) or error or "verification failed"
    return ok, error


def _forked(ir, path: str, diag: str) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: judge, report through the pipe, leave without cleanup
        os.close(read)
        ok, error = _judge(ir, path, diag)
        os.write(write, json.dumps({"ok": ok, "error": error}).encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if chunks and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return {**json.loads(b"".join(chunks)), "crash": False}
    with open(diag, errors="replace") as f:
        tail = " | ".join(f.read().strip().splitlines()[-2:])
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {"ok": False, "error": f"process died (signal {sig}): {tail}"[:400], "crash": True}


def main() -> int:
    from triton._C.libtriton import ir

    out = sys.stdout
    tmpdir = tempfile.mkdtemp(prefix="triton-diff-")
    path = os.path.join(tmpdir, "module.mlir")
    diag = os.path.join(tmpdir, "diag.txt")
    fork = hasattr(os, "fork") and "--no-fork" not in sys.argv
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        with open(path, "w") as f:
            f.write(case["text"])
        if fork:
            result = _forked(ir, path, diag)
        else:
            out.write(json.dumps({"begin": case["id"]}) + "\n")
            out.flush()
            ok, error = _judge(ir, path, diag)
            result = {"ok": ok, "error": error, "crash": False}
        out.write(json.dumps({"id": case["id"], **result}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
