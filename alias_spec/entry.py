"""The `alias-spec` console script: the command line, or one line saying what to install.

The base install carries no dependencies (the Gluon frontend needs only Triton); the commands
need the ``spec`` extra. Without it, importing the command line fails on pydantic, z3 or cvc5:
say so in one line instead of a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

SPEC_MODULES = frozenset({"pydantic", "pydantic_core", "z3", "cvc5"})


def _missing(exc: ModuleNotFoundError) -> int:
    name = (exc.name or "").split(".")[0]
    if name not in SPEC_MODULES:
        raise exc
    print(
        f"alias-spec: {name} is not installed; the commands need the 'spec' extra: "
        "pip install 'tle-alias-spec[spec]'",
        file=sys.stderr,
    )
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from alias_spec.cli import main as cli_main
    except ModuleNotFoundError as exc:
        return _missing(exc)
    try:
        return cli_main(argv)
    except ModuleNotFoundError as exc:
        return _missing(exc)
