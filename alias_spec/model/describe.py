"""A violation's values as a Triton user reads them: bytes, element widths, memory spaces and
op names instead of the internal fact names (``off=4097, res_eb=2`` reads "offset 4097 B,
result element 2 B"). Enumerations are named from ``facts`` (SPACES, SCOPES, OPS), and the
source view's physical footprint (its runs and strides) is described in words.

Two forms, from one table per value: :func:`describe`, a line of phrases (the command line's
and the frontend's text), and :func:`named`, the values keyed by names a user reads (the
request's own field where it has one, ``alias_offset_bytes``), for JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from alias_spec.model.facts import DEFINITIONS, FACTS, OPS, SCOPES, SPACES

Value = int | bool


def _name_of(table: Mapping[str, int], v: Value) -> str:
    for name, code in table.items():
        if code == v:
            return name
    return f"code {v}"


def _flag(yes: str, no: str) -> Callable[[Value], str]:
    return lambda v: yes if v else no


def _num(template: str) -> Callable[[Value], str]:
    return lambda v: template.format(v=v)


# One phrase per value a rule reports; any other name falls back on its documentation.
PHRASES: dict[str, Callable[[Value], str]] = {
    "scope": lambda v: f"scope {_name_of(SCOPES, v)}",
    "src_space": lambda v: f"source in {_name_of(SPACES, v)}",
    "res_space": lambda v: f"result in {_name_of(SPACES, v)}",
    "op": lambda v: f"op {_name_of(OPS, v)}",
    "src_mutable": _flag("source mutable", "source immutable"),
    "res_mutable": _flag("result mutable", "result immutable"),
    "src_static": _flag("source shape static", "source shape not static"),
    "res_static": _flag("result shape static", "result shape not static"),
    "src_subview": _flag("source is a subview", "source is not a subview"),
    "res_subview": _flag("result is a subview", "result is not a subview"),
    "src_prefix_sub": _flag(
        "source trims only its leading dim", "source does not trim only its leading dim"
    ),
    "off": _num("offset {v} B"),
    "abs_off": _num("result starts {v} B into the allocation"),
    "align": _num("allocation aligned to {v} B"),
    "swz": lambda v: f"swizzle repeat {v} B" if v else "no swizzle",
    "src_bits": _num("source element {v} bits"),
    "res_bits": _num("result element {v} bits"),
    "src_eb": _num("source element {v} B"),
    "res_eb": _num("result element {v} B"),
    "src_bytes": _num("source view {v} B"),
    "res_bytes": _num("result {v} B"),
    "src_elems": _num("source {v} elements"),
    "res_elems": _num("result {v} elements"),
    "src_rank": _num("source rank {v}"),
    "res_rank": _num("result rank {v}"),
    "src_alloc_rank": _num("source alloc rank {v}"),
    "res_alloc_rank": _num("result alloc rank {v}"),
    "src_lay_rank": _num("source layout rank {v}"),
    "res_lay_rank": _num("result layout rank {v}"),
    # The lowering's support conditions (model/recipes.py) report these too.
    "res_layout_rank": _num("result layout rank {v}"),
    "res_layout_bits": lambda v: f"result layout for {v}-bit elements" if v else "no NVMMA width",
    "tv": lambda v: f"Triton {int(v) // 100}.{int(v) % 100}",
}

# The source view's physical footprint: runs of run_b bytes, c2 of them p2_b bytes apart, in
# c1 groups p1_b bytes apart, in c0 blocks p0_b bytes apart (facts.py, "run" and "p*"/"c*").
FOOTPRINT = ("run_b", "p2_b", "c2", "p1_b", "c1", "p0_b", "c0")


# Each reported value's name in user terms: the request's field where it has one, else the
# quantity. Every name PHRASES or FOOTPRINT covers has one (tested).
NAMES: dict[str, str] = {
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
    "src_eb": "source_element_bytes",
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
    "res_layout_rank": "result_layout_rank",
    "res_layout_bits": "result_layout_element_bits",
    "tv": "triton_version",
    "run_b": "source_run_bytes",
    "c2": "source_runs_per_group",
    "p2_b": "source_run_stride_bytes",
    "c1": "source_groups_per_block",
    "p1_b": "source_group_stride_bytes",
    "c0": "source_blocks",
    "p0_b": "source_block_stride_bytes",
}


def named(values: Mapping[str, Value]) -> dict[str, Value]:
    """``values`` keyed by :data:`NAMES` (a name without an entry keeps its own)."""
    return {NAMES.get(k, k): v for k, v in values.items()}


def _footprint(values: Mapping[str, Value]) -> str:
    run, c0, c1, c2 = (values[k] for k in ("run_b", "c0", "c1", "c2"))
    if c0 == c1 == c2 == 1:
        return f"source view is one contiguous run of {run} B"
    parts = [
        f"a run every {values['p2_b']} B" if c2 != 1 else "",
        f"a group of {c2} runs every {values['p1_b']} B" if c1 != 1 else "",
        f"a block of {c1} groups every {values['p0_b']} B" if c0 != 1 else "",
    ]
    runs = int(c0) * int(c1) * int(c2)
    return f"source view is {runs} runs of {run} B, {', '.join(p for p in parts if p)}"


def _fallback(name: str, v: Value) -> str:
    docs = {f.name: f.doc for f in FACTS} | {d[0]: d[2] for d in DEFINITIONS}
    doc = docs.get(name)
    if doc is None:
        return f"{name} {v}"
    if isinstance(v, bool):
        return f"{doc}: {'yes' if v else 'no'}"
    return f"{doc}: {v}"


def phrases(values: Mapping[str, Value]) -> list[str]:
    """One phrase per reported value (the footprint facts together as one), in order."""
    out: list[str] = []
    whole = all(k in values for k in FOOTPRINT)
    for name, v in values.items():
        if whole and name in FOOTPRINT:
            if name == next(k for k in values if k in FOOTPRINT):
                out.append(_footprint(values))
            continue
        phrase = PHRASES.get(name)
        out.append(phrase(v) if phrase is not None else _fallback(name, v))
    return out


def describe(values: Mapping[str, Value]) -> str:
    """The values as one line of phrases."""
    return ", ".join(phrases(values))
