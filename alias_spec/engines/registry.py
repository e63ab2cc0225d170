"""The one list of engines: name -> a judge of facts under a profile, returning a Verdict.

Every consumer (``alias-spec check --engine``, the differential fuzzer, the benchmark) reads
this table, so an engine added here is offered, fuzzed and measured everywhere. Engines load
lazily: naming one imports nothing heavy (the command line starts without z3).

- ``z3``: the solver, one query per rule (``alias_spec.semantics.check``), without fixes.
- ``interp``: the reference interpreter (``alias_spec.model.interp``).
- ``python``: the generated Python checks (``alias_spec.engines.py_engine``).
- ``cpp``: the generated C++ header through the compiled harness (``cpp_engine``); its
  domain is int64 facts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Protocol

from alias_spec.model.facts import Facts
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
    from alias_spec.engines.cpp_engine import check_facts

    def judge(facts: Facts, profile: str) -> Verdict:
        return check_facts(facts, profile)

    return judge


# Name -> loader, in the order the command line offers them (z3, the default, first).
_LOADERS: dict[str, Callable[[], Engine]] = {
    "z3": _z3,
    "interp": _interp,
    "python": _python,
    "cpp": _cpp,
}
NAMES: tuple[str, ...] = tuple(_LOADERS)


class UnknownEngine(KeyError):
    """A name that is not in the registry."""


@cache
def get(name: str) -> Engine:
    """The engine called ``name``; UnknownEngine names the choices."""
    loader = _LOADERS.get(name)
    if loader is None:
        raise UnknownEngine(f"unknown engine {name!r}; choose one of {', '.join(NAMES)}")
    return loader()
