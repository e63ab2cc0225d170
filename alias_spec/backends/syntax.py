"""What the generators share: how the DSL is written in C++ and in Python, C++ string
literals and the C++ files' header. Not a backend itself: the generators import it and never
each other (``gen_patch``, which bundles their output for FlagTree, aside)."""

from __future__ import annotations

import dataclasses

from alias_spec.model import dsl
from alias_spec.model.facts import FACTS

CPP_HEADER = (
    "// Generated from the tle-alias-spec rule catalogue by `alias-spec gen`. Do not edit.\n"
    "// Change alias_spec/model/catalogue.py and regenerate.\n"
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_SORTS = {f.name: f.sort for f in FACTS}


def _int_literal(v: int) -> str:
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError(f"constant {v} does not fit in int64")
    if v == INT64_MIN:
        return "I(INT64_MIN)"
    return f"I({v})" if abs(v) <= 2**31 - 1 else f"I(INT64_C({v}))"


def _name(n: str) -> str:
    # Widen every int fact on read: all arithmetic then happens in __int128.
    return f"I(f.{n})" if _SORTS[n] == dsl.INT else f"f.{n}"


CPP = dsl.Syntax(
    and_=" && ",
    or_=" || ",
    not_="!",
    ite=lambda c, t, f: f"({c} ? {t} : {f})",
    true="true",
    false="false",
    name=_name,
    ops={"//": "/"},
    integer=_int_literal,
)


def cstr(text: str) -> str:
    """A C++ string literal (octal escapes: they never swallow following digits)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= code < 127:
            out.append(ch)
        else:
            for byte in ch.encode():
                out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


# The DSL's own Python spelling, with each fact read from the facts mapping ``f``.
PY = dataclasses.replace(dsl.PYTHON, name=lambda n: f"f[{n!r}]")
