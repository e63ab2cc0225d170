"""Ctrl-C stops a command at once: exit 130, and no success line after the interrupt.

`alias-spec prove` spends its time inside z3 and cvc5, which take SIGINT for themselves: before
the command ran in a child process, an interrupt at 6 s let it run to its end and exit 0."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs POSIX fork and signals")


def _default_sigint() -> None:
    # A suite run as a background job inherits SIGINT ignored; a terminal's Ctrl-C reaches a
    # command that has it at its default, as here.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(args: list[str], after: float) -> tuple[int, str, str, float]:
    p = subprocess.Popen([sys.executable, "-m", "alias_spec", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=_default_sigint)  # fmt: skip
    try:
        time.sleep(after)
        assert p.poll() is None, "the command ended before it could be interrupted"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("Ctrl-C did not stop the command within 30 s")
        return p.returncode, out, err, time.monotonic() - sent
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)  # the command's whole group, its worker too
        p.wait()


def test_ctrl_c_stops_prove_at_once() -> None:
    rc, out, err, took = _interrupt(["prove", "--solver", "both"], after=2.0)
    assert rc == 130, (rc, err[-300:])
    assert took < 5.0  # a second when idle; the margin is for a busy CI machine
    assert " theorems in " not in out  # the summary line never comes
    assert err.strip().splitlines()[-1] == "alias-spec: interrupted"


def test_exit_status_passes_through_the_child() -> None:
    ok = subprocess.run([sys.executable, "-m", "alias_spec", "check", "examples/request.json"],
                        capture_output=True, text=True, timeout=300)  # fmt: skip
    bad = subprocess.run([sys.executable, "-m", "alias_spec", "no-such-command"],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for init to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc (Linux)")
def test_sigkill_of_the_parent_ends_its_worker() -> None:
    """``alias-spec prove`` runs in a forked worker; SIGKILL of the parent leaves the worker no
    parent to stop it: it used to run on under init (PID 1) for minutes."""
    p = subprocess.Popen([sys.executable, "-m", "alias_spec", "prove", "--solver", "both"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (workers := _children(p.pid)):
            assert p.poll() is None and time.monotonic() < deadline, "no worker was forked"
            time.sleep(0.05)
        time.sleep(1.0)  # into the solvers
        assert all(_alive(w) for w in workers)
        p.send_signal(signal.SIGKILL)
        p.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "the worker outlived its parent"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)  # the whole group, whatever the test saw
        p.wait()


def test_fork_tied_child_ends_with_its_parent() -> None:
    """The helper itself: a grandchild forked by ``fork_tied`` dies with its parent."""
    code = (
        "import os, signal, sys, time\n"
        "from alias_spec.ir.procs import fork_tied\n"
        "pid = fork_tied(signal.SIGKILL)\n"
        "if pid == 0:\n    time.sleep(60)\n    os._exit(0)\n"
        "print(pid, flush=True)\ntime.sleep(60)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)  # fmt: skip
    try:
        assert p.stdout is not None
        child = int(p.stdout.readline())
        assert _alive(child)
        p.kill()
        p.wait(10)
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_prove_stops_when_its_reader_does() -> None:
    """``prove | head -2``: the first theorem's two lines, then prove ends (141, as killed by
    SIGPIPE) instead of deciding the rest (the compose theorems take minutes) for nobody."""
    script = (
        f"{sys.executable} -m alias_spec prove --only compose | head -2; echo ${{PIPESTATUS[0]}}"
    )
    p = subprocess.Popen(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)  # fmt: skip
    start = time.monotonic()
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("prove went on after its reader had gone")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    took = time.monotonic() - start
    lines = out.splitlines()
    assert len(lines) == 3 and lines[0].split()[1].startswith("compose."), out
    assert lines[2] == "141" and err == "", (lines, err)
    assert took < 40, took  # a few seconds when idle
