"""Child processes that end with their parent.

``alias-spec`` runs each command in a forked child (``entry.py``), and commands fork or spawn
workers of their own (LLVM's parser probed in a child, ``mkdocs serve``, pools of differential
tests). A parent killed by SIGKILL cannot stop them: without more they run on under init. On
Linux the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG)``) ends a child when the
thread that forked it exits; elsewhere a daemon thread watches the parent's id. Here (the
lowest layer that may import nothing of the spec) so that every layer that starts processes
can use it. ``plan/worker.py`` keeps its own copy of ``die_with_parent`` on purpose: it runs
in other releases' interpreters, where this package is not installed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_SECONDS = 0.5  # how often the fallback thread looks at the parent's id


def _prctl_deathsig(sig: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0)
    except (OSError, AttributeError, ValueError):
        return False


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """Call in a child right after fork (or in a ``preexec_fn``): send it ``sig`` when
    ``parent`` (the pid that started it) dies. SIGTERM ends a process at once unless it has a
    handler (``docs serve`` has one, to stop mkdocs' group first); SIGKILL for a child that
    must never linger. A parent already gone by now is seen at once: the child leaves."""
    armed = _prctl_deathsig(sig)
    if os.getppid() != parent:
        os._exit(128 + int(sig))
    if armed:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os.kill(os.getpid(), sig)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def fork_tied(sig: int = signal.SIGTERM) -> int:
    """``os.fork()``, whose child ends when this process dies (see ``die_with_parent``)."""
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        die_with_parent(parent, sig)
    return pid
