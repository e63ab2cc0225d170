"""``glue``: the C++ glue (``engines/cpp_glue.py``, when present) judging the JSON request with
FlagTree's generated verifier, each request through one of its builds in turn; its own domain
errors count as not covered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alias_spec.difftest.outcomes import Diff, compare_verifier
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.targets import Batch, Judges, Skipped, build_of, through_builds
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.errors import RequestError

NAME = "glue"
MISSING = "alias_spec.engines.cpp_glue is not in this checkout"
# How the glue says a request is outside what a tle.memdesc_alias op can express.
GLUE_DOMAIN = ("outside the glue's domain", "the glue verifies only")


def status() -> str | None:
    """None when the C++ glue can judge requests here, else why the path is skipped."""
    try:
        from alias_spec.engines import cpp_glue
    except ImportError:
        return MISSING
    try:
        ok = cpp_glue.glue_available()
    except Exception as exc:  # noqa: BLE001 - any failure only skips the path
        return f"cpp_glue.glue_available() raised {type(exc).__name__}: {exc}"
    return None if ok else "cpp_glue.glue_available() is false (no compiler or no build)"


def _built() -> Sequence[str]:
    from alias_spec.engines import cpp_glue

    return getattr(cpp_glue, "GLUE_PROFILES", PROFILES)


def prepare() -> str | None:
    from alias_spec.engines import cpp_glue

    for profile in getattr(cpp_glue, "GLUE_PROFILES", ()):
        cpp_glue.build(profile)  # built once, before the workers fork
    return None


def glue_verdicts(reqs: Sequence[Any], profile: str) -> list[Outcome | None]:
    from alias_spec.engines import cpp_glue

    out: list[Outcome | None] = []
    for got in cpp_glue.judge(list(reqs), profile):
        if isinstance(got, RequestError) and any(m in str(got) for m in GLUE_DOMAIN):
            out.append(None)  # a request the op cannot express
        elif isinstance(got, RequestError):
            out.append(Outcome(error=str(got)))
        else:
            out.append(Outcome(verdicts={profile: tuple(got)}))
    return out


def outcomes(batch: Batch) -> list[Outcome | None]:
    def judge(reqs: list[Any], profile: str) -> list[Outcome | None]:
        try:
            return glue_verdicts(reqs, profile)
        except Exception as exc:  # noqa: BLE001 - a profile the glue does not take
            raise Skipped(f"{type(exc).__name__}: {str(exc)[:200]}") from None

    return through_builds(NAME, _built(), judge, batch)


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    return (f"{NAME} {build_of(_built(), batch, i)}",)


def compare(ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None:
    return compare_verifier(NAME, ref, got, judges.interp)
