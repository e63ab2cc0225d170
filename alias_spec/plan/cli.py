"""``alias-spec plan``: its arguments and the command (``add_parser`` hooks it into the CLI)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from alias_spec.ir.inputs import read_text
from alias_spec.ir.inputs import shown as _shown

HELP = """\
Check the shared-memory plan a Triton release makes for a compiled kernel, and (with --llir)
the addresses its LLVM IR computes. KERNEL.ttgir is what triton.compile returns as
asm["ttgir"]; the release named by --python (default: this interpreter's) runs its own
allocation on it in a subprocess. A module that already carries allocation.offset attributes
(a FlagTree dump) is judged as it is. Liveness is computed here: a buffer is live from its
definition to the last use of anything derived from it (views, aliases, pointers, values
carried through loops, branches, partitions and calls), widened over loops.

Findings: two buffers live at once that share bytes (plan.overlap), a buffer outside
ttg.shared or its call frame (plan.bounds), an LLVM IR address outside its function's range
(lowering.outside: the kernel's [0, ttg.shared), a callee's frame at each call site).
With --races (and --llir): two threads of a CTA touching a shared byte with nothing ordering
them, one writing (plan.race, with the byte and the two thread ids): no CTA barrier between
them, an asynchronous access (cp.async, TMA, wgmma) still in flight, an mbarrier waited on the
wrong phase, or a generic write read through the async proxy with no proxy fence
(plan.race.proxy). What it cannot decide is a note naming the pair (partial), never clean.

DIR (a Triton cache, or any tree of NAME.ttgir with NAME.llir beside it): every kernel judged,
on --jobs processes (default: every core) or on the Ray cluster at --ray (--races: each with
the LLVM IR beside it); each kernel that is not clean is reported, then one table: per kernel
name, how many were clean, partial, had findings or could not be judged (error). A progress
bar on a terminal's stderr.

Exit status: 0 proved clean, 1 findings, 2 unreadable input (one line on stderr),
3 partly judged (something not modelled or not bounded: the notes say what). For DIR: 1 any
kernel with findings, 3 none but some partial or not judged, 2 no kernel in it (or none
could be judged)."""


# ``alias-spec plan-run``'s help. Its parser is the hook's own (``hook.main``), which the command
# line imports only when it runs; the text is kept here, beside plan's, for both to show.
RUN_HELP = """\
Run a Python program (script.py [ARGS...], or -m MODULE [ARGS...] as python -m does) with every
Triton kernel it compiles judged by alias-spec plan: the hook (alias_spec.plan.install) judges
each kernel's TTGIR and LLVM IR when Triton compiles it for a launch or a warmup, and writes its
report to stderr (with --out, also its texts and JSON report to DIR); the table of verdicts per
kernel name comes last.

Modes: report (default) never raises; raise: a finding raises PlanFindingsError from the launch
that compiled the kernel, and if the program does not catch it, it ends with one line on stderr
and exit status 1; strict: so does a kernel only partly judged or unreadable. Without --mode
and --out, ALIAS_SPEC_PLAN (the mode; 1 or on means report) and ALIAS_SPEC_PLAN_OUT give them.
Exit status: the program's own, 2 when it cannot start (no such file, no Triton)."""


def read_input(path: str) -> str:
    """A file's text (or stdin's for ``-``); ValueError with one line when it cannot be read
    (``ir.inputs``, every command's reader)."""
    return read_text(path)


def run(file: str, llir: str | None, python: str | None, fmt: str, races: bool = False) -> int:
    """The command; prints the report, returns the exit status."""
    from alias_spec.ir.ttgir import TtgirError
    from alias_spec.plan import pipeline
    from alias_spec.plan.llir import LlirError
    from alias_spec.plan.output import exit_status, to_json, to_sarif, to_text
    from alias_spec.plan.runner import AllocationError

    try:
        text = read_input(file)
        llir_text = read_input(llir) if llir else None
        try:
            report = pipeline.run(pipeline.Run(text, file, llir_text, llir or "", python,
                                               no_llir="not checked (no --llir)",
                                               races=races))  # fmt: skip
        except LlirError as exc:
            raise ValueError(f"{llir}: {exc}") from None
    except TtgirError as exc:
        _error(f"{_shown(file)}: {exc}")
        return 2
    except AllocationError as exc:
        _error(f"{_shown(file)}: {exc}")
        return 2
    except ValueError as exc:
        _error(str(exc))
        return 2
    if fmt == "json":
        out = json.dumps(to_json(report), indent=2)
    elif fmt == "sarif":
        out = json.dumps(to_sarif(report, llir), indent=2)
    else:
        out = to_text(report)
    try:
        print(out, flush=True)
    except BrokenPipeError:
        pass
    return exit_status(report)


def _error(message: str) -> None:
    line = " ".join(message.split())[:300]
    print(f"alias-spec: error: {line}".encode("ascii", "backslashreplace").decode(),
          file=sys.stderr)  # fmt: skip


def run_dir(
    root: str,
    python: str | None,
    fmt: str,
    jobs: int | None = None,
    ray: str | None = None,
    timeout: float | None = None,
    progress: bool | None = None,
    races: bool = False,
) -> int:
    """``alias-spec plan DIR``: every kernel judged, the reports and the summary printed;
    returns the exit status. ``progress``: None shows it as stderr allows (a bar on a
    terminal, a line every 30 s elsewhere), False never; ``races``: the race check too."""
    from alias_spec.plan import batch

    try:
        kernels = batch.find_kernels(root)
    except batch.BatchInputError as exc:
        _error(str(exc))
        return 2
    bar = batch.Progress(len(kernels)) if progress is not False else None
    limit = timeout or batch.TIMEOUT_S
    stream = (batch.judge_on_ray(kernels, ray, python, limit, races=races) if ray else
              batch.judge_kernels(kernels, jobs, python, limit, races))  # fmt: skip
    found: list[batch.KernelVerdict | None] = [None] * len(kernels)
    previous = _term_stops()
    try:
        with contextlib.closing(stream):  # its finally stops the workers at once
            for index, verdict in stream:
                found[index] = verdict
                if bar is not None:
                    bar.update(verdict.status)
    except batch.RayUnavailable as exc:
        _error(str(exc))
        return 2
    finally:
        if bar is not None:
            bar.close()
        _restore(previous)
    verdicts = [v for v in found if v is not None]
    if fmt == "json":
        out = json.dumps(batch.to_json(verdicts, root), indent=2)
    elif fmt == "sarif":
        out = json.dumps(batch.to_sarif(verdicts, root), indent=2)
    else:
        out = batch.to_text(verdicts)
    try:
        print(out, flush=True)
    except BrokenPipeError:
        pass
    summary = batch.Summary.of(verdicts)
    if summary.totals()["error"] == len(verdicts):
        first = verdicts[0].error if verdicts else ""
        _error(f"{root}: no kernel could be judged: {first}")
        return 2
    return summary.exit_status()


class _Stopped(SystemExit):
    """SIGTERM: unwind (the workers are stopped on the way out) and exit 128 + 15."""


def _term_stops() -> Any:
    """While the kernels are judged, SIGTERM unwinds the command, so the workers are stopped
    (they would die with this process anyway)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, _frame: object) -> None:
        raise _Stopped(128 + signum)

    return signal.signal(signal.SIGTERM, stop)


def _restore(previous: Any) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def command(args: argparse.Namespace) -> int:
    import os

    if args.file != "-" and os.path.isdir(args.file):
        if args.llir:
            _error(f"{args.file} is a directory: each kernel's .llir is the one beside its "
                   ".ttgir (--llir is for one kernel)")  # fmt: skip
            return 2
        return run_dir(args.file, args.python, args.format, args.jobs, args.ray, args.timeout,
                       races=args.races)  # fmt: skip
    for option, value in (("--jobs", args.jobs), ("--ray", args.ray), ("--timeout", args.timeout)):
        if value is not None:
            _error(f"{option} is for a directory of kernels, and {_shown(args.file)} is not one")
            return 2
    if args.races and not args.llir:
        _error("--races reads the kernel's LLVM IR: give it with --llir")
        return 2
    return run(args.file, args.llir, args.python, args.format, args.races)


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return jobs


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError("a positive number of seconds")
    return seconds


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "plan",
        help="validate a compiled kernel's shared-memory plan (and its LLVM IR addresses)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        help="the kernel's TTGIR (asm['ttgir']), - for stdin, or a directory of kernels "
        "(a Triton cache)",
    )
    p.add_argument("--llir", metavar="KERNEL.llir", help="its LLVM IR (asm['llir']) to check")
    p.add_argument(
        "--python", metavar="PY", help="interpreter of the Triton release (default: this one)"
    )
    p.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="output format"
    )
    p.add_argument(
        "--races",
        action="store_true",
        help="also prove that no two threads of a CTA touch a shared byte unordered (a write "
        "among them, nothing ordering them); reads --llir, or in DIR each kernel's .llir",
    )
    p.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="DIR: judge N kernels at a time (default: every core)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="DIR: judge the kernels on the Ray cluster at ADDRESS (HOST:PORT of its head, or "
        "ray://HOST:PORT); needs the ray extra",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="DIR: a kernel not judged within S seconds is an error (default 600)",
    )
    p.set_defaults(func=command)
    return p
