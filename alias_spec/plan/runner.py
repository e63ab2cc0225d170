"""Run a Triton release's shared-memory allocation on a TTGIR module, in a subprocess.

The interpreter named by ``--python`` (default: this one) runs ``worker.py`` by path: it needs
Triton but not this package. Some inputs abort inside the compiler, so the allocation always
runs in its own process, with a time limit, and with its temporary directory inside one this
module creates and removes afterwards (a process killed by the compiler cleans up nothing).

The release's own pre-passes canonicalize the module before allocating it, which deletes
allocations nothing uses: a plan judged after that would say nothing about them. When they
remove any ``ttg.local_alloc``, the allocation is run again on the module as written (the
folding pass left out, as Triton's own allocation test does) and ``Allocated.removed`` says
what the release's pipeline would have removed, so that the caller can note it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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


def _run(text: str, python: str | None, timeout: float, prepasses: str) -> dict:
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
