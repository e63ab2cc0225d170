"""A request's verdict: one engine's judgement, the rules it could not judge, z3's fixes and
which violation implies which.

The engine is passed in as a function (``alias_spec.engines.registry.get(name)`` gives one
by name; the engines layer lies below this one), so every caller, the command line included,
assembles verdicts here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from alias_spec.model.catalogue import rule
from alias_spec.model.describe import describe
from alias_spec.model.facts import Facts
from alias_spec.model.request import Request
from alias_spec.model.verdict import Verdict

# A judge of one fact dict under one profile (the engine registry's protocol).
EngineFn = Callable[[Facts, str], Verdict]

# A violated rule's values under the names a user reads: the request's own terms where it
# has a field for them (alias_offset_bytes), else the quantity in words. The JSON output keeps
# the internal names under "values" for one release (see the changelog).
NAMED_VALUES: dict[str, str] = {
    "off": "alias_offset_bytes",
    "scope": "scope",
    "op": "op",
    "src_space": "source_space",
    "res_space": "result_space",
    "src_mutable": "source_mutable",
    "res_mutable": "result_mutable",
    "src_static": "source_shape_static",
    "res_static": "result_shape_static",
    "src_subview": "source_is_subview",
    "res_subview": "result_is_subview",
    "src_prefix_sub": "source_trims_leading_dim_only",
    "abs_off": "result_start_bytes",
    "align": "alloc_alignment",
    "swz": "swizzle_repeat_bytes",
    "src_bits": "source_element_bits",
    "res_bits": "result_element_bits",
    "res_eb": "result_element_bytes",
    "src_bytes": "source_bytes",
    "res_bytes": "result_bytes",
    "src_elems": "source_elements",
    "res_elems": "result_elements",
    "src_rank": "source_rank",
    "res_rank": "result_rank",
    "src_lay_rank": "source_layout_rank",
    "res_lay_rank": "result_layout_rank",
    "src_alloc_rank": "source_alloc_rank",
    "res_alloc_rank": "result_alloc_rank",
    # The source view's footprint: runs of run_b bytes, c2 of them p2_b bytes apart, in c1
    # groups p1_b apart, in c0 blocks p0_b apart.
    "run_b": "source_run_bytes",
    "c2": "source_runs_per_group",
    "p2_b": "source_run_stride_bytes",
    "c1": "source_groups_per_block",
    "p1_b": "source_group_stride_bytes",
    "c0": "source_blocks",
    "p0_b": "source_block_stride_bytes",
}


def named_values(values: Mapping[str, int | bool]) -> dict[str, int | bool]:
    """``values`` keyed by :data:`NAMED_VALUES` (a name without an entry keeps its own)."""
    return {NAMED_VALUES.get(k, k): v for k, v in values.items()}


def _result_shape(req: Request) -> list[int | None] | None:
    res = req.raw.get("result")
    if isinstance(res, dict) and isinstance(res.get("shape"), list):
        return [d if isinstance(d, int) and not isinstance(d, bool) else None for d in res["shape"]]
    return None


def judge(req: Request, profile: str, engine: EngineFn, fixes: bool = True) -> Verdict:
    """One request through one engine, with solver fixes attached to fixable violations. A rule
    that reads a fact the request cannot know is not judged (its verdict on the stand-in value
    is dropped) and is named in ``not_judged``."""
    from alias_spec.model.unknown import unjudged_rules

    verdict = engine(req.facts, profile)
    verdict.notes = list(req.notes)
    skipped = unjudged_rules(req.facts, profile, req.unknown)
    if skipped:
        verdict.violations = [v for v in verdict.violations if v.rule not in skipped]
        verdict.valid = not verdict.violations
        verdict.not_judged = skipped
        verdict.not_judged_reason = (
            f"the spec does not model {'; '.join(req.unmodelled)}: where the bytes lie is "
            "unknown, and these rules read facts that depend on it"
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
    user terms: ``named_values`` (keys a user reads) and ``values_text`` (words); ``values``
    keeps the internal fact names for one release. A violation another implies gets
    ``implied_by``."""
    implied = implied or {}
    out = verdict.to_json()
    for v in out["violations"]:
        v["named_values"] = named_values(v["values"])
        v["values_text"] = describe(v["values"])
        if v["rule"] in implied:
            v["implied_by"] = implied[v["rule"]]
    return {"name": name, **out} if name is not None else out
