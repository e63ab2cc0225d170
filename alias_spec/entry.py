"""The `alias-spec` console script: the command line, or one line saying what to install.

The base install carries no dependencies (the Gluon frontend needs only Triton); the commands
need an extra (``spec``; ``plan`` for plan, ``docs`` for docs). Without it, importing the
command line fails on pydantic, z3 or cvc5: say so in one line, naming the extra, instead of a
traceback. ``--help`` and ``--version`` are answered there too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence

# Modules an extra brings (pyproject.toml): without one, a command says what to install.
EXTRA_MODULES = frozenset({"pydantic", "pydantic_core", "z3", "cvc5", "llvmlite"})


def _command(argv: Sequence[str] | None) -> str | None:
    """The command named on the line (the first word that is not an option), if any."""
    args = sys.argv[1:] if argv is None else list(argv)
    return next((a for a in args if not a.startswith("-")), None)


def _missing(exc: ModuleNotFoundError, argv: Sequence[str] | None) -> int:
    from alias_spec import commands

    name = (exc.name or "").split(".")[0]
    if name not in EXTRA_MODULES:
        raise exc
    args = sys.argv[1:] if argv is None else list(argv)
    command = _command(argv)
    if command is None and any(a in ("-h", "--help") for a in args):
        print(commands.base_help(name))
        return 0
    who = f"alias-spec {command}" if command in commands.SUMMARY else "the commands"
    print(
        f"alias-spec: error: {name} is not installed, and {who} need"
        f"{'s' * (who != 'the commands')} it: {commands.install_line(command)}",
        file=sys.stderr,
    )
    return 2


def _run(argv: Sequence[str] | None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "--version":  # answered on the base install too
        from alias_spec.commands import version_line

        print(version_line())
        return 0
    try:
        from alias_spec.cli import main as cli_main
    except ModuleNotFoundError as exc:
        return _missing(exc, argv)
    try:
        return cli_main(argv)
    except ModuleNotFoundError as exc:
        return _missing(exc, argv)


def _child(argv: Sequence[str] | None) -> int:
    try:
        code: object = _run(argv)
    except SystemExit as exc:  # argparse's usage errors and --help
        code = exc.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code if isinstance(code, int) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in a child process that Ctrl-C can stop at once. A solver call in C
    (z3, cvc5) takes the interrupt for itself and goes on, so Python would raise
    KeyboardInterrupt only minutes later, or never. The parent only waits: on Ctrl-C it stops
    the command (SIGTERM, which a command that holds a server turns into a clean stop; SIGKILL
    if it is still there after a grace period) and exits 130, so no line the command had not
    printed yet (never a success line) appears after it. SIGTERM and SIGHUP are passed on."""
    if not hasattr(os, "fork") or os.environ.get("ALIAS_SPEC_NO_FORK"):
        return _run(argv)
    from alias_spec.ir.procs import fork_tied

    sys.stdout.flush()
    sys.stderr.flush()
    # The child ends with this process even when it is killed by SIGKILL (which gives it no
    # chance to stop the child): no command left running under init.
    pid = fork_tied(signal.SIGTERM)
    if pid == 0:
        os._exit(_child(argv))

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)

    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            sig = getattr(signal, name)
            previous[sig] = signal.signal(sig, forward)
    try:
        _, status = os.waitpid(pid, 0)
    except KeyboardInterrupt:
        _stop(pid)
        sys.stderr.write("alias-spec: interrupted\n")
        return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code  # killed by a signal: the shell's convention


def _stop(pid: int, grace: float = 10.0) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        except KeyboardInterrupt:  # a second Ctrl-C: no more waiting
            break
        if done:
            return
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
