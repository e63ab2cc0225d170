"""The public Python face of the command line: judge a request by engine name, run a command
in this process, and the settings the commands share.

``run(["check", "examples/request.json"])`` is ``alias-spec check examples/request.json``
without a child process (the console script forks one so that Ctrl-C stops a solver call at
once); it returns the exit status and prints what the command prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from alias_spec.engines import registry

if TYPE_CHECKING:
    from alias_spec.model.request import Request
    from alias_spec.model.verdict import Verdict

DEFAULT_ENGINE = registry.DEFAULT
# The most any command reads from a file or stdin: far above any request list or TTGIR dump,
# and it stops an endless input (/dev/zero, a runaway pipe) before it fills the memory.
MAX_INPUT_MIB = 64
MAX_INPUT_BYTES = MAX_INPUT_MIB * 2**20


def judge(req: Request, profile: str, engine: str = DEFAULT_ENGINE, fixes: bool = True) -> Verdict:
    """``alias-spec check``'s verdict on one parsed request: the engine named ``engine`` (see
    ``alias_spec.engines.registry``), the rules it could not judge, z3's fixes."""
    from alias_spec.semantics.verdict import judge as judge_with

    return judge_with(req, profile, registry.get(engine), fixes)


def implications(req: Request, verdict: Verdict) -> dict[str, str]:
    """Violated rule -> the earlier violated rule that implies it on this request."""
    from alias_spec.semantics.verdict import implications as implied

    return implied(req, verdict)


def build_parser() -> argparse.ArgumentParser:
    """The command line's argument parser (every subcommand and option)."""
    from alias_spec.cli import build_parser as build

    return build()


def run(argv: Sequence[str] | None = None) -> int:
    """Run one ``alias-spec`` command line in this process and return its exit status; bad
    input is one line on stderr and status 2, as from the console script."""
    from alias_spec.cli import main

    return main(argv)
