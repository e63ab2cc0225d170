"""Run a Triton release's shared-memory allocation on a TTGIR module, in a subprocess.

The interpreter named by ``--python`` (default: this one) runs ``worker.py`` by path: it needs
Triton but not this package. Some inputs abort inside the compiler, so the allocation always
runs in its own process, with a time limit, and with its temporary directory inside one this
module creates and removes afterwards (a process killed by the compiler cleans up nothing).
Under this interpreter, one worker serves the modules of this process in turn (Triton is
imported once, not once per kernel: that import was most of the plan of a small kernel); when
it fails in any way but a timeout, the module is allocated again by a worker of its own, whose
failure says what went wrong. An interpreter named by ``--python`` gets a worker per module.

The release's own pre-passes canonicalize the module before allocating it, which deletes
allocations nothing uses: a plan judged after that would say nothing about them. When they
remove any ``ttg.local_alloc``, the allocation is run again on the module as written (the
folding pass left out, as Triton's own allocation test does) and ``Allocated.removed`` says
what the release's pipeline would have removed, so that the caller can note it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from alias_spec.plan.worker import ENV_PARENT

WORKER = Path(__file__).resolve().parent / "worker.py"
# The allocator's debug type: with it, each function's buffers, their sizes and offsets are
# written to stderr (older releases print only the offsets into the module).
DEBUG_TYPE = "allocation-shared-memory"
TIMEOUT_S = 300.0
PREPASSES = ("auto", "release", "as_written", "none")


class AllocationError(Exception):
    """The release could not allocate the module, or could not be run (one line)."""


@dataclass
class Allocated:
    module: str  # the module as printed after the allocation pass
    debug: str  # the allocator's debug output
    version: str  # the Triton version that allocated it
    # What the release's pre-passes removed (one line each): with prepasses "release", from
    # the module the allocator saw; with "auto", from the module the release's pipeline would
    # give it (the plan is then of the module as written). Empty when nothing was removed.
    removed: list[str] = field(default_factory=list)
    prepasses: str = "release"  # "release", "as_written" or "none": what the allocator saw


def _no_paths(text: str) -> str:
    """Messages quote paths of the machine: keep only the file names."""
    return re.sub(r"(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", text)


def _named(python: str | None) -> str:
    """The interpreter as the user named it (its file name when it is a path)."""
    if python is None:
        return "this interpreter"
    return f"--python {Path(python).name or python}"


def removed_allocs(before: dict, after: dict) -> list[str]:
    """One line per function whose ttg.local_alloc ops the pre-passes deleted. A function
    that called others may gain its callees' allocations by inlining, so only the module's
    total is compared for it; a function that calls nothing can only lose them."""
    lines = []
    for name, (allocs, calls) in before.items():
        left = after.get(name, [0, 0])[0] if name in after else None
        if left is None:
            continue  # a callee inlined everywhere and deleted: its allocations moved
        if calls == 0 and left < allocs:
            lines.append(f"@{name}: {allocs - left} of {allocs} ttg.local_alloc")
    total_before = sum(v[0] for v in before.values())
    total_after = sum(v[0] for v in after.values())
    if not lines and total_after < total_before:
        lines.append(f"{total_before - total_after} of {total_before} ttg.local_alloc")
    return lines


class _Server:
    """A worker answering one request per line; the caller holds its lock."""

    def __init__(self, python: str | None) -> None:
        self.lock = threading.Lock()
        self.scratch = tempfile.mkdtemp(prefix="alias-spec-plan-")
        env = dict(os.environ, TRITON_LLVM_DEBUG_ONLY=DEBUG_TYPE, PYTHONDONTWRITEBYTECODE="1",
                   TMPDIR=self.scratch, TEMP=self.scratch, TMP=self.scratch,
                   **{ENV_PARENT: str(os.getpid())})  # fmt: skip
        # Its stderr goes to a file: a pipe nobody reads could fill and stop it.
        self.errors = open(os.path.join(self.scratch, "stderr.txt"), "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [python or sys.executable, str(WORKER), "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env,
        )  # fmt: skip

    def ask(self, request: dict, timeout: float) -> dict | None:
        """The reply; None when the worker failed (it is closed then). AllocationError past
        ``timeout`` seconds."""
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            proc.stdin.flush()
        except OSError:
            self.close()
            return None
        deadline = time.monotonic() + timeout
        buf = bytearray()
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while not buf.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close()
                    raise AllocationError(f"the allocation took over {timeout:.0f} s")
                chunk = os.read(fd, 1 << 20)
                if not chunk:  # it died
                    self.close()
                    return None
                buf += chunk
        try:
            reply = json.loads(buf)
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self.close()
            return None
        return reply

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # it ends when its input does
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        self.errors.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


# Per (process, interpreter): a forked child must not talk to its parent's worker.
_SERVERS: dict[tuple[int, str | None], _Server] = {}
_SERVERS_LOCK = threading.Lock()


def _served(text: str, python: str | None, timeout: float, prepasses: str) -> dict | None:
    """The reply of this process's worker for ``python``; None when it could not give one."""
    key = (os.getpid(), python)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is not None and not server.alive():
            server.close()  # died between two modules: its scratch goes with it
            server = None
        if server is None:
            try:
                server = _SERVERS[key] = _Server(python)
            except OSError:
                return None  # the one-shot worker says why
            _stop_at_exit()
    try:
        with server.lock:
            reply = server.ask({"text": text, "prepasses": prepasses}, timeout)
    finally:
        if not server.alive():  # closed: killed past its time, or failed
            with _SERVERS_LOCK:
                if _SERVERS.get(key) is server:
                    del _SERVERS[key]
    return reply


def stop_servers() -> None:
    """Stop this process's workers and remove their scratch. Called at exit; a process that
    leaves by ``os._exit`` (the command's forked child, a pool's worker) calls it first."""
    with _SERVERS_LOCK:
        mine = [k for k in _SERVERS if k[0] == os.getpid()]
        for k in mine:
            _SERVERS.pop(k).close()


_STOPPING: set[int] = set()  # the processes whose exit stops their workers


def _stop_at_exit() -> None:
    if os.getpid() in _STOPPING:
        return
    _STOPPING.add(os.getpid())
    atexit.register(stop_servers)
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        from multiprocessing import util

        util.Finalize(None, stop_servers, exitpriority=10)  # a pool's worker skips atexit


def _run(text: str, python: str | None, timeout: float, prepasses: str) -> dict:
    # Served by this interpreter only: its worker is this file, which knows ``--serve``; an
    # interpreter named by --python may run anything (one that reads its input to the end
    # before answering would wait for an end that serving never gives).
    reply = _served(text, python, timeout, prepasses) if python is None else None
    if (
        reply is not None
        and reply["ok"]
        and all(isinstance(reply.get(k), str) for k in ("module", "version"))
    ):
        return reply
    # A failure, or a worker that could not serve: a worker of its own gives the message.
    return _run_once(text, python, timeout, prepasses)


def _run_once(text: str, python: str | None, timeout: float, prepasses: str) -> dict:
    scratch = tempfile.mkdtemp(prefix="alias-spec-plan-")
    # The worker ends itself when this process dies (ENV_PARENT: see die_with_parent).
    env = dict(os.environ, TRITON_LLVM_DEBUG_ONLY=DEBUG_TYPE, PYTHONDONTWRITEBYTECODE="1",
               TMPDIR=scratch, TEMP=scratch, TMP=scratch,
               **{ENV_PARENT: str(os.getpid())})  # fmt: skip
    who = _named(python)
    try:
        proc = subprocess.run(
            [python or sys.executable, str(WORKER)],
            input=json.dumps({"text": text, "prepasses": prepasses}),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            env=env,
        )
    except FileNotFoundError:
        raise AllocationError(f"{who}: no such file") from None
    except PermissionError:
        raise AllocationError(f"{who}: not executable") from None
    except OSError as exc:
        raise AllocationError(f"{who}: cannot run it ({exc.strerror or exc})") from None
    except subprocess.TimeoutExpired:
        raise AllocationError(f"the allocation took over {timeout:.0f} s") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        if "No module named 'triton'" in proc.stderr:
            if python is None:  # this interpreter: say what to install, not an option's fault
                raise AllocationError(
                    "recovering the plan needs Triton: pip install 'tle-alias-spec[plan]', "
                    "or name an interpreter that has it with --python (or give a module "
                    "with allocation.offset attributes)"
                ) from None
            raise AllocationError(f"{who}: that interpreter cannot import triton") from None
        if proc.returncode < 0:
            tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()][-1:]
            detail = f": {_no_paths(tail[0])[:200]}" if tail else ""
            raise AllocationError(
                f"Triton's allocation failed (died, signal {-proc.returncode}){detail}"
            ) from None
        if proc.returncode == 0 or not proc.stderr.strip():
            what = "no output" if not proc.stdout.strip() else "output that is not its reply"
            raise AllocationError(
                f"{who} answered {what} (exit status {proc.returncode}): "
                "is it a Python interpreter with Triton?"
            ) from None
        tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()][-1:]
        detail = f": {_no_paths(tail[0])[:200]}" if tail else ""
        raise AllocationError(
            f"Triton's allocation failed under {who} (exit status {proc.returncode}){detail}"
        ) from None
    if not reply["ok"]:
        error = reply.get("error", "unknown error")
        raise AllocationError(f"Triton cannot read the module: {_no_paths(str(error))[:200]}")
    if not all(isinstance(reply.get(k), str) for k in ("module", "version")):
        raise AllocationError(f"{who} answered a reply without a module: is its Triton one "
                              "this tool supports?")  # fmt: skip
    return reply


def allocate(
    text: str, python: str | None = None, timeout: float = TIMEOUT_S, prepasses: str = "auto"
) -> Allocated:
    """The module after ``python``'s Triton ran its allocation; AllocationError otherwise.

    ``prepasses``: "release" (the backend's passes before the allocation, folding included;
    ``removed`` says what they deleted), "as_written" (the folding pass left out), "none" (no
    pass before the allocation, as Triton's own allocation test runs it) or "auto" (release,
    unless that removes an allocation: then as written, with ``removed`` saying what the
    release would remove)."""
    if prepasses not in PREPASSES:
        raise ValueError(f"prepasses must be one of {', '.join(PREPASSES)}")
    used = "release" if prepasses == "auto" else prepasses
    reply = _run(text, python, timeout, used)
    removed: list[str] = []
    if used == "release":
        removed = removed_allocs(_census(reply, "before"), _census(reply, "after"))
        if removed and prepasses == "auto":
            reply = _run(text, python, timeout, "as_written")
            used = "as_written"
    return Allocated(reply["module"], str(reply.get("debug", "")), reply["version"], removed,
                     used)  # fmt: skip


def _census(reply: dict, key: str) -> dict[str, list[int]]:
    value = reply.get(key)
    if not isinstance(value, dict):
        return {}
    return {str(k): [v[0], v[1]] for k, v in value.items()
            if isinstance(v, list) and len(v) == 2 and all(type(n) is int for n in v)}  # fmt: skip
