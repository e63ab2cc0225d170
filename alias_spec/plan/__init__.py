"""`alias-spec plan`: a compiled kernel's shared-memory plan and the addresses its code computes.

``check_compiled(kernel)`` judges what ``triton.compile`` returns (``api.py``); ``install()``
judges every kernel Triton compiles from then on (``hook.py``); the command is ``cli.py``.
Importing this package installs nothing and imports neither Triton nor the solver."""

from __future__ import annotations

from typing import Any

# Lazy: ``alias_spec.plan.worker`` runs in interpreters without z3, and the CLI imports its
# parser without the solver.
_API = ("check_compiled", "check_texts", "PlanInputError")
_HOOK = ("install", "uninstall", "installed", "compile_only", "PlanHook", "PlanFindingsError",
         "KernelResult")  # fmt: skip
__all__ = [*_API, *_HOOK]


def __getattr__(name: str) -> Any:
    if name in _API:
        from alias_spec.plan import api

        return getattr(api, name)
    if name in _HOOK:
        from alias_spec.plan import hook

        return getattr(hook, name)
    raise AttributeError(f"module 'alias_spec.plan' has no attribute {name!r}")
