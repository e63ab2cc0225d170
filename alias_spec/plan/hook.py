"""Validate every kernel Triton compiles: ``alias-spec plan`` as a post-compile hook.

    import alias_spec.plan
    alias_spec.plan.install()          # every kernel compiled from now on is judged
    ...
    alias_spec.plan.uninstall()        # the hook installed before it is back

Triton calls ``knobs.runtime.jit_post_compile_hook`` once a ``@triton.jit`` / ``@gluon.jit``
kernel is compiled for a launch or a ``warmup`` (not for a direct ``triton.compile``: judge that
object with ``check_compiled``). The hook takes the compiled kernel from the function's JIT cache,
judges its ``asm["ttgir"]`` and ``asm["llir"]`` and writes one report per kernel: to stderr, and
with ``out`` to a directory (the texts and a JSON report per kernel, so ``alias-spec plan`` can
judge them again). A hook installed before is chained: it runs first, and is restored by
``uninstall``.

Modes: ``report`` (write the reports, never raise), ``raise`` (a finding raises
PlanFindingsError from the launch that compiled the kernel), ``strict`` (so does a kernel only
partly judged or unreadable). Without arguments ``install`` reads ALIAS_SPEC_PLAN (the mode) and
ALIAS_SPEC_PLAN_OUT (the directory). Without touching the code under test:

    alias-spec plan-run [--mode M] [--out DIR] script.py|-m module [ARGS...]
    ALIAS_SPEC_PLAN=raise python -m pytest

(the pytest plugin, a ``pytest11`` entry point of the installed package that is inert
until switched on, also takes ``--alias-spec-plan=MODE`` and ``--alias-spec-plan-out=DIR``).
Importing ``alias_spec.plan`` installs nothing. With no GPU, ``compile_only`` lets
``kernel.warmup`` compile (for sm_90 by default) through the same path, so the hook runs too.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import runpy
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ENV_MODE = "ALIAS_SPEC_PLAN"
ENV_OUT = "ALIAS_SPEC_PLAN_OUT"
MODES = ("report", "raise", "strict")
# Values of ALIAS_SPEC_PLAN that mean "report" (the variable set to switch it on).
_ON = ("1", "on", "yes", "true")
_OFF = ("", "0", "off", "no", "false")


class PlanFindingsError(RuntimeError):
    """A kernel's plan or lowering has a finding (mode raise), or was not fully judged (mode
    strict). ``result`` is the kernel's KernelResult."""

    def __init__(self, message: str, result: KernelResult) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class KernelResult:
    name: str  # the kernel as Triton's hook names it (function, options, argument types)
    status: str  # clean, findings, partial, unreadable (the validator could not read it), skipped
    message: str  # the report as text (or the one line saying why it was not judged)
    report: Any = None  # the plan Report, where one was made
    files: list[str] = field(default_factory=list)  # what was written under ``out``


def _compiled_kernel(fn: Any, compile: dict[str, Any], key: Any) -> Any:
    """The kernel Triton just compiled: the hook is given its cache key and device, and the
    JIT function keeps it in ``device_caches[device][0][key]`` (Triton 3.6-3.9)."""
    jit = getattr(fn, "jit_function", None)
    caches = getattr(jit, "device_caches", None)
    if caches is None or not isinstance(compile, dict):
        return None
    try:
        kernel = caches[compile.get("device")][0].get(key)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    result = getattr(kernel, "result", None)  # a kernel compiled asynchronously
    if callable(result) and not hasattr(kernel, "asm"):
        kernel = result()
    return kernel


def _label(fn: Any, compile: Any, fallback: Any) -> str:
    """``name[num_warps=W](arg: type, ..., CONST=value)``: the kernel as compiled. Triton's own
    ``repr`` argument is not used where the signature is readable: 3.6 prints it truncated."""
    name = getattr(fn, "name", None)
    sig = compile.get("signature") if isinstance(compile, dict) else None
    if not isinstance(name, str) or not isinstance(sig, dict):
        return str(fallback or name or "kernel")
    consts = compile.get("constants")
    values = {k[0]: v for k, v in consts.items() if isinstance(k, tuple) and len(k) == 1} if (
        isinstance(consts, dict)) else {}  # fmt: skip
    args = [
        f"{arg}={values.get(i, '?')}" if ty == "constexpr" else f"{arg}: {ty}"
        for i, (arg, ty) in enumerate(sig.items())
    ]
    warps = compile.get("num_warps")
    opts = f"[num_warps={warps}]" if warps is not None else ""
    return f"{name}{opts}({', '.join(args)})"[:300]


def _stem(name: str, ttgir: str, kernel: Any) -> str:
    digest = getattr(getattr(kernel, "metadata", None), "hash", None)
    if not isinstance(digest, str) or not digest:
        digest = hashlib.sha256(ttgir.encode()).hexdigest()
    safe = re.sub(r"[^\w.-]+", "_", name)[:80] or "kernel"
    return f"{safe}-{digest[:10]}"


class PlanHook:
    """The post-compile hook: call it with Triton's hook arguments, or ``check`` a compiled
    kernel directly. ``results`` keeps one KernelResult per kernel judged."""

    def __init__(
        self,
        mode: str = "report",
        out: str | os.PathLike[str] | None = None,
        stream: IO[str] | None = None,
        python: str | None = None,
        lowering: bool = True,
        previous: Any = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.out = Path(out) if out is not None else None
        self.stream = stream
        self.python = python
        self.lowering = lowering
        self.previous = previous
        self.active = True
        self.results: list[KernelResult] = []
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, **kwargs: Any) -> Any:
        answer = self.previous(**kwargs) if self.previous is not None else None
        if not self.active:
            return answer
        compile = kwargs.get("compile") or {}
        kernel = _compiled_kernel(kwargs.get("fn"), compile, kwargs.get("key"))
        label = _label(kwargs.get("fn"), compile, kwargs.get("repr"))
        if kernel is None:
            why = (
                "the compiled kernel is not in the JIT function's cache "
                "(an unsupported Triton release?)"
            )
            self._record(KernelResult(label, "unreadable", why))
        else:
            self.check(kernel, label)
        return answer

    def check(self, kernel: Any, label: str | None = None) -> KernelResult:
        """Judge one compiled kernel, report it, and raise as the mode says."""
        from alias_spec.ir.ttgir import TtgirError
        from alias_spec.plan.api import PlanInputError, check_texts, kernel_texts
        from alias_spec.plan.llir import LlirError
        from alias_spec.plan.output import to_json, to_text
        from alias_spec.plan.runner import AllocationError

        target = getattr(getattr(kernel, "metadata", None), "target", None)
        backend = getattr(target, "backend", "cuda")
        try:
            name, ttgir, llir = kernel_texts(kernel, self.lowering)
        except PlanInputError as exc:
            return self._record(KernelResult(label or "kernel", "unreadable", str(exc)))
        label = label or name
        if backend != "cuda":
            return self._record(KernelResult(label, "skipped", f"not judged: the plan of a "
                                             f"{backend} kernel is not modelled"))  # fmt: skip
        stem = _stem(name, ttgir, kernel)
        with self._lock:
            if stem in self._seen:  # the same kernel compiled again (another device, a reload)
                return KernelResult(label, "skipped", "judged before")
            self._seen.add(stem)
        files: list[str] = []
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            for suffix, text in ((".ttgir", ttgir), (".llir", llir)):
                if text is not None:
                    (self.out / f"{stem}{suffix}").write_text(text)
                    files.append(str(self.out / f"{stem}{suffix}"))
        path = str(self.out / f"{stem}.ttgir") if self.out is not None else f"{name}.ttgir"
        try:
            report = check_texts(ttgir, llir, path, self.python,
                                 llir_path=path.rsplit(".", 1)[0] + ".llir")  # fmt: skip
        except (TtgirError, AllocationError, LlirError, ValueError) as exc:
            result = KernelResult(
                label, "unreadable", " ".join(str(exc).split())[:300], None, files
            )
        except Exception as exc:  # a validator bug must not stop the program under test
            why = f"not judged: the validator failed: {type(exc).__name__}: {exc}"
            result = KernelResult(label, "unreadable", " ".join(why.split())[:300], None, files)
        else:
            result = KernelResult(label, report.status, to_text(report), report, files)
        if self.out is not None:
            doc = {"kernel": label, "status": result.status}
            doc.update(to_json(result.report) if result.report is not None else
                       {"error": result.message})  # fmt: skip
            (self.out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
            result.files.append(str(self.out / f"{stem}.json"))
        return self._record(result)

    def _record(self, result: KernelResult) -> KernelResult:
        with self._lock:
            self.results.append(result)
        stream = self.stream if self.stream is not None else sys.stderr
        if result.status == "clean":
            body = result.message.splitlines()[-1]
        else:
            body = "\n".join("  " + line for line in result.message.splitlines())
        sep = " " if result.status == "clean" else "\n"
        print(f"alias-spec plan: {result.name}: {result.status}:{sep}{body}", file=stream,
              flush=True)  # fmt: skip
        if (
            result.status == "findings"
            and self.mode in ("raise", "strict")
            or (result.status in ("partial", "unreadable") and self.mode == "strict")
        ):
            report = result.report
            first = report.findings[0].message if report is not None and report.findings else (
                result.message)  # fmt: skip
            first = first.strip().splitlines()[0] if first.strip() else ""
            raise PlanFindingsError(
                f"alias-spec plan: {result.name}: {result.status}: {first}"[:1000], result
            )
        return result

    def summary(self) -> str:
        """The table ``alias-spec plan DIR`` prints: per kernel name, how many kernels were
        clean, partial, had findings or could not be judged, then the counts in one line."""
        from alias_spec.plan.batch import Summary

        return Summary.of((r.name, r.status) for r in self.results).table()


_STACK: list[PlanHook] = []


def _mode_from_env() -> str | None:
    value = os.environ.get(ENV_MODE, "").strip().lower()
    if value in _OFF:
        return None
    return "report" if value in _ON else value


def install(
    mode: str | None = None,
    out: str | os.PathLike[str] | None = None,
    *,
    stream: IO[str] | None = None,
    python: str | None = None,
    lowering: bool = True,
) -> PlanHook:
    """Judge every kernel Triton compiles from now on; returns the hook (its ``results``).
    ``mode`` and ``out`` default to ALIAS_SPEC_PLAN and ALIAS_SPEC_PLAN_OUT (else report, no
    directory). A hook already installed is chained and comes back with ``uninstall``."""
    from triton import knobs

    mode = mode or _mode_from_env() or "report"
    if out is None:
        out = os.environ.get(ENV_OUT) or None
    hook = PlanHook(mode, out, stream, python, lowering,
                    previous=knobs.runtime.jit_post_compile_hook)  # fmt: skip
    knobs.runtime.jit_post_compile_hook = hook
    _STACK.append(hook)
    return hook


def uninstall(hook: PlanHook | None = None) -> None:
    """Remove ``hook`` (default: the one installed last). Where it is still Triton's hook the
    one before it is restored; where another was installed over it, it only passes through."""
    from triton import knobs

    if hook is None:
        if not _STACK:
            return
        hook = _STACK[-1]
    if hook in _STACK:
        _STACK.remove(hook)
    hook.active = False
    # Unwind every removed hook on top of Triton's chain (one removed under another is left
    # in place, passing through, until the one above it goes).
    current = knobs.runtime.jit_post_compile_hook
    while isinstance(current, PlanHook) and not current.active:
        current = current.previous
    knobs.runtime.jit_post_compile_hook = current


@contextlib.contextmanager
def installed(mode: str | None = None, out: str | os.PathLike[str] | None = None,
              **kwargs: Any) -> Iterator[PlanHook]:  # fmt: skip
    """``install`` for a ``with`` block."""
    hook = install(mode, out, **kwargs)
    try:
        yield hook
    finally:
        uninstall(hook)


# --- compiling with no GPU ---------------------------------------------------------------------


class _CompileOnlyDriver:
    """Answers the three questions a JIT function asks the driver before it compiles (device,
    stream, target); anything else (loading a binary for a launch) fails in one line."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def get_current_target(self) -> Any:
        return self.target

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"compile_only: driver.{name} needs a GPU (warmup compiles here; a "
                           "launch cannot)")  # fmt: skip


@contextlib.contextmanager
def compile_only(capability: int = 90, warp_size: int = 32) -> Iterator[None]:
    """Inside the block, ``kernel.warmup(..., grid=...)`` compiles for CUDA sm_``capability``
    with no GPU (pointer arguments as ``triton.runtime.jit.MockTensor(dtype)``), through the
    same path as a launch: ``install``'s hook judges each kernel. A launch fails."""
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver

    # DriverConfig (3.6-3.9) keeps the active driver in ``_active``; ``reset_active`` would
    # look for a GPU driver, which a machine without one does not have.
    saved = getattr(driver, "_active", None)
    driver.set_active(_CompileOnlyDriver(GPUTarget("cuda", capability, warp_size)))
    try:
        yield
    finally:
        driver._active = saved


# --- running a program or a test suite with the hook -----------------------------------------


PROG = "alias-spec plan-run"  # the command that runs ``main``


def main(argv: list[str] | None = None) -> int:
    """``alias-spec plan-run``: run a program with the hook installed; its exit status."""
    from alias_spec.plan.cli import RUN_HELP

    p = argparse.ArgumentParser(
        prog=PROG, description=RUN_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--mode", choices=MODES, help="report (default), raise or strict")
    p.add_argument("--out", metavar="DIR", help="also write each kernel's texts and report here")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as python -m does")
    p.add_argument("args", nargs=argparse.REMAINDER, help="script.py [ARGS...], or the module's")
    args = p.parse_args(argv)
    if args.module is None and not args.args:
        p.error("give a script or -m MODULE")
    mode = args.mode or _mode_from_env() or "report"
    if mode not in MODES:
        return _error(f"{ENV_MODE}={mode!r} is not one of {', '.join(MODES)}")
    if args.module is None and not Path(args.args[0]).is_file():
        return _error(f"no such file: {args.args[0]}")
    try:
        hook = install(mode, args.out)
    except ImportError:
        return _error(f"triton is not installed, and {PROG} needs it: "
                      "pip install 'tle-alias-spec[plan]'")  # fmt: skip
    status = 0
    try:
        if args.module is not None:
            sys.argv = [args.module, *args.args]
            # As python -m: the current directory first on the path (alias-spec, a console
            # script, starts with its own directory there instead).
            sys.path.insert(0, os.getcwd())
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            script = args.args[0]
            sys.argv = list(args.args)
            sys.path.insert(0, str(Path(script).resolve().parent))
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except PlanFindingsError as exc:  # mode raise/strict, not caught by the program: one line
        print(str(exc).splitlines()[0], file=sys.stderr)
        status = 1
    finally:
        print(hook.summary(), file=sys.stderr)
        uninstall(hook)
    return status


def _error(message: str) -> int:
    """A reason the program cannot start, in every command's form: one line, status 2."""
    print(f"alias-spec: error: {message}", file=sys.stderr)
    return 2


# The pytest plugin (the package's pytest11 entry point, or ``-p alias_spec.plan.hook`` where
# the package is on the path but not installed): pytest finds these functions by name.


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("alias-spec plan")
    group.addoption(
        "--alias-spec-plan",
        choices=MODES,
        default=None,
        dest="alias_spec_plan",
        help=f"judge every Triton kernel the tests compile (default: ${ENV_MODE})",
    )
    group.addoption(
        "--alias-spec-plan-out",
        default=None,
        dest="alias_spec_plan_out",
        metavar="DIR",
        help=f"write each kernel's texts and report (${ENV_OUT})",
    )


def pytest_configure(config: Any) -> None:
    mode = config.getoption("alias_spec_plan") or _mode_from_env()
    if mode is None:
        return
    if mode not in MODES:
        import pytest

        raise pytest.UsageError(f"{ENV_MODE}={mode!r} is not one of {', '.join(MODES)}")
    config._alias_spec_plan_hook = install(mode, config.getoption("alias_spec_plan_out"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    hook = getattr(terminalreporter.config, "_alias_spec_plan_hook", None)
    if hook is not None:
        for line in hook.summary().splitlines():
            terminalreporter.write_line(line)


def pytest_unconfigure(config: Any) -> None:
    hook = getattr(config, "_alias_spec_plan_hook", None)
    if hook is not None:
        uninstall(hook)
