"""tle-alias-spec: the shared-memory alias rules as data, one source of truth.

The package is layered; each layer imports only from the layers above it in this list:
``model`` (rules, facts, the physical model, request parsing), ``semantics`` (z3 terms,
checking, fixes, theorems), ``backends`` (the spec as C++, Python and recipe text),
``generated`` (their committed output), ``frontend`` (``tle.gpu.alloc`` for Gluon),
``engines`` (one checking protocol, four engines), ``lint`` (IR dumps), ``difftest`` (fuzzing,
mutation, Triton differential tests, corpora), ``docgen`` (the docs site), then the command
line (``cli``, ``gen``). Names below load lazily so the frontend never pulls in pydantic or z3.
"""

from __future__ import annotations

from importlib import import_module, metadata
from typing import Any

try:  # the installed distribution's version, which pyproject.toml sets
    __version__ = metadata.version("tle-alias-spec")
except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
    __version__ = "0.2.0"

_EXPORTS = {
    "DEFAULT_PROFILE": "alias_spec.model.catalogue",
    "PROFILES": "alias_spec.model.catalogue",
    "RULES": "alias_spec.model.catalogue",
    "Rule": "alias_spec.model.catalogue",
    "rule": "alias_spec.model.catalogue",
    "rules_for": "alias_spec.model.catalogue",
    "RequestError": "alias_spec.model.errors",
    "Request": "alias_spec.model.request",
    "load_requests": "alias_spec.model.request",
    "parse_request": "alias_spec.model.request",
    "Verdict": "alias_spec.model.verdict",
    "Violation": "alias_spec.model.verdict",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'alias_spec' has no attribute {name!r}")
