"""A kernel with one allocation and one alias of it, for compiling a single lowering on the CPU
(tests/semantics/test_recipe_theorems.py). It reads nothing, so only the source IR is of interest."""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from alias_spec.frontend import tle


@gluon.jit
def one_alias(
    out_ptr,
    S0: gl.constexpr,
    D0: gl.constexpr,
    L0: gl.constexpr,
    S1: gl.constexpr,
    D1: gl.constexpr,
    L1: gl.constexpr,
    OFF: gl.constexpr,
):
    src = tle.gpu.alloc(S0, D0, layout=L0)
    tle.gpu.alloc(S1, D1, layout=L1, alias=src, alias_offset_bytes=OFF)
