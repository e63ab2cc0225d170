"""FlagTree's ``tle`` alias API on stock Triton Gluon: ``tle.gpu.alloc``, ``smem``, ``tmem``.

Use inside ``@gluon.jit`` kernels (``from compiler_patch import tle``); every alias is checked
against the spec at compile time and lowered onto ordinary Gluon view ops.
"""

from . import gpu
from .gpu import TLEError, buffered_tensor, scope, smem, tmem

__all__ = ["TLEError", "buffered_tensor", "gpu", "scope", "smem", "tmem"]
