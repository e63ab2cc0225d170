"""Compile a Gluon kernel for an NVIDIA architecture on a machine without a GPU.

``compile_for(kernel, {"out_ptr": "*fp16"}, {"M": 64})`` runs Triton's whole pipeline (the
frontend's alias checks included) for ``sm_90`` and returns Triton's compiled kernel: its IR
at each stage in ``.asm`` (``"ttgir"``, ``"llir"``, ``"ptx"``, ...) and ``.metadata`` (e.g.
``shared``, the bytes of shared memory). Triton has no public call for this; here is one, so
the docs, the examples and the tests compile the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from alias_spec.frontend.tle.args import is_int, show

WARP_SIZE = 32  # threads per warp on every NVIDIA architecture


class CompileArgumentError(ValueError):
    """A bad argument to ``compile_for``; the message names it."""


def _bad(argument: str, expected: str, value: object) -> CompileArgumentError:
    return CompileArgumentError(f"compile_for: {argument} must be {expected}, got {show(value)}")


def parse_target(target: object) -> int:
    """The compute capability of ``"sm_90"``-style text (90)."""
    m = re.fullmatch(r"sm_([1-9][0-9]*)", target) if isinstance(target, str) else None
    if m is None:
        raise _bad("target", "an NVIDIA architecture such as 'sm_90'", target)
    return int(m.group(1))


def _known_type(ty: str) -> bool:
    """Whether Triton reads ``ty`` as a type (it raises a bare KeyError on ``"fp16*"``)."""
    from triton.compiler.code_generator import str_to_ty

    if ty.lstrip("*k").startswith("tensordesc") or ty == "constexpr":
        return True  # read with the kernel's layouts; Triton's own message is clear there
    try:
        str_to_ty(ty, None)
    except (KeyError, IndexError):
        return False
    return True


def compile_for(
    kernel: Any,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any] | None = None,
    target: str = "sm_90",
    num_warps: int = 4,
) -> Any:
    """Compile the ``@gluon.jit`` ``kernel`` for ``target`` without launching it.

    ``signature`` gives each runtime parameter's Triton type (``"*fp16"`` a pointer, ``"i32"``
    a scalar); ``constexprs`` gives each compile-time parameter's value. Every parameter must
    be in exactly one of them. A bad argument raises CompileArgumentError naming it; a kernel
    the frontend rejects raises Triton's CompilationError at the kernel's line.
    """
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction

    if not isinstance(kernel, GluonJITFunction):
        raise _bad("kernel", "a @gluon.jit function", kernel)
    capability = parse_target(target)
    if not (is_int(num_warps) and num_warps > 0 and num_warps & (num_warps - 1) == 0):
        raise _bad("num_warps", "a positive power of 2", num_warps)
    constexprs = {} if constexprs is None else constexprs
    for name, value in (("signature", signature), ("constexprs", constexprs)):
        if not isinstance(value, Mapping):
            raise _bad(name, "a mapping from parameter names", value)
    params = list(kernel.arg_names)
    for key, ty in signature.items():
        if key not in params:
            raise _bad(f"signature[{key!r}]", f"a parameter of the kernel {params}", key)
        if not isinstance(ty, str) or not ty or not _known_type(ty):
            raise _bad(f"signature[{key!r}]", "a Triton type such as '*fp16' or 'i32'", ty)
    for key in constexprs:
        if key not in params:
            raise _bad(f"constexprs[{key!r}]", f"a parameter of the kernel {params}", key)
        if key in signature:
            raise _bad(f"constexprs[{key!r}]", "absent from signature (one or the other)", key)
    for key in params:
        if key not in signature and key not in constexprs:
            raise CompileArgumentError(
                f"compile_for: parameter {key!r} needs a type in signature or a value in constexprs"
            )
    full = {k: "constexpr" if k in constexprs else signature[k] for k in params}
    src = GluonASTSource(kernel, signature=full, constexprs=dict(constexprs))
    gpu = GPUTarget("cuda", capability, WARP_SIZE)
    return triton.compile(src, target=gpu, options={"num_warps": num_warps})
