"""The one error type for malformed requests, and how a bad value is shown in its message."""

from __future__ import annotations

import json
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
        self.field = one_line(field, SHOW_CHARS)
        self.problem = one_line(problem)
        super().__init__(f"{self.field}: {self.problem}")
