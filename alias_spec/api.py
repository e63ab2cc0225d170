"""The public Python face of the command line: judge a request by engine name, run a command
in this process, and the settings the commands share.

``run(["check", "examples/request.json"])`` is ``alias-spec check examples/request.json``
without a child process (the console script forks one so that Ctrl-C stops a solver call at
once); it returns the exit status and prints what the command prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from alias_spec.engines import registry
from alias_spec.ir.inputs import MAX_INPUT_BYTES as MAX_INPUT_BYTES
from alias_spec.ir.inputs import MAX_INPUT_MIB as MAX_INPUT_MIB

DEFAULT_ENGINE = registry.DEFAULT
judge = registry.judge  # alias-spec check's verdict on one parsed request, by engine name
implications = registry.implications


def build_parser() -> argparse.ArgumentParser:
    """The command line's argument parser (every subcommand and option)."""
    from alias_spec.cli import build_parser as build

    return build()


def run(argv: Sequence[str] | None = None) -> int:
    """Run one ``alias-spec`` command line in this process and return its exit status; bad
    input is one line on stderr and status 2, as from the console script."""
    from alias_spec.cli import main

    return main(argv)
