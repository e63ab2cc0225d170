"""``alias-spec plan``: its arguments and the command (``add_parser`` hooks it into the CLI)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

MAX_INPUT_BYTES = 64 * 2**20  # far above any dump; stops an endless input

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

Exit status: 0 proved clean, 1 findings, 2 unreadable input (one line on stderr),
3 partly judged (something not modelled or not bounded: the notes say what)."""


def _shown(path: str) -> str:
    """How a message names the input: its path, or ``input`` for stdin (as every command)."""
    return "input" if path == "-" else path


def _read(path: str) -> str:
    name = _shown(path)
    stream: IO[Any]
    try:
        if path == "-":
            stream = sys.stdin.buffer
            data = stream.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"{name}: larger than the 64 MiB input limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not UTF-8 text") from None


def run(file: str, llir: str | None, python: str | None, fmt: str) -> int:
    """The command; prints the report, returns the exit status."""
    from alias_spec.ir.ttgir import TtgirError
    from alias_spec.plan.llir import LlirError, check_lowering
    from alias_spec.plan.output import exit_status, to_json, to_sarif, to_text
    from alias_spec.plan.plan import check_plan
    from alias_spec.plan.runner import AllocationError

    try:
        text = _read(file)
        llir_text = _read(llir) if llir else None
        report, module, _ = check_plan(text, file, python)
        if llir_text is not None:
            try:
                check_lowering(llir_text, llir or "", report, module.num_warps, ttgir=module)
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
    if llir_text is None:
        report.lowering = "not checked (no --llir)"
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


def command(args: argparse.Namespace) -> int:
    return run(args.file, args.llir, args.python, args.format)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "plan",
        help="validate a compiled kernel's shared-memory plan (and its LLVM IR addresses)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="the kernel's TTGIR (asm['ttgir']), or - for stdin")
    p.add_argument("--llir", metavar="KERNEL.llir", help="its LLVM IR (asm['llir']) to check")
    p.add_argument(
        "--python", metavar="PY", help="interpreter of the Triton release (default: this one)"
    )
    p.add_argument(
        "--format", choices=("text", "json", "sarif"), default="text", help="output format"
    )
    p.set_defaults(func=command)
    return p
