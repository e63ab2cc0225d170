"""The `alias-spec` console script: the command line, or one line saying what to install.

The base install carries no dependencies (the Gluon frontend needs only Triton); the commands
need an extra (``spec``; ``plan`` for plan, ``docs`` for docs). Without it, importing the
command line fails on pydantic, z3 or cvc5: say so in one line, naming the extra, instead of a
traceback. ``--help`` and ``--version`` are answered there too.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import stat
import sys
import threading
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
    # The child leaves by os._exit, past atexit: the plan's allocation workers (and their
    # scratch) are stopped here.
    runner = sys.modules.get("alias_spec.plan.runner")
    if runner is not None:
        runner.stop_servers()
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
    reader = _ReaderWatch(pid) if _command(argv) in OUTPUT_ONLY else None
    try:
        _, status = os.waitpid(pid, 0)
    except KeyboardInterrupt:
        _stop(pid)
        sys.stderr.write("alias-spec: interrupted\n")
        return 130
    finally:
        if reader is not None:
            reader.done = True
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if reader is not None and reader.gone:
        _drop_stdout()
        return 128 + signal.SIGPIPE  # as a command killed by SIGPIPE: the shell's convention
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code  # killed by a signal: the shell's convention


# Commands whose only product is their output, and that take minutes in a solver: once the
# reader of their output is gone (``alias-spec prove | head -2``), nothing is left to do.
# Others (check) still compute their exit status for the shell.
OUTPUT_ONLY = frozenset({"prove", "prove-cpp"})


class _ReaderWatch:
    """Stops the command as soon as the reader of stdout closes the pipe. The command would
    see it only at its next line, which a solver may reach minutes later; here a thread
    waits for the pipe's error event and sends the command SIGTERM (which ends a solver in C
    at once)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.gone = False
        self.done = False  # the command ended: its pid may be reused, never signal it
        try:
            fd = sys.stdout.fileno()
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                return
            self.poller = select.poll()
            self.poller.register(fd, 0)  # no event asked: only POLLERR (no reader) and POLLHUP
        except (AttributeError, OSError, ValueError):
            return
        threading.Thread(target=self._watch, name="stdout-reader", daemon=True).start()

    def _watch(self) -> None:
        while not self.done:
            try:
                events = self.poller.poll(500)
            except OSError:
                return
            if any(ev & (select.POLLERR | select.POLLHUP) for _, ev in events):
                if not self.done:
                    self.gone = True
                    with contextlib.suppress(OSError):
                        os.kill(self.pid, signal.SIGTERM)
                return


def _drop_stdout() -> None:
    """Point stdout at the null device: the exit's final flush cannot fail on the closed
    pipe (Python would print an error about it)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


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
