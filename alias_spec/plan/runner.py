"""Run a Triton release's shared-memory allocation on a TTGIR module, in a subprocess.

The interpreter named by ``--python`` (default: this one) runs ``worker.py`` by path: it needs
Triton but not this package. Some inputs abort inside the compiler, so the allocation always
runs in its own process, started by ``alias_spec.ir.procs`` (a time limit, a temporary folder
removed afterwards, since a process killed by the compiler cleans up nothing, and every
failure one line).
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

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alias_spec.ir import procs

WORKER = Path(__file__).resolve().parent / "worker.py"
# The allocator's debug type: with it, each function's buffers, their sizes and offsets are
# written to stderr (older releases print only the offsets into the module).
DEBUG_TYPE = "allocation-shared-memory"
_ENV = {"TRITON_LLVM_DEBUG_ONLY": DEBUG_TYPE}
TASK = "Triton's allocation"  # what failed, in messages
SERVED = "plan-allocation"  # the key of this process's served worker (procs.ask_kept)
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


def _is_reply(reply: Any) -> bool:
    return isinstance(reply, dict) and isinstance(reply.get("ok"), bool)


def _request(text: str, prepasses: str) -> dict[str, str]:
    return {"text": text, "prepasses": prepasses}


def _start_served() -> procs.Served:
    return procs.Served([sys.executable, str(WORKER), "--serve"], env=_ENV, who=_named(None),
                        task=TASK)  # fmt: skip


def stop_servers() -> None:
    """Stop this process's served workers and remove their scratch. Called at exit; a process
    that leaves by ``os._exit`` (the command's forked child, a pool's worker) calls it first."""
    procs.stop_kept()


def _first(prepasses: str) -> str:
    """The pre-passes of the first allocation asked for: "auto" starts as the release's."""
    return "release" if prepasses == "auto" else prepasses


def request(text: str, python: str | None = None, prepasses: str = "auto") -> procs.Pending | None:
    """The allocation ``allocate`` will ask for, sent now to this process's served worker,
    which works on it while the caller reads the module (pass it to ``allocate``, or
    ``drop`` it). None where the allocation is not served (another interpreter) or no worker
    started."""
    if python is not None or prepasses not in PREPASSES:
        return None
    try:
        return procs.send_kept(SERVED, _start_served, _request(text, _first(prepasses)))
    except procs.RunError:
        return None  # ``allocate`` asks again, and says why


def _run(text: str, python: str | None, timeout: float, prepasses: str,
         pending: procs.Pending | None = None) -> dict:  # fmt: skip
    try:
        # Served by this interpreter only: its worker is this file, which knows ``--serve``;
        # an interpreter named by --python may run anything (one that reads its input to the
        # end before answering would wait for an end that serving never gives).
        reply = None
        if pending is not None and (
            python is not None or pending.request != _request(text, prepasses)
        ):
            pending.drop()  # not this request: its answer is of no use
            pending = None
        if pending is not None:
            reply = pending.reply(timeout, _is_reply)
        elif python is None:
            reply = procs.ask_kept(SERVED, _start_served, _request(text, prepasses), timeout,
                                   _is_reply)  # fmt: skip
        if (
            reply is not None
            and reply["ok"]
            and all(isinstance(reply.get(k), str) for k in ("module", "version"))
        ):
            return reply
        # A failure, or a worker that could not serve: a worker of its own gives the message.
        return _run_once(text, python, timeout, prepasses)
    except procs.RunError as exc:
        if exc.kind == "no_triton" and python is None:  # say what to install, not an option
            raise AllocationError(
                "recovering the plan needs Triton: pip install 'tle-alias-spec[plan]', "
                "or name an interpreter that has it with --python (or give a module "
                "with allocation.offset attributes)"
            ) from None
        raise AllocationError(str(exc)) from None


def _run_once(text: str, python: str | None, timeout: float, prepasses: str) -> dict:
    """The reply of a worker of its own (RunError when it gave none)."""
    who = _named(python)
    done = procs.run([python or sys.executable, str(WORKER)], json.dumps(_request(text, prepasses)),
                     timeout=timeout, env=_ENV, who=who, task=TASK)  # fmt: skip
    reply = done.reply(_is_reply)
    if not reply["ok"]:
        error = reply.get("error", "unknown error")
        raise AllocationError(f"Triton cannot read the module: {procs.no_paths(str(error))[:200]}")
    if not all(isinstance(reply.get(k), str) for k in ("module", "version")):
        raise AllocationError(f"{who} answered a reply without a module: is its Triton one "
                              "this tool supports?")  # fmt: skip
    return reply


def allocate(
    text: str,
    python: str | None = None,
    timeout: float = TIMEOUT_S,
    prepasses: str = "auto",
    pending: procs.Pending | None = None,
) -> Allocated:
    """The module after ``python``'s Triton ran its allocation; AllocationError otherwise.

    ``prepasses``: "release" (the backend's passes before the allocation, folding included;
    ``removed`` says what they deleted), "as_written" (the folding pass left out), "none" (no
    pass before the allocation, as Triton's own allocation test runs it) or "auto" (release,
    unless that removes an allocation: then as written, with ``removed`` saying what the
    release would remove). ``pending``: the request ``request`` sent earlier (its answer
    read here; one for other text or options is dropped)."""
    if prepasses not in PREPASSES:
        if pending is not None:
            pending.drop()
        raise ValueError(f"prepasses must be one of {', '.join(PREPASSES)}")
    used = _first(prepasses)
    reply = _run(text, python, timeout, used, pending)
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
