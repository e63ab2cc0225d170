"""Child processes: ones that end with their parent, and workers run under another interpreter.

``alias-spec`` runs each command in a forked child (``entry.py``), and commands fork or spawn
workers of their own (LLVM's parser probed in a child, ``mkdocs serve``, pools of differential
tests). A parent killed by SIGKILL cannot stop them: without more they run on under init. On
Linux the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG)``) ends a child when the
thread that forked it exits; elsewhere a daemon thread watches the parent's id.

The second half runs a worker script under an interpreter named by ``--python`` (a venv holding
one Triton release, without this package): ``run`` once (its ``reply()``), ``Served`` kept for
request after request, ``ask_kept`` one such per process. Every failure (no such interpreter,
not a Python, no Triton, past its time, a crash, output that is not a reply) is a ``RunError``
of one line; the worker's whole process group is killed when it must stop, and its temporary
folder removed. The allocation runner (plan), the verifier runner and the lowering check
(difftest) all start their workers here.

Here (the lowest layer that starts processes) so that every layer above can use it.
``plan/worker.py`` keeps its own copy of ``die_with_parent`` on purpose: it runs in other
releases' interpreters, where this package is not installed.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

try:
    import fcntl
except ImportError:  # no flock: folders of killed processes are not swept
    fcntl = None  # type: ignore[assignment]

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


# ---------------------------------------------------------------------------------------------
# Workers under another interpreter.

# The pid of the process that started a worker; ``plan/worker.py`` reads the same name (it
# cannot import this module) and ends itself when that process dies.
ENV_PARENT = "ALIAS_SPEC_PARENT_PID"
MAX_OUTPUT = 64 << 20  # bytes of stdout kept; a worker that writes more is stopped
STDERR_TAIL = 64 << 10  # bytes of stderr kept, from its end: the last lines say what went wrong
GRACE_S = 2.0  # how long a served worker may take to leave once its input is closed
_CHUNK = 1 << 16
PIPE_BYTES = 1 << 20  # a served worker's pipes, where the system lets them be this large
DROP_WAIT_S = 10.0  # how long an unused answer is awaited before its worker is stopped
_POLL_S = 0.01


def tie_to_starter(sig: int = signal.SIGKILL) -> None:
    """In a worker started by ``run`` or ``Served``: end it when the process that started it
    dies (its pid is in ``ENV_PARENT``). The worker leads a process group of its own, out of
    the terminal's reach, so a Ctrl-C of the command no longer reaches it directly."""
    parent = os.environ.get(ENV_PARENT, "")
    if parent.isdigit():
        die_with_parent(int(parent), sig)


class RunError(RuntimeError):
    """A worker gave no reply. ``str()`` is one line for the user; ``problem`` is the same
    without the interpreter's name, for callers that name it themselves; ``kind`` is one of
    missing, not_executable, cannot_run, timeout, too_much, no_triton, signal, status,
    no_reply."""

    def __init__(self, kind: str, line: str, problem: str | None = None) -> None:
        super().__init__(line)
        self.kind = kind
        self.problem = line if problem is None else problem


def _about(kind: str, who: str, problem: str) -> RunError:
    """A failure of the interpreter itself: its name, then the problem."""
    return RunError(kind, f"{who}: {problem}", problem)


def no_paths(text: str) -> str:
    """Messages quote paths of the machine (build trees, venvs): keep only the file names. An
    assert also names the program as invoked (python, python3): drop it, it says nothing."""
    text = re.sub(r"(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", text)
    return re.sub(r"(^|: )[\w.+-]+: (?=[\w.+-]+:\d+: )", r"\1", text)


def _is_dict(reply: Any) -> bool:
    return isinstance(reply, dict)


@dataclass(frozen=True)
class Finished:
    """A worker that ran to its end (``run``)."""

    status: int  # its exit status; minus the signal that ended it
    stdout: str
    stderr: str  # its last STDERR_TAIL bytes
    who: str  # the interpreter, as messages name it
    task: str  # what it was doing, as messages name it

    def reply(self, valid: Callable[[Any], bool] = _is_dict) -> Any:
        """Its reply: the JSON value on its last line of stdout, which ``valid`` accepts.
        Anything else (a crash, an exit status, garbage) is a RunError of one line."""
        reply = _json_line(self.stdout)
        if reply is None or not valid(reply):
            raise _no_reply(self)
        return reply


_PREFIX = "alias-spec-worker-"
_OWNER = ".owner"  # a scratch folder's lock file: locked while the process that made it lives
_SWEPT: set[str] = set()  # the temporary folders this process has swept


class _Scratch:
    """A worker's TMPDIR: what it leaves behind when it is killed goes with this folder. The
    process that made it holds a lock on a file inside; a process killed by SIGKILL cannot
    remove its folder, but the kernel frees its lock, and the next process to make one (once
    per temporary folder) removes every such folder whose lock is free."""

    def __init__(self) -> None:
        _sweep()
        self.path = tempfile.mkdtemp(prefix=_PREFIX)
        self._lock = -1
        if fcntl is not None:
            # Locked before it is named: a sweep never sees a free lock in a new folder.
            hidden = os.path.join(self.path, _OWNER + ".new")
            self._lock = os.open(hidden, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600)
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(hidden, os.path.join(self.path, _OWNER))

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1


def _sweep() -> None:
    root = tempfile.gettempdir()
    if fcntl is None or root in _SWEPT:
        return
    _SWEPT.add(root)
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            if not name.startswith(_PREFIX):
                continue
            try:  # no lock file: not a folder of this module's, or not locked yet
                fd = os.open(os.path.join(root, name, _OWNER), os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # its process lives
                os.close(fd)
                continue
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            os.close(fd)


def _start(
    argv: Sequence[str], scratch: str, env: Mapping[str, str] | None, who: str
) -> subprocess.Popen[bytes]:
    full = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    full.update(TMPDIR=scratch, TEMP=scratch, TMP=scratch, **{ENV_PARENT: str(os.getpid())})
    try:
        # A session of its own: its whole group can be killed without touching this one.
        # No preexec_fn: workers are started from any thread.
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full,
            bufsize=0,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise _about("missing", who, "no such file") from None
    except PermissionError:
        raise _about("not_executable", who, "not executable") from None
    except OSError as exc:  # e.g. ENOEXEC: not a program at all
        raise _about("cannot_run", who, f"cannot run it ({exc.strerror or exc})") from None


def _exited(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Whether ``proc`` ended by ``deadline``, without reaping it: until it is reaped its pid,
    hence its group's id, cannot be given to another process, so killing the group is safe."""
    if proc.returncode is not None:
        return True
    if not hasattr(os, "waitid"):  # no way to wait without reaping: reap
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(max(0.0, deadline - time.monotonic()))
        return proc.returncode is not None
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return True
        except ChildProcessError:  # reaped elsewhere: poll() records it, so no group is killed
            proc.poll()
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def _end(proc: subprocess.Popen[bytes], grace: float) -> int:
    """Its exit status, once it has had ``grace`` seconds to leave; then the rest of its group
    (or all of it, when it did not leave) is killed."""
    _exited(proc, time.monotonic() + grace)
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (AttributeError, OSError):  # no process groups here, or none left
            with contextlib.suppress(OSError):
                proc.kill()
    return proc.wait()


class _Streams:
    """A worker's pipes, served by one selector: stdin fed as it can take it, stdout kept up
    to a limit, stderr's end kept. Both outputs are read as they come, so that neither pipe
    fills and stops the worker."""

    def __init__(self, proc: subprocess.Popen[bytes], limit: int) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.limit = limit
        self.out = bytearray()
        self.err = bytearray()
        self.ended: set[str] = set()  # "out", "err": the outputs that reached their end
        self.too_much = False
        self._feed = bytearray()
        self._close_after = False
        self._sel = selectors.DefaultSelector()
        self._sel.register(proc.stdout.fileno(), selectors.EVENT_READ, "out")
        self._sel.register(proc.stderr.fileno(), selectors.EVENT_READ, "err")
        os.set_blocking(proc.stdin.fileno(), False)

    def feed(self, data: bytes, close: bool) -> None:
        """Queue ``data`` for stdin (written while pumping); ``close``: then close stdin."""
        assert self.proc.stdin is not None
        if self.proc.stdin.closed:
            return
        self._feed += data
        self._close_after = close
        fd = self.proc.stdin.fileno()
        if self._feed and fd not in self._sel.get_map():
            self._sel.register(fd, selectors.EVENT_WRITE, "in")
        elif not self._feed and close:
            self.close_stdin()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            fd = self.proc.stdin.fileno()
            if fd in self._sel.get_map():
                self._sel.unregister(fd)
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self._feed.clear()

    def flush(self) -> None:
        """Write what stdin takes now without waiting (a request the worker starts on while
        the caller does other work)."""
        assert self.proc.stdin is not None
        if self.proc.stdin.closed:
            return
        fd = self.proc.stdin.fileno()
        while self._feed and fd in self._sel.get_map():
            before = len(self._feed)
            self._step(fd, "in")
            if len(self._feed) == before:
                return  # the pipe is full: the rest goes while the reply is awaited

    def pump(self, deadline: float, enough: Callable[[], bool]) -> bool:
        """Feed and read until ``enough()``, stdout is over its limit, or nothing is left to
        wait for; False when ``deadline`` passed first (what was ready by then is read)."""
        while True:
            if enough() or self.too_much:
                return True
            if not any(k.data != "in" for k in self._sel.get_map().values()):
                return True
            left = deadline - time.monotonic()
            for key, _ in self._sel.select(max(left, 0.0)):
                self._step(key.fd, key.data)
            if left <= 0:  # one last look only: a worker that never stops writing ends it
                return enough() or self.too_much

    def _step(self, fd: int, what: str) -> None:
        if what == "in":
            try:
                del self._feed[: os.write(fd, self._feed[:_CHUNK])]
            except BlockingIOError:
                return
            except OSError:  # it stopped reading (died): the rest is of no use
                self._feed.clear()
            if not self._feed:
                self._sel.unregister(fd)
                if self._close_after:
                    self.close_stdin()
            return
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            self._sel.unregister(fd)
            self.ended.add(what)
        elif what == "out":
            self.out += chunk
            self.too_much = len(self.out) > self.limit
        else:
            self.err += chunk
            del self.err[:-STDERR_TAIL]

    def close(self) -> None:
        self.close_stdin()
        self._sel.close()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _text(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


def _too_much(who: str, limit: int) -> RunError:
    return _about("too_much", who, f"answered over {limit >> 20} MiB without ending its reply")


def _timeout(task: str, timeout: float) -> RunError:
    return RunError("timeout", f"{task} took over {timeout:.0f} s")


def run(
    argv: Sequence[str],
    input: str = "",
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    who: str = "the worker",
    task: str = "the worker",
    max_output: int = MAX_OUTPUT,
) -> Finished:
    """Run ``argv`` (an interpreter and its worker) to its end, ``input`` on its stdin. Its
    exit status is the caller's to judge; RunError when it cannot start, runs past ``timeout``
    seconds or writes over ``max_output`` bytes (its process group is killed then); its
    ``reply()`` is the JSON it answered. ``who`` names the interpreter in messages, ``task``
    what it was doing; ``env`` adds variables."""
    scratch = _Scratch()
    try:
        proc = _start(argv, scratch.path, env, who)
        streams = _Streams(proc, max_output)
        deadline = time.monotonic() + timeout
        try:
            streams.feed(input.encode("utf-8"), close=True)
            done = streams.pump(deadline, lambda: streams.ended == {"out", "err"})
            done = done and not streams.too_much and _exited(proc, deadline)
        finally:
            status = _end(proc, 0.0)
            streams.close()
    finally:
        scratch.remove()
    if streams.too_much:
        raise _too_much(who, max_output)
    if not done:
        raise _timeout(task, timeout)
    return Finished(status, _text(streams.out), _text(streams.err), who, task)


def _json_line(text: str) -> Any:
    """The JSON value on the last non-empty line; None when there is none."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None


def _last_words(stderr: str) -> str:
    tail = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:]
    return f": {no_paths(tail[0])[:200]}" if tail else ""


def _no_reply(done: Finished) -> RunError:
    """Why a worker that ran to its end gave no reply, in one line."""
    who, task = done.who, done.task
    if "No module named 'triton'" in done.stderr:
        return _about("no_triton", who, "cannot import triton")
    if done.status < 0:
        line = f"{task} failed (died, signal {-done.status}){_last_words(done.stderr)}"
        return RunError("signal", line)
    if done.status == 0 or not done.stderr.strip():
        what = "no output" if not done.stdout.strip() else "output that is not its reply"
        problem = (f"answered {what} (exit status {done.status}): is it a Python interpreter "
                   "with Triton?")  # fmt: skip
        return RunError("no_reply", f"{who} {problem}", problem)
    detail = f"(exit status {done.status}){_last_words(done.stderr)}"
    return RunError("status", f"{task} failed under {who} {detail}", f"{task} failed {detail}")


class Served:
    """A worker kept running: each request is a line on its stdin, each reply lines on its
    stdout, until its stdin closes. The caller holds ``lock`` around a request and its reply.
    ``argv`` may be a function of the worker's scratch folder (for files it should write
    there: they go with it)."""

    def __init__(
        self,
        argv: Sequence[str] | Callable[[str], Sequence[str]],
        *,
        env: Mapping[str, str] | None = None,
        who: str = "the worker",
        task: str = "the worker",
        max_line: int = MAX_OUTPUT,
    ) -> None:
        self.lock = threading.Lock()
        self.task = task
        self.eof = False  # its stdout ended: it died (or a line ran over max_line)
        self._scratch = _Scratch()
        self.scratch = self._scratch.path
        try:
            self.proc = _start(argv(self.scratch) if callable(argv) else argv, self.scratch,
                               env, who)  # fmt: skip
        except BaseException:
            self._scratch.remove()
            raise
        self._streams = _Streams(self.proc, max_line)
        self._closed = False
        # Room for a whole module each way where the system allows it: a request written at
        # once is worked on while the caller does other work (``send_kept``).
        grow = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
        for stream in (self.proc.stdin, self.proc.stdout):
            if grow is not None and stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    fcntl.fcntl(stream.fileno(), grow, PIPE_BYTES)

    def send(self, line: str) -> None:
        """Queue one request line: it is written while the reply is awaited."""
        self._streams.feed(line.rstrip("\n").encode("utf-8") + b"\n", close=False)

    def read_line(self, deadline: float) -> bytes | None:
        """Its next line of stdout; None when ``deadline`` passed first, or when there is none
        to come (``eof``: it died; a line over the limit counts as that, and it is killed)."""
        s = self._streams
        s.pump(deadline, lambda: b"\n" in s.out or "out" in s.ended)
        if b"\n" in s.out:
            line, _, rest = bytes(s.out).partition(b"\n")
            s.out[:] = rest
            s.too_much = len(s.out) > s.limit
            return line
        if s.too_much:
            _end(self.proc, 0.0)
        self.eof = self.eof or s.too_much or "out" in s.ended
        return None

    def ask(self, request: Any, timeout: float, valid: Callable[[Any], bool] = _is_dict) -> Any:
        """Its reply to one JSON request; None when it gave none that ``valid`` accepts (it is
        closed then, and the caller may find out why with a worker of its own). RunError
        past ``timeout`` seconds, and it is killed."""
        self.send(json.dumps(request))
        return self.reply(timeout, valid)

    def start(self, request: Any) -> None:
        """Send one JSON request now, as much of it as its stdin takes without waiting; its
        reply is read by ``reply``."""
        self.send(json.dumps(request))
        self._streams.flush()

    def reply(self, timeout: float, valid: Callable[[Any], bool] = _is_dict) -> Any:
        """The reply to the request sent last (``ask``'s answer)."""
        line = self.read_line(time.monotonic() + timeout)
        if line is None and not self.eof:
            self.close(grace=0.0)
            raise _timeout(self.task, timeout)
        reply = None if line is None else _json_line(_text(line))
        if reply is None or not valid(reply):
            self.close()
            return None
        return reply

    def stderr_text(self, wait: float = 1.0) -> str:
        """The end of what it wrote to stderr, read up to ``wait`` seconds more when its
        stderr is still open (a dead worker's last words may still be in the pipe)."""
        s = self._streams
        if not self._closed:
            s.pump(time.monotonic() + wait, lambda: "err" in s.ended)
        return _text(s.err)

    def alive(self) -> bool:
        return not _exited(self.proc, time.monotonic())

    def finish(self, grace: float) -> int:
        """Its exit status, once it has had ``grace`` seconds to end; its group is killed."""
        return _end(self.proc, grace)

    def close(self, grace: float = GRACE_S) -> None:
        """End it (it leaves when its input does; killed after ``grace`` seconds) and remove
        its scratch folder."""
        if self._closed:
            return
        self._streams.close_stdin()
        try:
            self.finish(grace)
        finally:
            self._closed = True
            self._streams.close()
            self._scratch.remove()


# One kept worker per (process, key): a forked child must not talk to its parent's.
_KEPT: dict[tuple[int, Hashable], Served] = {}
_KEPT_LOCK = threading.Lock()
_STOPPING: set[int] = set()  # the processes whose exit stops their kept workers


def ask_kept(
    key: Hashable,
    start: Callable[[], Served],
    request: Any,
    timeout: float,
    valid: Callable[[Any], bool] = _is_dict,
) -> Any:
    """The reply of this process's kept worker ``key`` (``start`` starts it: on first use, and
    again once it died); None when it could not give one. RunError past ``timeout``."""
    pending = send_kept(key, start, request)
    return None if pending is None else pending.reply(timeout, valid)


class Pending:
    """A request a kept worker works on while the caller does other work (``send_kept``).
    Its worker is the caller's until ``reply`` reads the answer or ``drop`` discards it."""

    def __init__(self, served: Served, mine: tuple[int, Hashable], request: Any) -> None:
        self.served = served
        self.mine = mine
        self.request = request
        self.done = False

    def reply(self, timeout: float, valid: Callable[[Any], bool] = _is_dict) -> Any:
        """``ask_kept``'s answer to the request; RunError past ``timeout`` seconds."""
        assert not self.done, "a pending request is answered once"
        self.done = True
        served = self.served
        try:
            return served.reply(timeout, valid)
        finally:
            served.lock.release()
            if not served.alive():  # closed: killed past its time, or failed
                with _KEPT_LOCK:
                    if _KEPT.get(self.mine) is served:
                        del _KEPT[self.mine]

    def drop(self, wait: float = DROP_WAIT_S) -> None:
        """The request's answer read and left unused, for up to ``wait`` seconds (the worker
        serves the next one in turn); a worker still busy then is stopped."""
        if self.done:
            return
        try:
            self.reply(wait, lambda _: True)
        except RunError:
            pass  # killed past the wait: the next request starts another


def send_kept(key: Hashable, start: Callable[[], Served], request: Any) -> Pending | None:
    """``request`` sent now to this process's kept worker ``key`` (``start`` starts it: on
    first use, and again once it died), its answer read later by ``Pending.reply``; None when
    no worker could start (the caller's worker of its own says why)."""
    mine = (os.getpid(), key)
    with _KEPT_LOCK:
        served = _KEPT.get(mine)
        if served is not None and not served.alive():
            served.close()  # died between two requests: its scratch goes with it
            served = None
        if served is None:
            try:
                served = _KEPT[mine] = start()
            except RunError:
                return None  # the caller's worker of its own says why
            _stop_at_exit()
    served.lock.acquire()
    try:
        served.start(request)
    except BaseException:
        served.lock.release()
        raise
    return Pending(served, mine, request)


def stop_kept() -> None:
    """Stop this process's kept workers and remove their scratch. Called at exit; a process
    that leaves by ``os._exit`` (the command's forked child, a pool's worker) calls it first."""
    with _KEPT_LOCK:
        for k in [k for k in _KEPT if k[0] == os.getpid()]:
            _KEPT.pop(k).close()


def _stop_at_exit() -> None:
    if os.getpid() in _STOPPING:
        return
    _STOPPING.add(os.getpid())
    atexit.register(stop_kept)
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        from multiprocessing import util

        util.Finalize(None, stop_kept, exitpriority=10)  # a pool's worker skips atexit
