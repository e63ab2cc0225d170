"""The profiles page: what each profile is, the rule matrix, and for each ordered pair of
profiles a request the first accepts and the second rejects (or z3's proof that none does)."""

from __future__ import annotations

from alias_spec.docgen.blocks import GENERATED, example_block, profile_header, view_block
from alias_spec.docgen.examples import Examples
from alias_spec.docgen.rules import anchor
from alias_spec.model.catalogue import PROFILES, RULES, rules_for


def profiles_page(examples: Examples) -> str:
    out = [GENERATED, "# Profiles", "", "A profile is a set of rules; a request is valid under "]
    out[-1] += "a profile when none of its rules fires."
    out += [""]
    for p, doc in PROFILES.items():
        out += [f'- <a id="{anchor(p)}"></a>`{p}`: {doc} ({len(rules_for(p))} rules).']
    out += ["", "## Rule matrix", ""]
    out += ["| rule | " + " | ".join(profile_header(p) for p in PROFILES) + " |"]
    out += ["| --- | " + " | ".join("---" for _ in PROFILES) + " |"]
    for r in RULES:
        marks = " | ".join("✓" if p in r.profiles else "" for p in PROFILES)
        out.append(f"| [`{r.id}`](rules/{r.id}.md) | {marks} |")
    out += ["", "## Requests that tell profiles apart", ""]
    out += ["For each ordered pair, z3 looked for a request the first profile accepts and the "]
    out[-1] += "second rejects (nearest the baseline request of the rule pages). *None* means the "
    out[-1] += "solver proved that every request the first accepts, the second accepts too."
    out += [""]
    names = list(PROFILES)
    for a in names:
        for b in names:
            if a == b:
                continue
            out += [f"### `{a}` accepts, `{b}` rejects", ""]
            facts = examples.separating(a, b)
            req = examples.separating_request(a, b)
            if facts is None:
                out += [f"None: `{a}` ⊆ `{b}` (unsatisfiable).", ""]
            elif req is not None:
                out += ["z3's nearest separating facts have no request form; this request, the "]
                out[-1] += "least of the view search (`alias_spec/difftest/view_examples.py`) that "
                out[-1] += "tells the two apart, stands in:"
                out += ["", view_block(req, rules_dir="rules/"), ""]
            else:
                out += [example_block(facts, rules_dir="rules/", must_match=(a, b)), ""]
    return "\n".join(out)
