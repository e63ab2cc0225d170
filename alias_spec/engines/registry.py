"""The one list of engines: name -> an :class:`~alias_spec.engines.base.Engine` (``judge``,
``judge_batch``, and the cheap ``outcome`` the differential tester compares).

Every consumer (``alias-spec check --engine``, ``alias-spec lint``, the differential fuzzer,
the request-level differential, the mutation tester, the benchmark and the tests) takes its
names from here, so an engine added here is offered, fuzzed and measured everywhere. Engines
load lazily: naming one imports nothing heavy (the command line starts without z3).

- ``z3``: the solver, one query per rule (``alias_spec.semantics.check``), without fixes
  (``z3_engine``); its outcome is z3's terms simplified on the concrete facts.
- ``interp``: the reference interpreter (``alias_spec.model.interp``, ``interp_engine``).
- ``python``: the generated Python checks (``alias_spec.engines.py_engine``).
- ``cpp``: the generated C++ header through the compiled harness (``cpp_engine``); its
  domain is int64 facts. It needs a working C++ compiler: without one, ``get("cpp")`` raises
  EngineUnavailable with one line saying what to install.

A campaign may also name ``z3-solver`` (``SOLVER``): the z3 engine whose outcome is its
verdict's, beside the fast evaluation of its terms (``CAMPAIGN`` lists what a campaign takes).

Engines that judge whole requests (types, not facts: ``base.RequestEngine``) are listed apart,
in ``REQUEST_NAMES``:

- ``mlir``: the generated verifier built against real MLIR 19 in ``compiler_patch/``'s
  testbed and run on each request written as IR (``mlir_engine``); without MLIR 19,
  ``request_engine("mlir")`` raises EngineUnavailable with the apt-get line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache

from alias_spec.engines.base import Engine, RequestEngine
from alias_spec.model.facts import Facts
from alias_spec.model.request import Request
from alias_spec.model.verdict import Verdict, Violation


def _z3(sanitize: bool) -> Engine:
    from alias_spec.engines.z3_engine import Z3Engine

    return Z3Engine()


def _z3_solver(sanitize: bool) -> Engine:
    from alias_spec.engines.z3_engine import Z3SolverEngine

    return Z3SolverEngine()


def _interp(sanitize: bool) -> Engine:
    from alias_spec.engines.interp_engine import InterpEngine

    return InterpEngine()


def _python(sanitize: bool) -> Engine:
    from alias_spec.engines.py_engine import PythonEngine

    return PythonEngine()


def _cpp(sanitize: bool) -> Engine:
    from alias_spec.engines.cpp_engine import CppEngine

    return CppEngine(sanitize)


def _mlir() -> RequestEngine:
    from alias_spec.engines.mlir_engine import MlirEngine, MlirEngineError, driver

    try:
        binary = driver()  # built once (cached by its sources' hash)
    except MlirEngineError as exc:
        raise EngineUnavailable("mlir", _first_line(str(exc)), remedy("mlir")) from None
    return MlirEngine(binary)


# What the C++ engine needs, said where it is missing.
CPP_INSTALL = (
    "install a C++17 compiler (g++ or clang++) or set CXX to one; the python engine needs none"
)


def _first_line(text: str) -> str:
    """The first non-empty line of a build error (the compiler's own lines follow it)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0].rstrip(":") if lines else "the engine could not start"


# Name -> loader, in the order the command line offers them (z3 first).
_LOADERS: dict[str, Callable[[bool], Engine]] = {
    "z3": _z3,
    "interp": _interp,
    "python": _python,
    "cpp": _cpp,
}
NAMES: tuple[str, ...] = tuple(_LOADERS)
# The z3 engine judged through its verdicts, which a campaign may run beside its fast form.
SOLVER = "z3-solver"
_CAMPAIGN_LOADERS: dict[str, Callable[[bool], Engine]] = {**_LOADERS, SOLVER: _z3_solver}
# Every name a campaign (``alias-spec fuzz --engines``, ``fuzz.Engines``) accepts.
CAMPAIGN: tuple[str, ...] = tuple(_CAMPAIGN_LOADERS)
# The engines a campaign runs by default (the fuzzer, a saved regression's replay, the
# request-level differential), in report order, the reference interpreter first: all of NAMES.
FAST: tuple[str, ...] = ("interp", "python", "cpp", "z3")
# ``alias-spec fuzz``'s engines unless ``--engines`` says: FAST less z3 (milliseconds a case).
FUZZ: tuple[str, ...] = tuple(n for n in FAST if n != "z3")
# The engines that compute in Python's integers: where a divisor is zero (outside the spec's
# invariants) they raise the interpreter's ZeroDivisionError, which is compared; there the
# spec has no verdict and the other engines' outcomes are not compared.
PYTHON_ARITHMETIC: tuple[str, ...] = ("interp", "python")
_REQUEST_LOADERS: dict[str, Callable[[], RequestEngine]] = {"mlir": _mlir}
REQUEST_NAMES: tuple[str, ...] = tuple(_REQUEST_LOADERS)
# ``alias-spec check``'s engine: the generated Python checks judge in microseconds; z3 (seconds
# per hundred requests) still gives the fixes and implications, whatever the engine.
DEFAULT = "python"
# ``alias-spec lint``'s engine: the reference interpreter.
LINT = "interp"


class UnknownEngine(KeyError):
    """A name that is not in the registry."""


class EngineUnavailable(RuntimeError):
    """An engine that cannot run on this machine: one line naming it, why, and what to do."""

    def __init__(self, name: str, why: str, remedy: str) -> None:
        self.name, self.why, self.remedy = name, why, remedy
        super().__init__(f"engine {name} is unavailable: {why}; {remedy}")


def remedy(name: str) -> str:
    """What to do about an engine that cannot run here."""
    if name == "mlir":
        return "or set ALIAS_SPEC_MLIR_OPT to a built tle-alias-opt; the other engines need none"
    return CPP_INSTALL if name == "cpp" else f"choose another engine than {name}"


def unavailable(name: str) -> str | None:
    """Why ``name`` cannot run here (one line), or None when it can; nothing is built."""
    if name == "cpp":
        from alias_spec.engines.cpp_engine import compiler, no_compiler

        if compiler() is None:
            return no_compiler()
    if name == "mlir":
        from alias_spec.engines.mlir_engine import ENV, missing

        return None if os.environ.get(ENV) else missing()
    return None


def available() -> tuple[str, ...]:
    """The engines of NAMES that can run here (nothing is built)."""
    return tuple(n for n in NAMES if unavailable(n) is None)


def engine(name: str, sanitize: bool = False) -> Engine:
    """A new engine called ``name`` (any of CAMPAIGN), nothing built or checked yet: what a
    campaign judges with (``sanitize``: the C++ harness with ASan and UBSan)."""
    loader = _CAMPAIGN_LOADERS.get(name)
    if loader is None:
        raise UnknownEngine(f"unknown engine {name!r}; choose one of {', '.join(CAMPAIGN)}")
    return loader(sanitize)


@cache
def get(name: str) -> Engine:
    """The engine called ``name`` (one of NAMES); UnknownEngine names the choices,
    EngineUnavailable says what an engine that cannot run here needs."""
    if name not in _LOADERS:
        raise UnknownEngine(f"unknown engine {name!r}; choose one of {', '.join(NAMES)}")
    if name == "cpp":
        from alias_spec.engines.cpp_engine import CppEngineError, build

        try:
            build()  # cached once built: a missing or broken compiler shows here, not per request
        except CppEngineError as exc:
            raise EngineUnavailable("cpp", _first_line(str(exc)), remedy("cpp")) from None
    return engine(name)


@cache
def request_engine(name: str) -> RequestEngine:
    """The request-level engine called ``name``, like :func:`get`."""
    loader = _REQUEST_LOADERS.get(name)
    if loader is None:
        raise UnknownEngine(
            f"unknown request engine {name!r}; choose one of {', '.join(REQUEST_NAMES)}"
        )
    return loader()


def judge(req: Request, profile: str, engine: str = DEFAULT, fixes: bool = True) -> Verdict:
    """``alias-spec check``'s verdict on one parsed request: the engine named ``engine``, the
    rules it could not judge and why, z3's fixes (``semantics.verdict.judge``, a layer over
    ``engine_verdict``, the one place an engine judges facts)."""
    from alias_spec.semantics.verdict import judge as judge_with

    return judge_with(req, profile, get(engine), fixes)


def implications(req: Request, verdict: Verdict) -> dict[str, str]:
    """Violated rule -> the earlier violated rule that implies it on this request."""
    from alias_spec.semantics.verdict import implications as implied

    return implied(req, verdict)


def judge_facts(
    facts: Facts, profile: str, unknown: frozenset[str] = frozenset(), engine: str = LINT
) -> tuple[list[Violation], list[str]]:
    """``alias-spec lint``'s (and the random differential's) judgement of one fact dict: the
    engine's violations among the rules it can judge with ``unknown`` facts unknown, and the
    rules it cannot (``semantics.verdict.engine_verdict``, as ``judge`` gets them)."""
    from alias_spec.semantics.verdict import engine_verdict

    verdict, _ = engine_verdict(facts, profile, unknown, get(engine))
    return verdict.violations, verdict.not_judged
