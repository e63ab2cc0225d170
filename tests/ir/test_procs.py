"""The one runner of workers under another interpreter (``alias_spec.ir.procs``), judged by
fake interpreters whose behaviour is known: a shell script stands in for ``--python``. What
each must give is one line naming the failure, and nothing left running or on disk."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from alias_spec.ir import procs
from tests.paths import GPU_CORPUS

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")


def _fake(tmp_path: Path, name: str, body: str, mode: int = 0o755) -> str:
    path = tmp_path / name
    path.write_text(body)
    path.chmod(mode)
    return str(path)


def _gone(pid: int, seconds: float = 10.0) -> bool:
    """Whether ``pid`` has ended: os.kill(pid, 0) finds no such process, or only a zombie that
    init has not reaped yet (it runs nothing)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            state = "?"
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.fixture
def scratch_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's temporary folder, where the runner makes each worker's scratch."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(root))
    yield root


def test_a_reply_is_the_json_on_its_last_line(tmp_path: Path, scratch_root: Path) -> None:
    body = '#!/bin/sh\nread req\necho "warming up"\necho "{\\"got\\": \\"$req\\", \\"tmp\\": \\"$TMPDIR\\"}"\n'
    reply = procs.run([_fake(tmp_path, "py", body), "worker.py"], "hello\n", timeout=30).reply()
    assert reply["got"] == "hello"
    assert Path(reply["tmp"]).parent == scratch_root  # its TMPDIR was a scratch of its own...
    assert list(scratch_root.iterdir()) == []  # ...removed afterwards


def test_past_its_time_the_worker_and_its_group_are_killed(
    tmp_path: Path, scratch_root: Path
) -> None:
    pids = tmp_path / "pids"
    body = f'#!/bin/sh\nsleep 60 &\necho "$$ $!" > "{pids}"\nwait\n'
    t0 = time.monotonic()
    with pytest.raises(procs.RunError, match=r"^the check took over 1 s$") as err:
        procs.run([_fake(tmp_path, "py", body)], timeout=1.0, task="the check").reply()
    assert err.value.kind == "timeout" and time.monotonic() - t0 < 10
    worker, child = map(int, pids.read_text().split())
    assert _gone(worker) and _gone(child)  # the sleep it started went with it
    assert list(scratch_root.iterdir()) == []


def test_garbage_is_one_line(tmp_path: Path) -> None:
    py = _fake(tmp_path, "py", "#!/bin/sh\ncat >/dev/null\necho 'hello, not json'\n")
    with pytest.raises(procs.RunError) as err:
        procs.run([py], "{}", timeout=30, who="--python py").reply()
    assert err.value.kind == "no_reply"
    assert str(err.value) == ("--python py answered output that is not its reply (exit status 0): "
                              "is it a Python interpreter with Triton?")  # fmt: skip


def test_a_reply_the_caller_refuses_is_garbage_too(tmp_path: Path) -> None:
    py = _fake(tmp_path, "py", "#!/bin/sh\necho '[1, 2]'\n")
    with pytest.raises(procs.RunError, match="not its reply"):
        procs.run([py], timeout=30).reply()
    assert procs.run([py], timeout=30).reply(lambda r: r == [1, 2]) == [1, 2]


def test_an_exit_status_names_the_last_line_of_stderr(tmp_path: Path) -> None:
    body = "#!/bin/sh\necho 'some noise' >&2\necho 'error: /build/tree/Pass.cpp: it broke' >&2\nexit 3\n"
    with pytest.raises(procs.RunError) as err:
        procs.run(
            [_fake(tmp_path, "py", body)], timeout=30, who="--python py", task="the pass"
        ).reply()
    assert err.value.kind == "status"
    assert (
        str(err.value)
        == "the pass failed under --python py (exit status 3): error: Pass.cpp: it broke"
    )
    assert err.value.problem == "the pass failed (exit status 3): error: Pass.cpp: it broke"


def test_a_crash_names_its_signal(tmp_path: Path) -> None:
    body = "#!/bin/sh\necho 'Assertion failed' >&2\nkill -SEGV $$\n"
    with pytest.raises(procs.RunError, match=r"^it failed \(died, signal 11\): Assertion failed$"):
        procs.run([_fake(tmp_path, "py", body)], timeout=30, task="it").reply()


def test_missing_triton(tmp_path: Path) -> None:
    body = "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'triton'\" >&2\nexit 1\n"
    with pytest.raises(procs.RunError, match=r"^--python py: cannot import triton$") as err:
        procs.run([_fake(tmp_path, "py", body)], timeout=30, who="--python py").reply()
    assert err.value.kind == "no_triton" and err.value.problem == "cannot import triton"


def test_an_interpreter_that_cannot_start(tmp_path: Path, scratch_root: Path) -> None:
    cases = {
        "not_executable": (
            _fake(tmp_path, "plain", "#!/bin/sh\necho '{}'\n", 0o644),
            "not executable",
        ),
        "missing": (str(tmp_path / "nowhere"), "no such file"),
        "cannot_run": (_fake(tmp_path, "elf", "\x7fELF not a program\n"), "cannot run it"),
    }
    for kind, (python, words) in cases.items():
        with pytest.raises(procs.RunError) as err:
            procs.run([python], timeout=30, who="--python x").reply()
        assert err.value.kind == kind and str(err.value).startswith(f"--python x: {words}")
        assert "\n" not in str(err.value)
    assert list(scratch_root.iterdir()) == []


def test_output_past_the_limit_stops_the_worker(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    body = f'#!/bin/sh\necho $$ > "{pids}"\nexec yes\n'
    with pytest.raises(procs.RunError, match="answered over 1 MiB") as err:
        procs.run([_fake(tmp_path, "py", body)], timeout=30, max_output=1 << 20)
    assert err.value.kind == "too_much" and _gone(int(pids.read_text()))


def test_endless_stderr_does_not_hold_off_the_time_limit(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    body = f'#!/bin/sh\necho $$ > "{pids}"\nexec yes >&2\n'
    t0 = time.monotonic()
    with pytest.raises(procs.RunError, match="took over 1 s"):
        procs.run([_fake(tmp_path, "py", body)], timeout=1.0)
    assert time.monotonic() - t0 < 10 and _gone(int(pids.read_text()))


def test_a_large_input_and_output_pass_whole(tmp_path: Path) -> None:
    """Both far over a pipe's buffer: neither side may wait on the other."""
    data = "x" * (4 << 20) + "\n"
    done = procs.run(
        [_fake(tmp_path, "py", "#!/bin/sh\ncat\ncat /dev/null >&2\n")], data, timeout=60
    )
    assert done.status == 0 and done.stdout == data


def test_the_scratch_of_a_killed_process_is_swept(tmp_path: Path, scratch_root: Path) -> None:
    """A process killed by SIGKILL while its worker runs cannot remove the worker's scratch:
    the next process to make one removes it, and leaves a living process's alone."""
    import subprocess

    pids = tmp_path / "pid"
    body = f'#!/bin/sh\necho $$ > "{pids}"\nexec sleep 60\n'
    owner_code = ("from alias_spec.ir import procs\n"
                  f"procs.run([{_fake(tmp_path, 'py', body)!r}], timeout=100)\n")  # fmt: skip
    env = dict(os.environ, TMPDIR=str(scratch_root))
    living = procs.Served(["sleep", "60"])  # this process's: it must stay
    owner = subprocess.Popen([sys.executable, "-c", owner_code], env=env)
    try:
        deadline = time.monotonic() + 60
        while not pids.exists() or not pids.read_text().strip():
            assert owner.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        [left] = [p for p in scratch_root.iterdir() if p.name != Path(living.scratch).name]
    finally:
        owner.kill()
        owner.wait()
        os.kill(int(pids.read_text()), signal.SIGKILL)
    assert left.exists()
    procs._SWEPT.discard(str(scratch_root))
    procs.run(["true"], timeout=30)  # the first scratch this process makes here sweeps
    assert not left.exists() and os.path.isdir(living.scratch)
    living.close()
    assert list(scratch_root.iterdir()) == []


_SERVE = """import json, os, sys
n = 0
print("started", file=sys.stderr, flush=True)
for line in sys.stdin:
    n += 1
    req = json.loads(line)
    if req.get("sleep"):
        import time; time.sleep(req["sleep"])
    if req.get("die"):
        print("dying now", file=sys.stderr, flush=True)
        os._exit(5)
    print(json.dumps({"pid": os.getpid(), "n": n, "echo": req.get("x")}), flush=True)
"""


def _served_worker(tmp_path: Path) -> list[str]:
    script = tmp_path / "serve.py"
    script.write_text(_SERVE)
    return [sys.executable, str(script)]


def test_a_served_worker_answers_two_requests_then_stops(tmp_path: Path) -> None:
    served = procs.Served(_served_worker(tmp_path))
    first = served.ask({"x": "a"}, timeout=30)
    second = served.ask({"x": "b"}, timeout=30)
    assert (first["n"], second["n"], first["echo"], second["echo"]) == (1, 2, "a", "b")
    assert first["pid"] == second["pid"] == served.proc.pid and served.alive()
    assert "started" in served.stderr_text(wait=0)
    served.close()
    assert _gone(first["pid"]) and not os.path.exists(served.scratch) and not served.alive()


def test_a_served_worker_past_its_time_is_killed(tmp_path: Path) -> None:
    served = procs.Served(_served_worker(tmp_path))
    pid = served.proc.pid
    with pytest.raises(procs.RunError, match=r"^the worker took over 1 s$"):
        served.ask({"sleep": 60}, timeout=1.0)
    assert _gone(pid) and not os.path.exists(served.scratch)


def test_a_served_worker_that_dies_says_so(tmp_path: Path) -> None:
    served = procs.Served(_served_worker(tmp_path))
    served.send(json.dumps({"die": True}))
    assert served.read_line(time.monotonic() + 30) is None and served.eof
    assert served.finish(5) == 5 and "dying now" in served.stderr_text()
    served.close()


def test_kept_workers_one_per_process_and_key(tmp_path: Path) -> None:
    argv = _served_worker(tmp_path)
    started: list[procs.Served] = []

    def start() -> procs.Served:
        started.append(procs.Served(argv))
        return started[-1]

    try:
        a = procs.ask_kept("test-procs", start, {"x": 1}, 30)
        b = procs.ask_kept("test-procs", start, {"x": 2}, 30)
        assert a["pid"] == b["pid"] and b["n"] == 2 and len(started) == 1
        assert procs.ask_kept("test-procs", start, {"die": True}, 30) is None  # it died: gone
        c = procs.ask_kept("test-procs", start, {"x": 3}, 30)
        assert c["pid"] != a["pid"] and c["n"] == 1 and len(started) == 2
    finally:
        procs.stop_kept()
    assert all(_gone(s.proc.pid) and not os.path.exists(s.scratch) for s in started)
    assert not any(k == (os.getpid(), "test-procs") for k in procs._KEPT)


def test_a_kept_worker_that_cannot_start_gives_no_reply(tmp_path: Path) -> None:
    def start() -> procs.Served:
        return procs.Served([str(tmp_path / "nowhere")])

    assert procs.ask_kept("test-procs-missing", start, {}, 30) is None


def test_the_worker_knows_who_started_it(tmp_path: Path) -> None:
    """plan/worker.py reads the same variable (it cannot import this package)."""
    from alias_spec.plan import worker

    assert worker.ENV_PARENT == procs.ENV_PARENT
    body = f'#!/bin/sh\necho "{{\\"parent\\": ${procs.ENV_PARENT}}}"\n'
    assert procs.run([_fake(tmp_path, "py", body)], timeout=30).reply() == {"parent": os.getpid()}


def test_signals_of_the_worker_group_spare_this_process(tmp_path: Path) -> None:
    """The worker leads a group of its own: killing that group leaves this test running."""
    body = '#!/bin/sh\necho "{\\"group\\": $(ps -o pgid= $$)}"\n'
    reply = procs.run([_fake(tmp_path, "py", body)], timeout=30).reply()
    assert reply["group"] != os.getpgrp()
    with pytest.raises(ProcessLookupError):
        os.killpg(reply["group"], signal.SIGKILL)  # already gone, and never this test's group


# --- the users: the lowering check's compiling worker ----------------------------------------

CORPUS = GPU_CORPUS


def test_a_compiling_worker_that_dies_or_hangs_costs_its_case_only() -> None:
    pytest.importorskip("triton")
    from alias_spec.difftest import lowering_check as lc

    first = json.loads(CORPUS.read_text())["cases"][0]["id"]
    hung = lc._Worker(CORPUS)  # still importing Triton when its time is up
    rec = hung.ask(first, 0.2)
    assert rec["outcome"] == "error" and rec["message"].startswith("no answer within 0 s")
    assert not hung.alive()
    hung.close()
    assert not os.path.exists(hung.served.scratch)
    w = lc._Worker(CORPUS)
    assert w.ask(first, 300)["outcome"] == "compiled"
    rec = w.ask("no-such-case", 300)  # the worker fails on it (KeyError) and leaves
    assert rec["outcome"] == "error", rec
    assert rec["message"].startswith("the compiling process died (exit status 1)"), rec
    assert "cases[cid]" in rec["message"] and not w.alive()  # its last words: the traceback
    w.close()
    assert _gone(w.served.proc.pid) and not os.path.exists(w.served.scratch)


def test_a_request_sent_early_is_worked_on_before_its_reply_is_read(tmp_path: Path) -> None:
    """``send_kept`` writes the request at once (a large one too): the worker works while the
    caller does other work; ``reply`` gives what ``ask_kept`` gives, and a dropped answer is
    never taken for the next request's."""
    argv = _served_worker(tmp_path)

    def start() -> procs.Served:
        return procs.Served(argv)

    key = "test-procs-early"
    try:
        procs.ask_kept(key, start, {"x": 0}, 30)  # started: what follows times the request only
        pending = procs.send_kept(key, start, {"sleep": 1.0, "x": "a" * 200_000})
        assert pending is not None
        time.sleep(1.5)  # the worker sleeps meanwhile: its reply is ready when asked for
        t0 = time.monotonic()
        got = pending.reply(30)
        assert time.monotonic() - t0 < 0.9 and got["echo"] == "a" * 200_000
        dropped = procs.send_kept(key, start, {"x": "dropped"})
        assert dropped is not None
        dropped.drop()
        dropped.drop()  # once only
        after = procs.ask_kept(key, start, {"x": "after"}, 30)
        assert after["echo"] == "after" and after["pid"] == got["pid"]
    finally:
        procs.stop_kept()


def test_a_dropped_answer_that_does_not_come_stops_its_worker(tmp_path: Path) -> None:
    argv = _served_worker(tmp_path)
    key = "test-procs-drop"
    try:
        pending = procs.send_kept(key, lambda: procs.Served(argv), {"sleep": 60})
        assert pending is not None
        pid = pending.served.proc.pid
        pending.drop(wait=0.5)
        assert _gone(pid) and not any(k == (os.getpid(), key) for k in procs._KEPT)
        again = procs.ask_kept(key, lambda: procs.Served(argv), {"x": 1}, 30)
        assert again["echo"] == 1 and again["pid"] != pid
    finally:
        procs.stop_kept()
