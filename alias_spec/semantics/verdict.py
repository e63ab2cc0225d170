"""A request's verdict: one engine's judgement, the rules it could not judge, z3's fixes and
which violation implies which.

The engine is passed in as a function (``alias_spec.engines.registry.get(name)`` gives one
by name; the engines layer lies below this one), so every caller, the command line and lint
included (``registry.judge``, ``registry.judge_facts``), assembles verdicts here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from alias_spec.model.catalogue import rule
from alias_spec.model.describe import describe, named
from alias_spec.model.facts import Facts
from alias_spec.model.request import Request
from alias_spec.model.verdict import Verdict, Violation

# A judge of one fact dict under one profile (the engine registry's protocol).
EngineFn = Callable[[Facts, str], Verdict]


def _result_shape(req: Request) -> list[int | None] | None:
    res = req.raw.get("result")
    if isinstance(res, dict) and isinstance(res.get("shape"), list):
        return [d if isinstance(d, int) and not isinstance(d, bool) else None for d in res["shape"]]
    return None


def judge(req: Request, profile: str, engine: EngineFn, fixes: bool = True) -> Verdict:
    """One request through one engine, with solver fixes attached to fixable violations. A rule
    that reads a fact the request cannot know is not judged (its verdict on the stand-in value
    is dropped), is named in ``not_judged``, and ``not_judged_reason`` names the facts it
    reads."""
    from alias_spec.model.unknown import unjudged_reads, unjudged_reason

    verdict = engine(req.facts, profile)
    verdict.notes = list(req.notes)
    reads = unjudged_reads(req.facts, profile, req.unknown)
    if reads:
        skipped = list(reads)
        verdict.violations = [v for v in verdict.violations if v.rule not in skipped]
        verdict.valid = not verdict.violations
        verdict.not_judged = skipped
        verdict.not_judged_reason = (
            f"the spec does not model {'; '.join(req.unmodelled)}, and these rules read facts "
            f"that depend on it: {unjudged_reason(reads)}"
        )
    if fixes and not verdict.valid:
        from alias_spec.semantics.fix import suggest

        for v in verdict.violations:
            v.fix = suggest(req.facts, profile, rule(v.rule), _result_shape(req))
    return verdict


def judge_facts(
    facts: Facts, profile: str, unknown: frozenset[str], engine: EngineFn
) -> tuple[list[Violation], list[str]]:
    """One fact dict through one engine with ``unknown`` facts unknown (what lint judges): the
    violations among the rules it can judge, and the rules it cannot (in catalogue order), as
    ``judge`` drops and names them."""
    from alias_spec.model.unknown import unjudged_rules

    skipped = unjudged_rules(facts, profile, unknown)
    violations = engine(facts, profile).violations
    return [v for v in violations if v.rule not in skipped], skipped


def implications(req: Request, verdict: Verdict) -> dict[str, str]:
    """Violated rule -> the earlier violated rule that implies it on this request (it fails
    only where that one fails: ``alias.range.physical`` over a dense source is
    ``alias.range.fits`` again)."""
    if len(verdict.violations) < 2:
        return {}
    from alias_spec.semantics.fix import implied_by

    return implied_by(req.facts, verdict.profile, verdict.rule_ids())


def verdict_json(
    verdict: Verdict, name: str | None = None, implied: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The verdict's JSON, with the request's name first and each violation's values also in
    user terms (``model.describe``): ``named_values`` (keys a user reads) and ``values_text``
    (words); ``values`` keeps the internal fact names for one release. A violation another
    implies gets ``implied_by``."""
    implied = implied or {}
    out = verdict.to_json()
    for v in out["violations"]:
        v["named_values"] = named(v["values"])
        v["values_text"] = describe(v["values"])
        if v["rule"] in implied:
            v["implied_by"] = implied[v["rule"]]
    return {"name": name, **out} if name is not None else out
