"""``verifier``: FlagTree's generated verifier inside real MLIR 19 (``engines/mlir_engine.py``,
``compiler_patch/``'s testbed, when MLIR 19 is installed): each request written as IR, parsed
and verified by its driver, one run per profile and chunk; a request the op cannot express
counts as not covered."""

from __future__ import annotations

import os
from typing import Any

from alias_spec.difftest.outcomes import Diff, compare_verifier
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.targets import Batch, Judges, Skipped, build_of, through_builds
from alias_spec.model.errors import RequestError

NAME = "verifier"


def status() -> str | None:
    """None when the real-MLIR verifier can be built or found here, else why it is skipped."""
    from alias_spec.engines import mlir_engine

    if os.environ.get(mlir_engine.ENV):
        return None
    return mlir_engine.missing()


def prepare() -> str | None:
    from alias_spec.engines import mlir_engine

    try:
        mlir_engine.driver()  # built (or found in its cache) once, before the workers fork
    except mlir_engine.MlirEngineError as exc:
        return str(exc).splitlines()[0]
    return None


def outcomes(batch: Batch) -> list[Outcome | None]:
    from alias_spec.engines import mlir_engine

    def judge(reqs: list[Any], profile: str) -> list[Outcome | None]:
        try:
            judged = mlir_engine.judge(reqs, profile)
        except mlir_engine.MlirEngineError as exc:
            raise Skipped(str(exc).splitlines()[0][:200]) from None
        # A request the op cannot express (or a malformed one) is not covered here.
        return [None if isinstance(r, RequestError) else Outcome(verdicts={profile: tuple(r)})
                for r in judged]  # fmt: skip

    return through_builds(NAME, mlir_engine.PROFILES, judge, batch)


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    from alias_spec.engines import mlir_engine

    return (f"{NAME} {build_of(mlir_engine.PROFILES, batch, i)}",)


def compare(ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None:
    return compare_verifier(NAME, ref, got, judges.interp)
