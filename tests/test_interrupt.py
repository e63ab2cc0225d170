"""Ctrl-C stops a command at once: exit 130, and no success line after the interrupt.

`alias-spec prove` spends its time inside z3 and cvc5, which take SIGINT for themselves: before
the command ran in a child process, an interrupt at 6 s let it run to its end and exit 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs POSIX fork and signals")


def _interrupt(args: list[str], after: float) -> tuple[int, str, str, float]:
    p = subprocess.Popen([sys.executable, "-m", "alias_spec", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(after)
    assert p.poll() is None, "the command ended before it could be interrupted"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail("Ctrl-C did not stop the command within 30 s")
    return p.returncode, out, err, time.monotonic() - sent


def test_ctrl_c_stops_prove_at_once() -> None:
    rc, out, err, took = _interrupt(["prove", "--solver", "both"], after=4.0)
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
