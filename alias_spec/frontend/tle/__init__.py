"""FlagTree's ``tle`` alias API on stock Triton Gluon: ``tle.gpu.alloc``, ``smem``, ``tmem``.

Use inside ``@gluon.jit`` kernels (``from alias_spec.frontend import tle``); every alias is checked
against the spec at compile time and lowered onto ordinary Gluon view ops.
"""

from alias_spec.frontend.tle import gpu
from alias_spec.frontend.tle.gpu import TLEError, buffered_tensor, scope, smem, tmem

__all__ = ["TLEError", "buffered_tensor", "gpu", "scope", "smem", "tmem"]
