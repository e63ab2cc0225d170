"""``tle.gpu``: ``alloc`` for stock Triton Gluon kernels, with FlagTree's signature, and the
reuse planner's ``alloc_reuse``.

``alloc`` is a Gluon builtin (``core.py``): it runs while the kernel compiles, checks its
arguments, computes the spec's facts from the descriptors it is given, judges them with the
generated checks, picks a lowering recipe and emits ordinary Gluon view ops. Every rejection is
a TLEError naming the argument or rule; Triton reports it as a CompilationError at the kernel
line that called ``alloc``. ``alloc_reuse`` (``reuse.py``) places several buffers in one
allocation.
"""

from __future__ import annotations

# Importable from here as before core.py held them.
from alias_spec.frontend.tle.core import (  # noqa: F401
    ALIAS_PROFILES,
    PROFILE_ENV,
    Arguments,
    TLEError,
    _ProfileKey,
    alloc,
    buffered_tensor,
    buffered_tensor_type,
    check_arguments,
    default_blocked,
    default_layout,
    place_alloc,
    scope,
    smem,
    tmem,
)
from alias_spec.frontend.tle.reuse import alloc_reuse, buffer, distinct, reuse_plan, shared

# Triton hashes an "aggregate" global through its hash_attrs: the profile is in the key.
alloc_reuse.__triton_aggregate__ = True
alloc_reuse.hash_attrs = [_ProfileKey()]
__all__ = ["alloc", "alloc_reuse", "buffer", "distinct", "reuse_plan", "shared", "smem", "tmem"]
