"""The theorems page: the prover's results (``alias-spec prove --json``, stored in
``docs/data/theorems.json``) with what each result means and its witness requests."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alias_spec.docgen.blocks import (
    GENERATED,
    ZWSP,
    InputError,
    as_json,
    block,
    view_block,
    wrap_points,
)
from alias_spec.model.request import parse_request

THEOREMS_JSON = "docs/data/theorems.json"  # relative to the docs root the caller gives

# What a theorem of each family says when it holds, and what a refutation means.
MEANING: dict[str, tuple[str, str]] = {
    "satisfiable": (
        "The profile is not vacuous: the witness passes every one of its rules.",
        "The profile rejects every request.",
    ),
    "independent": (
        "The rule is not redundant: the witness breaks it and no other rule of the profile, "
        "so deleting the rule would change a verdict.",
        "Every request that breaks this rule breaks another one too: the rule is implied.",
    ),
    "guards_covered": (
        "No guard hides a violation: a request judged valid had every rule evaluated.",
        "A request is judged valid only because some rule's guard skipped it.",
    ),
    "sound": (
        "Every request the profile accepts touches only bytes of its source view's physical "
        "footprint, and every result element is aligned to its width in absolute address "
        "terms.",
        "The profile accepts a request that touches bytes outside its source view's physical "
        "footprint or places an element off its alignment: the counterexample is such a "
        "request.",
    ),
    "compose": (
        "Aliases compose: an alias of a valid alias is a valid alias of the root at the summed "
        "offset.",
        "Composition fails: two aliases each valid on its own add up to a direct alias of the "
        "root that the profile rejects (first, second and direct below).",
    ),
    "compose_from_allocation": (
        "Aliases compose along every chain that starts at an allocation.",
        "Even from an allocation, a valid chain of aliases sums to a rejected direct alias.",
    ),
    "converse": (
        "A valid alias of the root lying inside a valid first alias is a valid alias of it.",
        "A direct alias inside a valid first alias need not be a valid alias of that first "
        "alias: the relative offset may be misaligned, or the first alias immutable.",
    ),
    "converse_aligned": (
        "With an element-aligned relative offset and mutability respected, the converse holds.",
        "Even aligned, the converse fails.",
    ),
    "refines": (
        "The profiles nest: every request the stricter profile accepts, the other accepts too.",
        "The stricter profile accepts a request the other rejects.",
    ),
    "unsafe_accept": (
        "The release's verifier accepts a view that the `safe` profile rejects. The witness is "
        "the smallest such view among plain 1-D and 2-D views at the start of an allocation; "
        "`alias-spec triton-diff` shows the real verifier accepts views like it.",
        "No view of that family is both accepted and unsafe.",
    ),
    "contained": (
        "Every view the release accepts lies within its source view's bytes.",
        "The release accepts a view that reaches outside its source view.",
    ),
    "reinterpret_38": (
        "A reinterpret that 3.8 accepts is a safe alias at offset 0, as far as the theorem claims.",
        "3.8 accepts a reinterpret that is not a safe alias: the counterexample is a real "
        "view request.",
    ),
    "recipe_view": (
        "What the frontend emits for this recipe is accepted by the release and views exactly "
        "the alias's bytes.",
        "The recipe predicate picks this recipe for a request the release rejects.",
    ),
    "recipe_index": (
        "What the frontend emits for this recipe is accepted by the release, indexes inside "
        "the stacked view and lands on the alias's first byte; each view that is read is safe.",
        "The recipe predicate picks this recipe for a request the release rejects, or the "
        "index misses the alias.",
    ),
    "recipe_granule": (
        "What the frontend emits for this recipe is accepted by the release, indexes inside "
        "the stacked view and lands on the alias's first byte.",
        "The recipe predicate picks this recipe for a request the release rejects, or the "
        "index misses the alias.",
    ),
    "recipe_index_stack": (
        "The recipe's stacked intermediate view stays inside the source view's bytes.",
        "The stacked intermediate view spans bytes outside the source view. Nothing is read "
        "or written through it; only its indexed row is.",
    ),
    "recipe_granule_stack": (
        "The recipe's stacked byte view stays inside the source view's bytes.",
        "The stacked byte view spans bytes past the source view. Nothing is read or written "
        "through it; only the final view is.",
    ),
}

# Findings stated plainly, for theorems whose refutation the project expects.
FINDINGS: dict[str, str] = {
    "sound.flagtree": "FlagTree's shipped checks (its Python frontend and its "
    "`MemDescAliasOp` verifier) are not sound for FEP-0065's promise. They compare byte sizes "
    "computed from logical view shapes, so an alias of a subslice with gaps between its rows "
    "can reach bytes the view does not own, and they check the offset's alignment relative to "
    "the source view rather than in absolute address terms. The `safe` profile adds the rules "
    "that close both holes (`alias.range.physical`, `alias.address.aligned`, "
    "`alias.base.aligned`, `alias.address.i32`).",
    "compose.flagtree": "In FlagTree, alias validity does not compose: alignment is checked "
    "relative to each source view, so a chain of two valid aliases can sum to a direct alias "
    "that the checks reject although every address is aligned.",
    "compose.safe": "Even under `safe`, the offset alignment rule is relative to the source "
    "view: a chain that starts at a view which is not itself element-aligned for the second "
    "alias's type can be rejected as a direct alias. Chains that start at an allocation do "
    "compose (`compose_from_allocation.safe`).",
    "compose_from_allocation.flagtree": "FlagTree's checks do not compose even along chains "
    "that start at an allocation.",
    "reinterpret_38.safe": "Triton 3.8's reinterpret checks sizes but not where a swizzled "
    "NVMMA result starts: a 16-byte-aligned buffer can be reinterpreted as a 128-byte-swizzled "
    "tile whose swizzle pattern then starts mid-repeat. Swizzled views that start off a repeat "
    "boundary read and wrote wrong data on an H200 (the `alias.base.aligned` experiment in "
    "the GPU report).",
    "reinterpret_38.subbyte": "Triton 3.8 compares bit sizes, but shared memory stores an "
    "`i1` in a whole byte: 8 x i1 passes as the same size as 1 x i8 and covers 8 bytes.",
}


def _family(theorem_id: str) -> str:
    return theorem_id.split(".", 1)[0]


def load_theorems(path: Path) -> list[dict[str, Any]]:
    """The prover's results stored at ``path`` (none yet if it is missing)."""
    if not path.exists():
        return []
    try:
        theorems = json.loads(path.read_text())["theorems"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: cannot read the prover's results ({exc})") from None
    if not isinstance(theorems, list) or not all(isinstance(t, dict) for t in theorems):
        raise InputError(f"{path}: 'theorems' is not a list of objects")
    return theorems


def load_measured(path: Path) -> dict[str, Any] | None:
    """How the stored results were timed (``measured`` in the file, written by ``prove
    --json``), or None when the file does not say."""
    try:
        measured = json.loads(path.read_text()).get("measured")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    return measured if isinstance(measured, dict) else None


def measured_line(measured: dict[str, Any] | None) -> str:
    """What the seconds column is: one run of ``alias-spec prove --json``, its solvers and
    machine, as recorded with the results."""
    if not measured:
        return "Seconds are those of the run that wrote the file; how it was run is not recorded."
    solvers = " and ".join(f"{k} {measured[k]}" for k in ("z3", "cvc5") if measured.get(k))
    where = f" on {measured['cpus']} CPUs" if measured.get("cpus") else ""
    total = measured.get("seconds")
    whole = f" ({float(total):.0f} s for the whole run, wall clock)" if total else ""
    return (f"Seconds are each theorem's time in one run of `alias-spec prove --json`{whole} "
            f"with {solvers or 'the solvers installed then'}{where}; the versions are those "
            "pyproject.toml pins, as a theorem's time depends on them. A loaded machine takes "
            "longer.")  # fmt: skip


def theorems_page(theorems: list[dict[str, Any]], measured: dict[str, Any] | None = None) -> str:
    """The page for the prover's results (``load_theorems``), timed as ``measured`` says."""
    ts = theorems
    out = [GENERATED, "# Theorems", ""]
    out += ["Claims about the rule set, each decided by z3 and checked again by cvc5 "]
    out[-1] += "(`alias-spec prove`). A *proved* theorem was expected to hold and both solvers "
    out[-1] += "agree it does; a *finding* was expected to be refuted and both solvers refute it "
    out[-1] += "(the counterexample is kept); *failed* means a solver disagrees with what the "
    out[-1] += "project expects, or gave up. Results are read from `docs/data/theorems.json`, "
    out[-1] += "written by `alias-spec prove --json`."
    out += [""]
    if not ts:
        return "\n".join(out + ["No results yet: run `alias-spec prove --json`.", ""])
    counts: dict[str, int] = {}
    for t in ts:
        counts[t["status"]] = counts.get(t["status"], 0) + 1
    out += [", ".join(f"**{n}** {s}" for s, n in sorted(counts.items())) + ".", ""]
    out += [measured_line(measured), ""]
    out += ["| theorem | profile | expected | status | solvers | seconds |"]
    out += ["| --- | --- | --- | --- | --- | --- |"]
    for t in ts:
        # One solver per line; a long name wraps only between its parts (never inside a rule id).
        solvers = "<br>".join(f"{s}: {v}" for s, v in t["solvers"].items())
        out.append(
            f"| [<code>{wrap_points(t['id'])}</code>](#{_tid(t['id'])}) | `{t['profile']}` | "
            f"{t['expected']} | **{t['status']}** | {solvers} | {t['seconds']:.2f} |"
        )
    findings = [t for t in ts if t["id"] in FINDINGS and t["status"] == "finding"]
    if findings:
        out += ["", "## Findings, plainly", ""]
        for t in findings:
            out += [f"- **[`{t['id']}`](#{_tid(t['id'])})**: {FINDINGS[t['id']]}"]
    seen: list[str] = []
    for t in ts:
        fam = _family(t["id"])
        if fam not in seen:
            seen.append(fam)
    for fam in seen:
        out += ["", f"## {fam}", ""]
        for t in (t for t in ts if _family(t["id"]) == fam):
            out += _theorem_entry(t)
    return "\n".join(out) + "\n"


def _tid(theorem_id: str) -> str:
    return "t-" + re.sub(r"[^a-z0-9]+", "-", theorem_id.lower()).strip("-")


def _theorem_entry(t: dict[str, Any]) -> list[str]:
    # The table of contents strips tags, so its label marks where it may wrap with a ZWSP.
    label = wrap_points(t["id"], ZWSP)
    heading = f'### <a id="{_tid(t["id"])}"></a>`{t["id"]}` {{: data-toc-label="{label}" }}'
    out = [heading, "", t["statement"][:1].upper()]
    out[-1] += t["statement"][1:] + "."
    holds_text, refuted_text = MEANING.get(_family(t["id"]), ("", ""))
    solvers = ", ".join(f"{s} says it {v}" for s, v in t["solvers"].items())
    out += ["", f"Profile `{t['profile']}`; expected to be {t['expected']}; **{t['status']}** "]
    out[-1] += f"({solvers}; {t['seconds']:.2f} s)."
    refuted = "refuted" in t["solvers"].values()
    meaning = refuted_text if refuted else holds_text
    if t["id"] in FINDINGS and refuted:
        meaning = FINDINGS[t["id"]]
    if meaning:
        out += ["", meaning]
    ce = t.get("counterexample")
    if ce:
        what = "Counterexample" if refuted else "Witness"
        out += ["", f'??? note "{what} ({len(ce)} request{"s" * (len(ce) != 1)})"', ""]
        for role, ex in ce.items():
            block = _witness_block(ex, role)
            out += ["    " + line if line else "" for line in block.splitlines()]
            out += [""]
    return out + [""]


def _witness_block(ex: Mapping[str, Any], role: str) -> str:
    """A theorem's witness request (its facts are those of the catalogue of its day; the
    request re-parses under today's)."""
    if "request" not in ex:  # view facts with no request form
        return f"**{role}** (facts)\n\n```json\n{as_json(ex['facts'])}\n```\n"
    try:
        facts = parse_request(ex["request"]).facts
    except Exception as exc:  # noqa: BLE001 - shown, not hidden: the JSON is out of date
        return f"**{role}**: the stored witness no longer parses ({exc}); rerun the prover.\n"
    if ex["request"].get("op", "tle.memdesc_alias") != "tle.memdesc_alias":
        return f"**{role}**\n\n" + view_block(ex["request"], role, "rules/")
    return f"**{role}**\n\n" + block("request", ex["request"], facts, role, "rules/")
