"""`alias-spec plan`: a compiled kernel's shared-memory plan and the addresses its code computes.

``check_compiled(kernel)`` judges what ``triton.compile`` returns (``api.py``); the command is
``cli.py``."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # Lazy: ``alias_spec.plan.worker`` runs in interpreters without z3, and the CLI imports
    # its parser without the solver.
    if name in ("check_compiled", "check_texts", "PlanInputError"):
        from alias_spec.plan import api

        return getattr(api, name)
    raise AttributeError(name)
