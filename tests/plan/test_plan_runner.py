"""The allocation runner's served worker (``alias_spec.plan.runner``): one per interpreter and
process, replaced when it dies, killed past its time limit; its answers are those of a worker
of its own."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from alias_spec.ir import procs
from alias_spec.plan import runner
from tests.paths import PLAN_CASES

pytest.importorskip("triton")
TTGIR = (PLAN_CASES / "call_frame.ttgir").read_text()


def _server() -> procs.Served:
    return procs._KEPT[(os.getpid(), runner.SERVED)]


def test_one_worker_serves_many_modules_and_answers_as_a_worker_of_its_own() -> None:
    first = runner.allocate(TTGIR)
    pid = _server().proc.pid
    second = runner.allocate(TTGIR)
    assert _server().proc.pid == pid  # the same process answered both
    alone = runner._run_once(TTGIR, None, runner.TIMEOUT_S, "release")
    assert first.module == second.module == alone["module"]
    assert first.debug == alone["debug"] and first.version == alone["version"]


def test_a_dead_worker_is_replaced() -> None:
    runner.allocate(TTGIR)
    old = _server().proc
    old.kill()
    old.wait()
    scratch = _server().scratch
    got = runner.allocate(TTGIR)
    assert "allocation.offset" in got.module or got.debug
    assert _server().proc.pid != old.pid and _server().alive()
    assert not os.path.exists(scratch)  # the dead worker's scratch went with it


def test_past_its_time_the_worker_is_killed(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A served worker that never answers: one line after the limit, and nothing left running."""
    silent = tmp_path / "worker.py"
    silent.write_text("import time\ntime.sleep(60)\n")
    monkeypatch.setattr(runner, "WORKER", silent)
    monkeypatch.setattr(procs, "_KEPT", {})
    t0 = time.monotonic()
    with pytest.raises(runner.AllocationError, match="took over 1 s"):
        runner.allocate(TTGIR, timeout=1.0)
    assert time.monotonic() - t0 < 10
    assert procs._KEPT == {}


def test_another_interpreter_gets_a_worker_per_module(tmp_path: Path) -> None:
    """One that reads its input to the end before answering (as the one-module protocol lets
    it) is not kept waiting for an end: it is not served."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\ncat >/dev/null\necho nonsense\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    t0 = time.monotonic()
    with pytest.raises(runner.AllocationError, match="python answered"):
        runner.allocate(TTGIR, python=str(fake), timeout=60.0)
    assert time.monotonic() - t0 < 30
    assert not any(str(fake) in s.proc.args for s in procs._KEPT.values())


def test_an_allocation_requested_early_is_the_one_allocate_gives() -> None:
    """``request`` sends the allocation before the caller reads the module; ``allocate`` with
    it answers as without it. One for other text is dropped, and its answer is not taken for
    the text asked."""
    alone = runner.allocate(TTGIR)
    early = runner.request(TTGIR)
    assert early is not None
    got = runner.allocate(TTGIR, pending=early)
    assert early.done and (got.module, got.debug) == (alone.module, alone.debug)
    other = TTGIR.replace("call_frame", "call_frame_other")
    assert other != TTGIR
    wrong = runner.request(other)
    got = runner.allocate(TTGIR, pending=wrong)
    assert wrong.done and (got.module, got.debug) == (alone.module, alone.debug)
    assert runner.request(TTGIR, python="python3") is None  # another interpreter: not served
