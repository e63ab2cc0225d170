"""Judge every kernel of a directory: a Triton cache, or any tree of ``.ttgir`` files.

    from alias_spec.plan.batch import find_kernels, judge_kernels, Summary
    kernels = find_kernels("~/.triton/cache")
    verdicts = list(judge_kernels(kernels, jobs=8))
    print(Summary.of(verdicts).table())

A Triton cache holds one folder per compiled kernel with ``NAME.ttgir``, ``NAME.llir`` and
its metadata ``NAME.json`` (``name``, ``num_warps``, ``shared``...); any ``.ttgir`` with an
``.llir`` of the same name beside it is judged the same way (one without is judged on its
plan alone, and is partial: its addresses were not checked).

Each kernel is judged in a worker process of its own pool (``judge_kernels``) or as a task on a
Ray cluster (``judge_on_ray``). A worker judges one kernel at a time, so one that crashes or runs
past the time limit costs only that kernel's verdict: the worker is replaced. Workers ignore
Ctrl-C (the parent stops them) and die with the parent, even one killed with SIGKILL.

The summary (``Summary``) is one table: per kernel name, how many kernels were clean, partial,
had findings or could not be judged (error). The pytest plugin and ``alias-spec plan-run``
print the same table for the kernels a program compiled.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

STATUSES = ("clean", "partial", "findings", "error")
TIMEOUT_S = 600.0  # per kernel: the slowest of the 995 real-world kernels takes about 30 s
MAX_KERNEL_NAME = 60  # the table's name column
RAY_HINT = "pip install 'tle-alias-spec[ray]'"


class BatchInputError(ValueError):
    """The directory cannot be judged: missing, not a directory, or no ``.ttgir`` in it."""


@dataclass(frozen=True)
class KernelFiles:
    """One kernel of a directory: its TTGIR, the LLVM IR beside it and its metadata."""

    name: str  # the metadata's "name", else the TTGIR file's stem
    ttgir: str
    llir: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # num_warps, num_stages, shared


@dataclass
class KernelVerdict:
    """A kernel's verdict as plain data (it crosses process and machine boundaries)."""

    kernel: str
    file: str
    llir: str | None
    status: str  # clean, partial, findings, error
    seconds: float = 0.0
    text: str = ""  # the report as ``alias-spec plan`` prints it (or the error's one line)
    report: dict[str, Any] | None = None  # the ``--format json`` document; None on error
    sarif: list[dict[str, Any]] = field(default_factory=list)  # the SARIF results
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # one line each (a dump's release)

    def messages(self, key: str) -> list[str]:
        """The messages of the report's ``findings`` or ``notes``."""
        return [str(x.get("message", "")) for x in (self.report or {}).get(key, [])]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kernel": self.kernel, "file": self.file, "llir": self.llir,
                               "status": self.status, "seconds": self.seconds}  # fmt: skip
        if self.meta:
            out["metadata"] = self.meta
        if self.report is not None:
            out.update({k: v for k, v in self.report.items() if k not in ("file", "status")})
        if self.error is not None:
            out["error"] = self.error
        if self.warnings:
            out["warnings"] = self.warnings
        return out


# --- finding the kernels ----------------------------------------------------------------------

_META_KEYS = ("num_warps", "num_stages", "shared")


def _metadata(path: Path) -> dict[str, Any]:
    """The kernel's metadata JSON (Triton writes ``NAME.json`` beside ``NAME.ttgir``)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def find_kernels(root: str | os.PathLike[str]) -> list[KernelFiles]:
    """Every ``.ttgir`` under ``root`` (symbolic links to folders are not followed), in path
    order, with the ``.llir`` and metadata ``.json`` of the same name beside it.
    BatchInputError when ``root`` is not a directory or holds no ``.ttgir``."""
    base = Path(root)
    if not base.exists():
        raise BatchInputError(f"{base}: no such directory")
    if not base.is_dir():
        raise BatchInputError(f"{base}: not a directory")
    found: list[KernelFiles] = []
    for folder, dirs, files in os.walk(base, onerror=None):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".ttgir"):
                continue
            stem = name[: -len(".ttgir")]
            here = Path(folder)
            llir = here / f"{stem}.llir"
            meta = _metadata(here / f"{stem}.json") if (here / f"{stem}.json").is_file() else {}
            # Triton's metadata names the kernel; the hook's JSON report labels it.
            names = [meta.get(k) for k in ("name", "kernel")]
            kernel = next((n for n in names if isinstance(n, str) and n), None)
            found.append(KernelFiles(
                kernel or stem, str(here / name), str(llir) if llir.is_file() else None,
                {k: meta[k] for k in _META_KEYS if k in meta}))  # fmt: skip
    if not found:
        raise BatchInputError(f"{base}: no .ttgir file in it (a Triton cache holds a folder per "
                              "kernel with NAME.ttgir and NAME.llir)")  # fmt: skip
    return found


# --- judging one kernel -----------------------------------------------------------------------


def judge_texts(
    kernel: KernelFiles,
    ttgir: str,
    llir: str | None,
    python: str | None = None,
    races: bool = False,
) -> KernelVerdict:
    """Judge one kernel's texts (the plan, then the lowering against it; ``races``: the race
    check too, where the LLVM IR is at hand). Never raises for the kernel's sake: unreadable
    input or a validator failure is an ``error`` verdict."""
    from alias_spec.ir.report import Note
    from alias_spec.plan.api import check_texts
    from alias_spec.plan.output import to_json, to_sarif, to_text

    start = time.perf_counter()
    # Warnings (a dump of another release) belong to the kernel's verdict: a worker printing
    # them would give Python's two-line form, out of order with the kernels.
    failure: Exception | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = check_texts(
                ttgir,
                llir,
                kernel.ttgir,
                python,
                llir_path=kernel.llir,
                races=races and llir is not None,
            )
        except Exception as exc:  # a validator bug, too, must cost this kernel only
            failure = exc
    said = [" ".join(str(w.message).split()) for w in caught]
    if isinstance(failure, ValueError):  # TtgirError, AllocationError, LlirError: unreadable
        return _error(kernel, " ".join(str(failure).split())[:300], start)
    if failure is not None:
        return _error(kernel, f"the validator failed: {type(failure).__name__}: "
                      f"{' '.join(str(failure).split())[:250]}", start)  # fmt: skip
    if llir is None:
        # Not proved without its addresses: the kernel is partial, and says why.
        report.lowering = "not checked (no .llir beside it)"
        why = "no LLVM IR (.llir) beside the TTGIR: the addresses it computes are not checked"
        report.notes.append(Note("lowering.absent", why, 1, 1))
    results = to_sarif(report, kernel.llir)["runs"][0]["results"]
    for result in results:
        result.setdefault("properties", {})["kernel"] = kernel.name
    return KernelVerdict(kernel.name, kernel.ttgir, kernel.llir, report.status,
                         round(time.perf_counter() - start, 3), to_text(report),
                         to_json(report), results, None, kernel.meta, said)  # fmt: skip


def _error(kernel: KernelFiles, message: str, start: float) -> KernelVerdict:
    return KernelVerdict(kernel.name, kernel.ttgir, kernel.llir, "error",
                         round(time.perf_counter() - start, 3), message, None, [], message,
                         kernel.meta)  # fmt: skip


def judge_files(
    kernel: KernelFiles, python: str | None = None, races: bool = False
) -> KernelVerdict:
    """Read a kernel's files and judge them (``judge_texts``)."""
    from alias_spec.ir.inputs import read_text as read_input

    start = time.perf_counter()
    try:
        ttgir = read_input(kernel.ttgir)
        llir = read_input(kernel.llir) if kernel.llir is not None else None
    except ValueError as exc:
        return _error(kernel, str(exc), start)
    return judge_texts(kernel, ttgir, llir, python, races)


# --- judging many on this machine -------------------------------------------------------------


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _serve(conn: Any, parent: int) -> None:
    """A worker: judge the kernels it is sent, one at a time, until it is sent None."""
    from alias_spec.ir.procs import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the parent stops us
    die_with_parent(parent, signal.SIGKILL)
    import alias_spec.plan.api  # noqa: F401  (imported once, before the first kernel)

    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        index, kernel, python, races = task
        conn.send((index, judge_files(kernel, python, races)))


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, os.getpid()), daemon=True,
                                name="alias-spec-plan-worker")  # fmt: skip
        self.proc.start()
        child.close()
        self.task: tuple[int, KernelFiles, float] | None = None  # index, kernel, deadline

    def stop(self, grace: float = 0.0) -> None:
        try:
            if grace and self.task is None:
                self.conn.send(None)
                self.proc.join(grace)
        except (OSError, ValueError):
            pass
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5.0)
        self.conn.close()


def judge_kernels(
    kernels: list[KernelFiles],
    jobs: int | None = None,
    python: str | None = None,
    timeout: float = TIMEOUT_S,
    races: bool = False,
) -> Iterator[tuple[int, KernelVerdict]]:
    """Judge ``kernels`` on ``jobs`` worker processes (default: every core; ``races``: the race
    check too), yielding
    ``(index in kernels, verdict)`` as each is done. A kernel past ``timeout`` seconds, or whose
    worker dies, is an ``error``. Closing the iterator (or an exception in its consumer, such as
    KeyboardInterrupt) kills the workers."""
    import multiprocessing
    from multiprocessing.connection import wait

    jobs = max(1, min(jobs or default_jobs(), len(kernels)))
    if not kernels:
        return
    # spawn, not fork: a fork of a process with threads (a program calling this API) can hang.
    ctx = multiprocessing.get_context("spawn")
    todo = list(enumerate(kernels))[::-1]
    workers: list[_Worker] = []
    try:
        workers = [_Worker(ctx) for _ in range(jobs)]
        while todo or any(w.task is not None for w in workers):
            for w in workers:
                if w.task is None and todo:
                    index, kernel = todo.pop()
                    w.task = (index, kernel, time.monotonic() + timeout)
                    w.conn.send((index, kernel, python, races))
            busy = [w for w in workers if w.task is not None]
            next_deadline = min(w.task[2] for w in busy if w.task is not None)
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy],
                         timeout=max(0.0, min(next_deadline - time.monotonic(), 1.0)))  # fmt: skip
            for i, w in enumerate(workers):
                if w.task is None:
                    continue
                index, kernel, deadline = w.task
                verdict: KernelVerdict | None = None
                gone = False
                if w.conn in ready:
                    try:
                        _, verdict = w.conn.recv()  # one task at a time: it is this one's
                    except (EOFError, OSError):
                        gone = True  # its end of the pipe closed: it died
                if verdict is not None:
                    w.task = None
                    yield index, verdict
                    continue
                if gone or w.proc.sentinel in ready or not w.proc.is_alive():
                    w.proc.join(5.0)  # reaped, so that its exit status is known
                    code = w.proc.exitcode
                    why = (f"killed by signal {-code}" if code is not None and code < 0 else
                           f"exit status {code}")  # fmt: skip
                    message = f"the worker judging it died ({why})"
                elif time.monotonic() >= deadline:
                    message = f"not judged within {timeout:g} s (--timeout)"
                else:
                    continue
                w.task = None
                w.stop()
                workers[i] = _Worker(ctx)
                yield index, _error(kernel, message, time.perf_counter())
    finally:
        for w in workers:
            w.stop(grace=1.0)


# --- judging many on a Ray cluster ------------------------------------------------------------


class RayUnavailable(Exception):
    """Ray is not installed, or the cluster cannot be reached (one line)."""


def _judge_task(kernel: dict[str, Any], ttgir: str, llir: str | None,
                python: str | None, races: bool = False) -> dict[str, Any]:  # fmt: skip
    """A Ray task: judge the texts shipped to it (the cluster's nodes need not see our files)."""
    return asdict(judge_texts(KernelFiles(**kernel), ttgir, llir, python, races))


def _probe(address: str, timeout: float = 10.0) -> None:
    """A head that cannot be reached is one line: ``ray.init`` would retry for ever."""
    import socket

    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", or an address only Ray knows how to read
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {why}") from None


def judge_on_ray(
    kernels: list[KernelFiles],
    address: str,
    python: str | None = None,
    timeout: float = TIMEOUT_S,
    in_flight: int | None = None,
    races: bool = False,
) -> Iterator[tuple[int, KernelVerdict]]:
    """Judge ``kernels`` as tasks on the Ray cluster at ``address`` (``HOST:PORT`` of its head,
    ``ray://HOST:PORT`` through Ray Client, or ``auto``); each node needs this package with the
    ``plan`` and ``triton`` extras. The texts are read here and shipped with the tasks. At most
    ``in_flight`` tasks are submitted at a time (default: twice the cluster's CPUs)."""
    # Ray's core logs each failed connection attempt to stderr: errors only.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray
    except ImportError:
        raise RayUnavailable(f"--ray needs Ray: {RAY_HINT}") from None
    import logging

    _probe(address)

    from alias_spec.ir.inputs import read_text as read_input

    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False,
                 configure_logging=True)  # fmt: skip
    except Exception as exc:  # ConnectionError, ValueError, RuntimeError: one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {first[:200]}") from None
    task = ray.remote(num_cpus=1, max_retries=0)(_judge_task)
    pending: dict[Any, tuple[int, KernelFiles, float]] = {}
    todo = list(enumerate(kernels))[::-1]
    try:
        limit = in_flight or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
        while todo or pending:
            while todo and len(pending) < limit:
                index, kernel = todo.pop()
                try:
                    ttgir = read_input(kernel.ttgir)
                    llir = read_input(kernel.llir) if kernel.llir is not None else None
                except ValueError as exc:
                    yield index, _error(kernel, str(exc), time.perf_counter())
                    continue
                ref = task.remote(asdict(kernel), ttgir, llir, python, races)
                # The deadline counts from submission: a task waiting for a free CPU uses it too,
                # so the limit keeps at most a few tasks queued.
                pending[ref] = (index, kernel, time.monotonic() + timeout)
            if not pending:
                continue
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                index, kernel, _ = pending.pop(ref)
                try:
                    yield index, KernelVerdict(**ray.get(ref))
                except Exception as exc:  # the task died (its worker, its node): this kernel
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    yield index, _error(kernel, f"the Ray task failed: {first[:200]}",
                                        time.perf_counter())  # fmt: skip
            now = time.monotonic()
            for ref, (index, kernel, deadline) in list(pending.items()):
                if now >= deadline:
                    del pending[ref]
                    ray.cancel(ref, force=True)
                    message = f"not judged within {timeout:g} s (--timeout)"
                    yield index, _error(kernel, message, time.perf_counter())
    finally:
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: S110 (the cluster may be gone already)
                pass
        ray.shutdown()


# --- the summary ------------------------------------------------------------------------------


def _group(name: str) -> str:
    """A kernel's name without its specialization (the hook labels ``name[...](...)``)."""
    return re.split(r"[\[(]", name, maxsplit=1)[0] or name


@dataclass
class Summary:
    """Counts per kernel name and status; statuses other than STATUSES (the hook's
    ``skipped``) get a column of their own when they occur; ``unreadable`` counts as error."""

    rows: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]] | Iterable[KernelVerdict]) -> Summary:
        out = cls()
        for item in pairs:
            name, status = (item.kernel, item.status) if isinstance(item, KernelVerdict) else item
            status = "error" if status == "unreadable" else status
            row = out.rows.setdefault(_group(name), {})
            row[status] = row.get(status, 0) + 1
        return out

    def columns(self) -> list[str]:
        extra = sorted({s for row in self.rows.values() for s in row} - set(STATUSES))
        return [*STATUSES, *extra]

    def totals(self) -> dict[str, int]:
        out = dict.fromkeys(self.columns(), 0)
        for row in self.rows.values():
            for status, n in row.items():
                out[status] += n
        return out

    @property
    def kernels(self) -> int:
        return sum(self.totals().values())

    def exit_status(self) -> int:
        """1 any finding, 3 none but some kernel partial or not judged, 0 all clean."""
        totals = self.totals()
        if totals["findings"]:
            return 1
        return 3 if any(n for s, n in totals.items() if s != "clean") else 0

    def line(self) -> str:
        """``alias-spec plan: N kernels judged: a clean, b partial, ...`` (nonzero counts)."""
        totals = self.totals()
        parts = ", ".join(f"{n} {s}" for s, n in totals.items() if n)
        total = self.kernels
        return f"alias-spec plan: {total} kernel{'s' if total != 1 else ''} judged" + (
            f": {parts}" if parts else "")  # fmt: skip

    def table(self) -> str:
        """One row per kernel name (sorted), a total row, then ``line()``."""
        if not self.rows:
            return self.line()
        cols = self.columns()
        names = {n: n if len(n) <= MAX_KERNEL_NAME else n[: MAX_KERNEL_NAME - 3] + "..."
                 for n in self.rows}  # fmt: skip
        width = max(len("kernel"), *(len(n) for n in names.values()))
        heads = ["kernels", *cols]
        widths = [max(len(h), 5) for h in heads]

        def cells(first: str, values: list[Any]) -> str:
            pairs = zip(values, widths, strict=True)
            return first.ljust(width) + "".join(f"  {v:>{w}}" for v, w in pairs)

        def row(name: str, counts: dict[str, int]) -> str:
            return cells(name, [sum(counts.values()), *(counts.get(c, 0) for c in cols)])

        lines = [cells("kernel", heads)]
        lines += [row(names[n], self.rows[n]) for n in sorted(self.rows)]
        lines.append(row("all", self.totals()))
        return "\n".join([*lines, self.line()])

    def to_json(self) -> dict[str, Any]:
        return {"kernels": self.kernels, **self.totals(),
                "by_kernel": {n: {"kernels": sum(r.values()), **r}
                              for n, r in sorted(self.rows.items())}}  # fmt: skip


# --- progress ---------------------------------------------------------------------------------


class Progress:
    """A progress bar on a terminal (redrawn in place); elsewhere (a log) a plain line at most
    every ``every`` seconds, so a long run shows it is alive and a short one prints nothing."""

    def __init__(
        self,
        total: int,
        stream: IO[str] | None = None,
        tty: bool | None = None,
        every: float = 30.0,
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = self.stream.isatty() if tty is None else tty
        except (OSError, ValueError):
            self.tty = False
        self.every = every
        self.done = 0
        self.counts: dict[str, int] = {}
        self.start = self._last = time.monotonic()

    def update(self, status: str) -> None:
        self.done += 1
        self.counts[status] = self.counts.get(status, 0) + 1
        now = time.monotonic()
        elapsed = now - self.start
        said = ", ".join(f"{self.counts[s]} {s}" for s in STATUSES if self.counts.get(s))
        try:
            if self.tty:
                width = 24
                filled = width * self.done // max(self.total, 1)
                bar = "#" * filled + "." * (width - filled)
                text = f"\r[{bar}] {self.done}/{self.total} {elapsed:.0f} s  {said}"
                self.stream.write(text[:119] + "\x1b[K")
                self.stream.flush()
            elif now - self._last >= self.every:
                self._last = now
                self.stream.write(f"alias-spec plan: {self.done}/{self.total} kernels, "
                                  f"{elapsed:.0f} s: {said}\n")  # fmt: skip
                self.stream.flush()
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        if self.tty:
            try:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            except (OSError, ValueError):
                pass


# --- the whole run ----------------------------------------------------------------------------


def judge_dir(
    root: str | os.PathLike[str],
    jobs: int | None = None,
    python: str | None = None,
    timeout: float = TIMEOUT_S,
    ray: str | None = None,
    progress: Callable[[KernelVerdict], None] | None = None,
    races: bool = False,
) -> list[KernelVerdict]:
    """Every kernel under ``root`` judged (``find_kernels``), in path order: on ``jobs``
    processes here, or on the Ray cluster at ``ray``. BatchInputError for a directory without
    kernels, RayUnavailable when Ray cannot be used."""
    kernels = find_kernels(root)
    if ray is not None:
        stream = judge_on_ray(kernels, ray, python, timeout, races=races)
    else:
        stream = judge_kernels(kernels, jobs, python, timeout, races)
    verdicts: list[KernelVerdict | None] = [None] * len(kernels)
    with contextlib.closing(stream):  # its finally stops the workers at once
        for index, verdict in stream:
            verdicts[index] = verdict
            if progress is not None:
                progress(verdict)
    return [v for v in verdicts if v is not None]


# --- the reports of a run ---------------------------------------------------------------------


def to_text(verdicts: list[KernelVerdict]) -> str:
    """Each kernel that is not clean with its report, then the summary table."""
    blocks = []
    for v in verdicts:
        if v.status == "clean" and not v.warnings:
            continue
        lines = [f"warning: {w}" for w in v.warnings]
        lines += v.text.splitlines() if v.status != "clean" else []
        body = "\n".join("  " + line for line in lines)
        blocks.append(f"{v.kernel} ({v.file}): {v.status}\n{body}")
    return "\n".join([*blocks, *([""] if blocks else []), Summary.of(verdicts).table()])


def to_json(verdicts: list[KernelVerdict], root: str) -> dict[str, Any]:
    return {"directory": root, "summary": Summary.of(verdicts).to_json(),
            "kernels": [v.to_json() for v in verdicts]}  # fmt: skip


def to_sarif(verdicts: list[KernelVerdict], root: str) -> dict[str, Any]:
    """One SARIF run for all kernels (code scanning takes one run per tool): every kernel's
    results, each naming its kernel; a kernel not judged is a tool execution notification."""
    from alias_spec.ir import report as out
    from alias_spec.plan.output import KINDS, TOOL

    summary = Summary.of(verdicts)
    log = out.to_sarif(out.Run(TOOL, root, [], [], KINDS, {"summary": summary.to_json()}))
    run = log["runs"][0]
    run["results"] = [r for v in verdicts for r in v.sarif]
    errors = [v for v in verdicts if v.status == "error"]
    run["invocations"] = [{
        "executionSuccessful": not errors,
        "toolExecutionNotifications": [{
            "level": "error", "message": {"text": f"{v.kernel}: {v.error}"},
            "locations": [{"physicalLocation": {"artifactLocation": {
                "uri": Path(v.file).as_posix()}}}]} for v in errors]}]  # fmt: skip
    return log
