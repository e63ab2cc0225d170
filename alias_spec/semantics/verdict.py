"""A request's verdict: one engine's judgement, the rules it could not judge, z3's fixes and
which violation implies which.

The engine is passed in as a function (``alias_spec.engines.registry.get(name)`` gives one
by name; the engines layer lies below this one). ``engine_verdict`` is the one place an engine
judges facts for a verdict: ``alias-spec check`` (``registry.judge``, through ``judge``),
``alias-spec lint`` and the random differential against Triton (``registry.judge_facts``) all
come to it, so a rule the facts cannot decide is left unjudged the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from alias_spec.model.catalogue import rule
from alias_spec.model.describe import describe, named
from alias_spec.model.facts import Facts
from alias_spec.model.request import Request
from alias_spec.model.verdict import Verdict

# A judge of one fact dict under one profile (the engine registry's protocol).
EngineFn = Callable[[Facts, str], Verdict]


def _result_shape(req: Request) -> list[int | None] | None:
    res = req.raw.get("result")
    if isinstance(res, dict) and isinstance(res.get("shape"), list):
        return [d if isinstance(d, int) and not isinstance(d, bool) else None for d in res["shape"]]
    return None


def engine_verdict(
    facts: Facts, profile: str, unknown: frozenset[str], engine: EngineFn
) -> tuple[Verdict, dict[str, list[str]]]:
    """One fact dict through one engine with ``unknown`` facts unknown: the engine's verdict
    less the rules that read an unknown fact (their verdict on the stand-in value means
    nothing), which ``not_judged`` names in catalogue order; and the unknown facts each of them
    reads (``unknown.unjudged_reads``)."""
    from alias_spec.model.unknown import unjudged_reads

    verdict = engine(facts, profile)
    reads = unjudged_reads(facts, profile, unknown)
    if reads:
        verdict.violations = [v for v in verdict.violations if v.rule not in reads]
        verdict.valid = not verdict.violations
        verdict.not_judged = list(reads)
    return verdict, reads


def judge(req: Request, profile: str, engine: EngineFn, fixes: bool = True) -> Verdict:
    """One request through one engine (``engine_verdict``), with the request's notes, why the
    rules it cannot judge are not judged, and solver fixes attached to fixable violations: a
    request knows what the spec does not model, which a bare fact dict (lint's) does not."""
    from alias_spec.model.unknown import unjudged_reason

    verdict, reads = engine_verdict(req.facts, profile, req.unknown, engine)
    verdict.notes = list(req.notes)
    if reads:
        verdict.not_judged_reason = (
            f"the spec does not model {'; '.join(req.unmodelled)}, and these rules read facts "
            f"that depend on it: {unjudged_reason(reads)}"
        )
    if fixes and not verdict.valid:
        from alias_spec.semantics.fix import suggest

        for v in verdict.violations:
            v.fix = suggest(req.facts, profile, rule(v.rule), _result_shape(req))
    return verdict


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
