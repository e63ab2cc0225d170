"""The one list of engines: name -> a judge of facts under a profile, returning a Verdict.

Every consumer (``alias-spec check --engine``, the differential fuzzer, the benchmark) reads
this table, so an engine added here is offered, fuzzed and measured everywhere. Engines load
lazily: naming one imports nothing heavy (the command line starts without z3).

- ``z3``: the solver, one query per rule (``alias_spec.semantics.check``), without fixes.
- ``interp``: the reference interpreter (``alias_spec.model.interp``).
- ``python``: the generated Python checks (``alias_spec.engines.py_engine``).
- ``cpp``: the generated C++ header through the compiled harness (``cpp_engine``); its
  domain is int64 facts. It needs a working C++ compiler: without one, ``get("cpp")`` raises
  EngineUnavailable with one line saying what to install.

Engines that judge whole requests (types, not facts) are listed apart, in ``REQUEST_NAMES``:

- ``mlir``: the generated verifier built against real MLIR 19 in ``compiler_patch/``'s
  testbed and run on each request written as IR (``mlir_engine``); without MLIR 19,
  ``request_engine("mlir")`` raises EngineUnavailable with the apt-get line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

from alias_spec.model.errors import RequestError
from alias_spec.model.facts import Facts
from alias_spec.model.request import Request
from alias_spec.model.verdict import Verdict


class Engine(Protocol):
    """Judges one fact dict under one profile."""

    def __call__(self, facts: Facts, profile: str) -> Verdict: ...


def _z3() -> Engine:
    from alias_spec.semantics.check import check_facts

    def judge(facts: Facts, profile: str) -> Verdict:
        # Fixes are a separate step (the command line attaches them to any engine's verdict).
        return check_facts(facts, profile, with_fixes=False)

    return judge


def _interp() -> Engine:
    from alias_spec.model.interp import check_facts

    def judge(facts: Facts, profile: str) -> Verdict:
        return check_facts(facts, profile)

    return judge


def _python() -> Engine:
    from alias_spec.engines.py_engine import check_facts

    return check_facts


def _cpp() -> Engine:
    from alias_spec.engines.cpp_engine import CppEngineError, build, check_facts

    try:
        build()  # cached once built: a missing or broken compiler shows here, not per request
    except CppEngineError as exc:
        raise EngineUnavailable("cpp", _first_line(str(exc)), remedy("cpp")) from None

    def judge(facts: Facts, profile: str) -> Verdict:
        return check_facts(facts, profile)

    return judge


class RequestEngine(Protocol):
    """Judges requests under one profile: per request, the violated rule ids, or the
    RequestError saying why it is malformed or outside the engine's domain."""

    def __call__(self, requests: Sequence[Any], profile: str) -> list[list[str] | RequestError]: ...


def _mlir() -> RequestEngine:
    from alias_spec.engines.mlir_engine import MlirEngineError, driver, judge

    try:
        binary = driver()  # built once (cached by its sources' hash)
    except MlirEngineError as exc:
        raise EngineUnavailable("mlir", _first_line(str(exc)), remedy("mlir")) from None

    def run(requests: Sequence[Any], profile: str) -> list[list[str] | RequestError]:
        return judge(requests, profile, binary)

    return run


# What the C++ engine needs, said where it is missing.
CPP_INSTALL = (
    "install a C++17 compiler (g++ or clang++) or set CXX to one; the python engine needs none"
)


def _first_line(text: str) -> str:
    """The first non-empty line of a build error (the compiler's own lines follow it)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0].rstrip(":") if lines else "the engine could not start"


# Name -> loader, in the order the command line offers them (z3 first).
_LOADERS: dict[str, Callable[[], Engine]] = {
    "z3": _z3,
    "interp": _interp,
    "python": _python,
    "cpp": _cpp,
}
NAMES: tuple[str, ...] = tuple(_LOADERS)
_REQUEST_LOADERS: dict[str, Callable[[], RequestEngine]] = {"mlir": _mlir}
REQUEST_NAMES: tuple[str, ...] = tuple(_REQUEST_LOADERS)
# ``alias-spec check``'s engine: the generated Python checks judge in microseconds; z3 (seconds
# per hundred requests) still gives the fixes and implications, whatever the engine.
DEFAULT = "python"


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


@cache
def get(name: str) -> Engine:
    """The engine called ``name``; UnknownEngine names the choices, EngineUnavailable says
    what an engine that cannot run here needs."""
    loader = _LOADERS.get(name)
    if loader is None:
        raise UnknownEngine(f"unknown engine {name!r}; choose one of {', '.join(NAMES)}")
    return loader()


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
    rules it could not judge, z3's fixes."""
    from alias_spec.semantics.verdict import judge as judge_with

    return judge_with(req, profile, get(engine), fixes)


def implications(req: Request, verdict: Verdict) -> dict[str, str]:
    """Violated rule -> the earlier violated rule that implies it on this request."""
    from alias_spec.semantics.verdict import implications as implied

    return implied(req, verdict)
