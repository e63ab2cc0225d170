"""Judging a request whose facts are not all known, and naming the rules left unjudged.

A layout the spec does not model (``#ttg.padded_shared``, ``#ttg.shared_linear``, a tensor
memory encoding), an attribute alias the input does not define, or tensor memory says nothing
of where a view's bytes lie, and lint may not know where a traced source starts. The facts that
depend on that are unknown (request.py still fills them in, with dense, shared-memory values).
Which facts those are is decided fact by fact: a view's logical shape, element widths,
mutability and memory space are known whatever its layout, so a rule whose formula reads only
such facts (FlagTree's logical size checks, 3.8's logical storage size) is judged; a rule that
reads an unknown fact is not judged unless its guard is false whatever the unknown facts are,
and ``unjudged_reads`` names the unknown facts it reads. ``alias-spec check`` and
``alias-spec lint`` both take the unknown facts from ``unmodelled_facts``, and judge through
the engine registry (``registry.judge``, ``registry.judge_facts``), which drops the verdicts
of the rules ``unjudged_rules`` names.
"""

from __future__ import annotations

from alias_spec.model import dsl
from alias_spec.model.catalogue import compiled, rules_for
from alias_spec.model.facts import FACTS, Facts
from alias_spec.model.layouts import Layout

# Facts that depend on where the allocation starts (lint cannot know them when it does not
# trace a source to its allocation).
PLACEMENT_FACTS = frozenset({"src_base", "src_start", "align"})
# Facts that depend on where a view's bytes lie: request.py computes them as if the layout were
# dense (a padded layout's allocation is larger than its logical shape, a linear layout may put
# elements anywhere, tensor memory is addressed by lane and column). The element counts
# (``src_elems``, ``res_elems``) are not among them: they count the logical shapes.
BYTE_FACTS = frozenset(
    {"src_start", "src_base", "run", "p0", "c0", "p1", "c1", "p2", "c2", "align"}
)  # fmt: skip
# Facts that depend on how the layout places elements.
LAYOUT_FACTS = frozenset(
    {"swz", "src_lay_rank", "res_lay_rank", "src_nvmma_fits", "res_nvmma_fits",
     "src_nvmma_rows", "res_nvmma_rows", "sub_swz_ok", "sub_tile_ok"}
)  # fmt: skip
# Ops whose result start (``off``) comes from the byte model (a reinterpret's is always 0 and
# an alias's is its attribute).
OFF_FROM_BYTES = frozenset({"ttg.memdesc_index", "ttg.memdesc_subslice"})
# Ops whose ``res_elems`` is not the result's logical count but the span of source bytes it
# covers (request.py's subslice model), which the byte model gives.
SPAN_FROM_BYTES = frozenset({"ttg.memdesc_subslice"})
# A reinterpret's size checks on logical element counts are decisive only when they fail:
# Triton 3.8 and 3.9 also refuse a reinterpret between a padded and an unpadded layout, and 3.9
# sizes a padded layout by its footprint, neither of which the catalogue has a rule for (both
# measured on the CPU). Where a side's layout is not modelled, this marker (no fact of the
# vocabulary) makes such a rule not judged when it holds.
SIZE_HOLDS_UNJUDGED = "reinterpret.layout_sizes"
COUNT_FACTS = frozenset({"src_elems", "res_elems"})
TRITON_RULES = "triton."  # the rules of Triton's own verifiers (the triton-3.x profiles)
REINTERPRET_OPS = frozenset({"ttg.memdesc_reinterpret"})
# Ops whose rules ask whether both sides have the same encoding (``same_enc``).
SAME_ENCODING_OPS = frozenset(
    {"ttg.memdesc_reinterpret", "ttg.memdesc_index", "ttg.memdesc_subslice"}
)


def stated_facts(prefix: str, lay: Layout | None) -> frozenset[str]:
    """The facts of one side (``src`` or ``res``) that its layout attribute states even where
    the spec does not know where its bytes lie: its rank, when it states one, and whether it is
    an NVMMA layout (the NVMMA facts hold trivially for any other attribute). No layout, or an
    attribute alias nobody defined, states nothing."""
    if lay is None or lay.kind == "unresolved":
        return frozenset()
    out = {f"{prefix}_nvmma_fits", f"{prefix}_nvmma_rows"}
    if lay.rank is not None:
        out.add(f"{prefix}_lay_rank")
    return frozenset(out)


def unmodelled_facts(op: str, source: Layout | None, result: Layout | None) -> frozenset[str]:
    """The facts a view of ``op`` cannot know when where its bytes lie is not modelled (a
    layout or memory the spec does not model, on the view or on the way to it), less what its
    two layouts state. ``alias-spec check`` (request.py) and ``alias-spec lint`` both ask
    here."""
    out = BYTE_FACTS | LAYOUT_FACTS
    if op in OFF_FROM_BYTES:
        out |= {"off"}
    if op in SPAN_FROM_BYTES:
        out |= {"res_elems"}
    if op in REINTERPRET_OPS:
        out |= {SIZE_HOLDS_UNJUDGED}
    # An undefined alias may name any encoding: only the same name on both sides is known to
    # be the same encoding.
    unresolved = any(lay is not None and lay.kind == "unresolved" for lay in (source, result))
    if op in SAME_ENCODING_OPS and unresolved and source != result:
        out |= {"same_enc"}
    return out - stated_facts("src", source) - stated_facts("res", result)


def eval3(e: dsl.Expr, facts: Facts, unknown: frozenset[str]) -> int | bool | None:
    """Kleene evaluation: None where the value depends on an unknown fact."""
    op = e.op
    if op == "const":
        return e.value  # type: ignore[return-value]
    if op == "var":
        return None if e.value in unknown else facts[str(e.value)]
    if op in ("and", "or"):
        stop = op == "or"  # the value that decides the whole expression
        out: bool | None = not stop
        for a in e.args:
            v = eval3(a, facts, unknown)
            if v is None:
                out = None
            elif bool(v) == stop:
                return stop
        return out
    if op == "not":
        v = eval3(e.args[0], facts, unknown)
        return None if v is None else not v
    if op == "ite":
        c = eval3(e.args[0], facts, unknown)
        if c is None:
            t, f = (eval3(a, facts, unknown) for a in e.args[1:])
            return t if t is not None and t == f else None
        return eval3(e.args[1] if c else e.args[2], facts, unknown)
    a, b = (eval3(x, facts, unknown) for x in e.args)
    if a is None or b is None:
        return None
    try:
        return dsl.evaluate(dsl.Expr(op, (dsl.const(a), dsl.const(b))), {})
    except ZeroDivisionError:
        return None


def unjudged_reads(facts: Facts, profile: str, unknown: frozenset[str]) -> dict[str, list[str]]:
    """Each of the profile's rules that is not judged (in catalogue order), with the unknown
    facts its guard or formula reads (in fact order): what its formula reads decides it, so a
    rule reading only logical facts is judged whatever the layout. A rule whose guard is false
    whatever the unknown facts are does not apply, and is judged."""
    if not unknown:
        return {}
    out: dict[str, list[str]] = {}
    for r in rules_for(profile):
        guard, formula = compiled(r.id)
        read = (dsl.free_vars(guard) | dsl.free_vars(formula)) & unknown
        if read and eval3(guard, facts, unknown) is not False:
            out[r.id] = [f.name for f in FACTS if f.name in read]
        elif (
            SIZE_HOLDS_UNJUDGED in unknown
            and r.id.startswith(TRITON_RULES)
            and (dsl.free_vars(formula) & COUNT_FACTS)
            and eval3(guard, facts, unknown) is not False
            and eval3(formula, facts, unknown) is not False
        ):
            out[r.id] = ["the padding of a layout it does not model (only a failure is decisive)"]
    return out


def unjudged_rules(facts: Facts, profile: str, unknown: frozenset[str]) -> list[str]:
    """The profile's rules that read an unknown fact and whose guard is not false whatever
    that fact is, in catalogue order."""
    return list(unjudged_reads(facts, profile, unknown))


def unjudged_reason(reads: dict[str, list[str]]) -> str:
    """Which unknown facts each unjudged rule reads, as one clause: ``rule reads a, b; ...``."""
    return "; ".join(f"{rule} reads {', '.join(names)}" for rule, names in reads.items())
