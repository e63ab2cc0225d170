"""Integer literals inside MLIR text, read as MLIR reads them.

MLIR's lexer takes only ASCII digits: Python's ``\\d`` and ``int()`` also take other scripts'
digits (and ``int()`` takes ``_`` and surrounding blanks), and ``int()`` refuses more than
4300 digits with an unrelated ValueError. Every integer read from type or attribute text goes
through here, so a literal MLIR would not read is a RequestError naming the field, never a
guess or a traceback.
"""

from __future__ import annotations

import re

from alias_spec.model.errors import RequestError, one_line
from alias_spec.model.facts import INT64_MAX

INT64_MIN = -INT64_MAX - 1
# Decimal digits of the widest value any caller bounds to (2**64 has 20): a longer literal is
# out of range before it is converted.
_MAX_DIGITS = 20

DECIMAL = re.compile(r"-?[0-9]+", re.ASCII)


def decimal(text: str, field: str, low: int, high: int, what: str = "integer") -> int:
    """``text`` (an optional ``-`` and ASCII decimal digits) as an integer in [low, high]."""
    if not DECIMAL.fullmatch(text):
        raise RequestError(field, f"bad {what} {one_line(text, 40)!r}: not ASCII decimal digits")
    digits = text.lstrip("-").lstrip("0")
    value = int(text) if len(digits) <= _MAX_DIGITS else None
    if value is None or not low <= value <= high:
        raise RequestError(field, f"{what} {one_line(text, 40)} is outside [{low}, {high}]")
    return value


def decimals(text: str, field: str, low: int = INT64_MIN, high: int = INT64_MAX) -> list[int]:
    """The integers of an attribute list such as ``[1, 0]``, each in [low, high]."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise RequestError(field, f"must be a list of integers, got {one_line(body, 40)!r}")
    items = body[1:-1].split(",") if body[1:-1].strip() else []
    return [decimal(item.strip(), field, low, high) for item in items]


# A JSON integer of a request (an offset, an index, an alignment) must be below 2**128 in
# magnitude: far past every bound the rules compare with (int64 at most), and small enough that
# every product of facts stays a few hundred digits (Python turns at most 4300 into text).
JSON_INT_MAX = 2**128
