"""FlagTree's ``tle`` alias API on stock Triton Gluon: ``tle.gpu.alloc``, ``smem``, ``tmem``.

Use inside ``@gluon.jit`` kernels (``from alias_spec.frontend import tle``); every alias is checked
against the spec at compile time and lowered onto ordinary Gluon view ops.

The names are loaded on first use, so that the modules that need no Triton (``place.py``,
``args.py``) can be imported without it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["TLEError", "buffered_tensor", "gpu", "scope", "smem", "tmem"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    gpu = importlib.import_module("alias_spec.frontend.tle.gpu")
    value = gpu if name == "gpu" else getattr(gpu, name)
    globals()[name] = value  # once: later lookups are plain module attributes
    return value
