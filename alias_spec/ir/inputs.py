"""Reading a command's input: a file, or stdin for ``-``, bounded, as UTF-8 text.

One reader for every command (``check``, ``lint``, ``plan``, ``plan DIR``), so that each names
its input and its problem the same way, in one line.
"""

from __future__ import annotations

import sys
from typing import IO, Any

# The most any command reads from a file or stdin: far above any request list or compiler dump,
# and it stops an endless input (/dev/zero, a runaway pipe) before it fills the memory.
MAX_INPUT_MIB = 64
MAX_INPUT_BYTES = MAX_INPUT_MIB * 2**20
_CHUNK = 1 << 20


class InputError(ValueError):
    """An input that cannot be read as text (one line naming it)."""


def shown(path: str) -> str:
    """How a message names the input: its path, or ``input`` for stdin."""
    return "input" if path == "-" else path


def _bounded(stream: IO[Any], limit: int) -> str | bytes | None:
    """Everything ``stream`` holds, a chunk at a time; None once it exceeds ``limit`` (bytes,
    or characters for a text stream without a byte buffer)."""
    chunks: list[Any] = []
    size = 0
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    if chunks and isinstance(chunks[0], bytes):
        return b"".join(chunks)
    return "".join(chunks)


def read_text(path: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a file, or of stdin for ``-``, at most ``limit`` bytes; anything else
    (missing, unreadable, too large, not UTF-8) is an InputError naming the input."""
    name = shown(path)
    try:
        if path == "-":
            if sys.stdin is None:
                raise InputError(f"{name}: cannot read: stdin is closed")
            data = _bounded(getattr(sys.stdin, "buffer", sys.stdin), limit)
        else:
            with open(path, "rb") as fh:
                data = _bounded(fh, limit)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if data is None:
        raise InputError(f"{name}: larger than the {limit / 2**20:g} MiB input limit")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None
