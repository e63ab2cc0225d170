"""The plan validator as one pipeline of named stages, the one route every caller takes: the
command (``cli.py``), ``check_texts`` / ``check_compiled`` (``api.py``), the compile hook
(``hook.py``) and ``plan DIR`` (``batch.py``).

    ttgir -> allocated -> buffers -> proof -> lowering -> report

- ``ttgir``: the text read by the one TTGIR reader, refused when it is not TTGIR;
- ``allocated``: the plan's offsets (the module's own, or the release's allocator rerun);
- ``buffers``: every buffer with its place, size, owner and live range (our liveness, async
  operations until their waits);
- ``proof``: buffers live together never overlap, each inside ``ttg.shared`` (z3);
- ``lowering``: every shared address of the LLVM IR inside its own buffer (when given), and
  with ``races`` no two threads touching a byte unordered (``races.py``);
- ``report``: what was not checked said, the stages' times kept (``Report.seconds``).

A stage reads what the ones before it left in the ``Run`` and adds its own; each raises the
input error of its kind (TtgirError, AllocationError, LlirError: one line) and nothing else.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from alias_spec.ir.ttgir import Module, read_module
from alias_spec.plan.plan import (
    Allocation,
    Buffer,
    Report,
    allocate_plan,
    build_plan,
    check_source,
    may_need_allocation,
    prove,
    record_frames,
    start_report,
)


@dataclass
class Run:
    """One kernel's way through the stages: its inputs, then what each stage adds."""

    ttgir: str
    path: str = "kernel.ttgir"
    llir: str | None = None
    llir_path: str | None = None
    python: str | None = None
    allocated: tuple[str, str, str] | None = None
    prepasses: str = "auto"
    no_llir: str = "not checked (no LLVM IR)"  # what the report says without LLVM IR
    races: bool = False  # also judge races between threads (``races.py``)
    source: Module | None = None
    plan: Allocation | None = None
    module: Module | None = None  # the planned module the buffers were read from
    buffers: list[Buffer] = field(default_factory=list)
    report: Report | None = None
    # LLVM's read of ``llir`` in a forked child from the first stage on, so that it runs
    # while this process reads the TTGIR (``ir.llir.Probe``).
    probe: Any = None
    # The release's allocation asked for in the first stage, so that the served worker
    # allocates while this process reads the TTGIR (``runner.request``).
    pending: Any = None


def _ttgir(run: Run) -> None:
    if run.llir is not None:
        from alias_spec.ir.llir import start_probe

        run.probe = start_probe(run.llir)
    check_source(run.ttgir)
    if may_need_allocation(run.ttgir, run.allocated):
        from alias_spec.plan.runner import request

        run.pending = request(run.ttgir, run.python, run.prepasses)
    run.source = read_module(run.ttgir)


def _allocated(run: Run) -> None:
    assert run.source is not None
    pending, run.pending = run.pending, None
    run.plan = allocate_plan(run.source, run.ttgir, run.path, run.python, run.allocated,
                             run.prepasses, pending)  # fmt: skip


def _buffers(run: Run) -> None:
    assert run.source is not None and run.plan is not None
    run.report = start_report(run.source, run.plan, run.path)
    run.module, run.buffers = build_plan(run.source, run.plan.planned, run.plan.debug,
                                         run.report, run.plan.text)  # fmt: skip
    run.report.buffers = run.buffers


def _proof(run: Run) -> None:
    assert run.module is not None and run.report is not None
    prove(run.module, run.buffers, run.report)
    record_frames(run.buffers, run.report)


def _lowering(run: Run) -> None:
    from alias_spec.plan.llir import check_lowering

    assert run.module is not None and run.report is not None
    if run.llir is None:
        return
    where = run.llir_path or run.path.rsplit(".", 1)[0] + ".llir"
    probe, run.probe = run.probe, None
    check_lowering(run.llir, where, run.report, run.module.num_warps, ttgir=run.module,
                   races=run.races, probe=probe)  # fmt: skip


def _report(run: Run) -> None:
    assert run.report is not None
    if run.llir is None:
        run.report.lowering = run.no_llir


STAGES: tuple[tuple[str, Callable[[Run], None]], ...] = (
    ("ttgir", _ttgir),
    ("allocated", _allocated),
    ("buffers", _buffers),
    ("proof", _proof),
    ("lowering", _lowering),
    ("report", _report),
)


def run(state: Run) -> Report:
    """Every stage in order; the report, with each stage's seconds in ``report.seconds``.
    Python's cycle collector is paused meanwhile (and left as it was): a kernel's records and
    terms form almost no cycles (at most 25 objects on the slowest real-world kernels), yet
    each of its passes walks every live object, a full one up to 0.15 s."""
    seconds: dict[str, float] = {}
    collecting = gc.isenabled()
    gc.disable()
    try:
        for name, stage in STAGES:
            t0 = time.perf_counter()
            stage(state)
            seconds[name] = time.perf_counter() - t0
    finally:  # a stage that fails leaves no probe running and no answer unread
        if collecting:
            gc.enable()
        if state.probe is not None:
            state.probe.close()
            state.probe = None
        if state.pending is not None:
            state.pending.drop()
            state.pending = None
    assert state.report is not None
    state.report.seconds = seconds
    return state.report
