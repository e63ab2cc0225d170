"""The one error type for malformed requests, and how a bad value is shown in its message."""

from __future__ import annotations

import json
import re
from typing import Any

# A message names the field and shows the bad value, never the whole of a huge input.
SHOW_CHARS = 60
MESSAGE_CHARS = 400


def one_line(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` as one printable line of at most ``limit`` characters: line breaks, control
    characters and lone surrogates are escaped (so printing it can neither split the line nor
    fail to encode), and the tail of an over-long text is cut."""
    text = text[: limit + 1]  # escaping only lengthens it: the rest is cut anyway
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: Any, limit: int = SHOW_CHARS) -> str:
    """A JSON value as a message shows it: compact JSON, ASCII only, cut after ``limit``."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class RequestError(ValueError):
    """A request that cannot be judged: names the field and what is wrong with it. The text is
    one printable line whatever the field name or value held."""

    def __init__(self, field: str, problem: str) -> None:
        # The line reads "FIELD: problem": a field never holds a colon or a blank, so a reader
        # can split it there (key_error moves an odd key into the problem instead).
        field = one_line(field, SHOW_CHARS).replace(":", "\\x3a")
        self.field = "".join(c if not c.isspace() else "_" for c in field) or "request"
        self.problem = one_line(problem)
        super().__init__(f"{self.field}: {self.problem}")


PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def key_error(prefix: str, key: Any, problem: str, hint: str = "") -> RequestError:
    """The error about an object's key: ``prefix.key: problem`` for a plain name, else the
    object itself is the field and the problem shows the key as JSON (it may hold anything)."""
    if isinstance(key, str) and PLAIN_KEY.fullmatch(key):
        return RequestError(f"{prefix}.{key}" if prefix else key, problem + hint)
    return RequestError(prefix or "request", f"{problem} {shown(key)}{hint}")
