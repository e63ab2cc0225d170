"""The frontend's error type and the checks on ``tle.gpu.alloc`` arguments that need no Triton.

Every bad argument becomes a ``TLEError`` whose first words name the argument (Gluon reports it
as a compile error at the kernel line), before any value reaches the spec's facts or Gluon.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

from alias_spec.model.facts import INT32_MAX, elem_bytes

_SHOW = 80  # characters of a bad value quoted in a message


class TLEError(ValueError):
    """A rejected tle.gpu.alloc call; the text names each argument or rule, its values and a
    fix."""

    def __init__(self, lines: list[str], rules: list[str]) -> None:
        self.rules = rules
        super().__init__("\n".join(lines))


def show(value: object) -> str:
    """A short repr of any value (a repr that raises, or a huge one, must not hide the error)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any user object may have a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOW else text[: _SHOW - 3] + "..."


def bad(argument: str, expected: str, value: object) -> TLEError:
    return TLEError([f"tle.gpu.alloc: {argument} must be {expected}, got {show(value)}"], [])


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shape_arg(value: Any, unwrap: Callable[[Any], Any] = lambda v: v) -> list[int]:
    """The shape as a list of Python ints (any sign: the alias rules judge the values)."""
    value = unwrap(value)
    if is_int(value):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise bad("shape", "a list of compile-time ints", value)
    dims = [unwrap(d) for d in value]
    for i, d in enumerate(dims):
        if not is_int(d):
            raise bad(f"shape[{i}]", "a compile-time int", d)
    if not dims:
        raise bad("shape", "a list of at least one dim", value)
    return dims


def allocation_shape(shape: list[int], bits: int) -> None:
    """A new buffer needs positive dims and a byte size that 32-bit shared-memory addressing
    reaches (the bound the alias rules put on every alias, alias.address.i32)."""
    for i, d in enumerate(shape):
        if d <= 0:
            raise bad(f"shape[{i}]", "a positive int for a new buffer", d)
    nbytes = prod(shape) * elem_bytes(bits)
    if nbytes > INT32_MAX:
        raise TLEError(
            [
                f"tle.gpu.alloc: shape {show(shape)} needs {nbytes} bytes; a buffer must fit in "
                f"{INT32_MAX} bytes (32-bit shared-memory addressing)"
            ],
            [],
        )


def flag_arg(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise bad(name, "True or False", value)
    return value


def allocation_offset(value: object) -> None:
    """Without ``alias`` the offset has no meaning: anything but the default 0 is a mistake."""
    if not (is_int(value) and value == 0):
        raise bad("alias_offset_bytes", "0 (the default) without alias=", value)


def init_scalar(value: object, bits: int, signed: bool | None) -> None:
    """A scalar init_value the dtype can hold: ``signed`` None for a float dtype, else the
    integer dtype's signedness."""
    if not isinstance(value, (bool, int, float)):
        raise bad("init_value", "None, a number or a tensor of the buffer's shape", value)
    if not is_int(value):
        return
    if signed is None:
        try:
            float(value)
        except OverflowError:
            raise bad("init_value", "a number the float dtype can hold", value) from None
        return
    if bits <= 1:
        lo, hi = 0, 1
    elif signed:
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    else:
        lo, hi = 0, 2**bits - 1
    if not lo <= value <= hi:
        raise bad("init_value", f"an int in [{lo}, {hi}] for a {bits}-bit dtype", value)
