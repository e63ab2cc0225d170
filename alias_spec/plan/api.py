"""The plan validator as a Python API: judge what ``triton.compile`` returns, or its texts.

    import triton
    from alias_spec.plan import check_compiled
    kernel = triton.compile(src, target=..., options=...)   # or a JIT kernel's compiled object
    report = check_compiled(kernel)
    assert report.status == "clean", report.findings

The plan is recovered by the Triton of ``python`` (default: this interpreter, the one that
compiled the kernel), in a subprocess; liveness, the plan proof and the lowering check run here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alias_spec.plan import pipeline
from alias_spec.plan.llir import LlirError
from alias_spec.plan.plan import Report


class PlanInputError(ValueError):
    """The object given is not a compiled kernel this API can read (one line)."""


def _asm(kernel: Any) -> Mapping[str, Any]:
    """The kernel's ``asm`` mapping: a CompiledKernel's attribute, or the mapping itself."""
    asm = getattr(kernel, "asm", None)
    if asm is None and isinstance(kernel, Mapping):
        asm = kernel
    if not isinstance(asm, Mapping):
        raise PlanInputError(
            f"expected a compiled kernel (an object with .asm) or a mapping of its texts, "
            f"got {type(kernel).__name__}"
        )
    return asm


def _text(asm: Mapping[str, Any], key: str, required: bool) -> str | None:
    value = asm.get(key)
    if value is None:
        if required:
            raise PlanInputError(f'the kernel has no asm["{key}"]')
        return None
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise PlanInputError(f'asm["{key}"] is not UTF-8 text') from None
    if not isinstance(value, str):
        raise PlanInputError(f'asm["{key}"] is {type(value).__name__}, not text')
    return value


def _name(kernel: Any) -> str:
    meta = getattr(kernel, "metadata", None)
    name = getattr(meta, "name", None) or getattr(kernel, "name", None)
    return str(name) if isinstance(name, str) and name else "kernel"


def check_texts(
    ttgir: str,
    llir: str | None = None,
    path: str = "kernel.ttgir",
    python: str | None = None,
    allocated: tuple[str, str, str] | None = None,
    llir_path: str | None = None,
    races: bool = False,
) -> Report:
    """Judge a kernel's TTGIR (and LLVM IR): the plan, then the lowering against it (the stages
    of ``pipeline.py``).
    ``allocated`` (module after allocation, allocator debug text, version) skips running
    Triton; ``races``: also judge races between threads. Raises TtgirError / AllocationError /
    LlirError (one line) on unreadable input."""
    return pipeline.run(pipeline.Run(ttgir, path, llir, llir_path, python, allocated,
                                     races=races))  # fmt: skip


def kernel_texts(kernel: Any, lowering: bool = True) -> tuple[str, str, str | None]:
    """A compiled kernel's name, ``asm["ttgir"]`` and (when ``lowering``) ``asm["llir"]``;
    PlanInputError when it has none of them."""
    asm = _asm(kernel)
    ttgir = _text(asm, "ttgir", True)
    assert ttgir is not None
    return _name(kernel), ttgir, _text(asm, "llir", False) if lowering else None


def check_compiled(kernel: Any, python: str | None = None, lowering: bool = True) -> Report:
    """Judge a compiled kernel: ``kernel.asm["ttgir"]`` (its plan, recovered by the Triton of
    ``python``) and, when ``lowering``, ``kernel.asm["llir"]`` against that plan.

    ``report.status`` is ``"clean"`` (proved), ``"findings"`` or ``"partial"`` (something not
    judged: ``report.notes`` say what). Raises PlanInputError, TtgirError, AllocationError or
    LlirError (all ValueError, one line) when the kernel cannot be read."""
    name, ttgir, llir = kernel_texts(kernel, lowering)
    try:
        return check_texts(ttgir, llir, f"{name}.ttgir", python, llir_path=f"{name}.llir")
    except LlirError as exc:
        raise LlirError(f'asm["llir"]: {exc}') from None
