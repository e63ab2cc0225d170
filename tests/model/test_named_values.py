"""A violation's values in user terms: every value a rule or a lowering condition reports has a
name a user reads (JSON ``named_values``) and a phrase (text), and the frontend's errors show
no internal fact name."""

from __future__ import annotations

import json
import re

from alias_spec import api
from alias_spec.frontend.tle import fixes
from alias_spec.generated import alias_checks
from alias_spec.model.catalogue import RULES
from alias_spec.model.describe import FOOTPRINT, NAMES, PHRASES, describe, named
from alias_spec.model.recipes import SUPPORT
from alias_spec.model.request import parse_request
from alias_spec.semantics.verdict import verdict_json

# The internal fact names a message must not show as ``name=value`` or ``name value``.
INTERNAL = re.compile(r"\b(off|res_bytes|src_bytes|run_b|p[012]_b|c[012]|res_layout_\w+)\b[= ]")
REQUEST = {
    "source": {"shape": [64, 64], "dtype": "f16"},
    "result": {"shape": [32, 64], "dtype": "f16"},
    "alias_offset_bytes": 6000,
}


def test_every_reported_value_has_a_user_name_and_a_phrase() -> None:
    reported = {n for r in RULES for n in r.values} | {n for s in SUPPORT for n in s.values}
    assert sorted(reported - set(NAMES)) == []
    assert sorted(reported - set(PHRASES) - set(FOOTPRINT)) == []
    # No rule or condition reports two values under one user name (JSON would lose one).
    for names in [r.values for r in RULES] + [s.values for s in SUPPORT]:
        assert len({NAMES[n] for n in names}) == len(names), names


def test_json_keeps_values_and_adds_named_values() -> None:
    req = parse_request(REQUEST)
    got = verdict_json(api.judge(req, "safe", fixes=False))
    fits = next(v for v in got["violations"] if v["rule"] == "alias.range.fits")
    assert fits["values"] == {"off": 6000, "res_bytes": 4096, "src_bytes": 8192}
    assert fits["named_values"] == {
        "alias_offset_bytes": 6000,
        "result_bytes": 4096,
        "source_bytes": 8192,
    }
    assert fits["values_text"] == "offset 6000 B, result 4096 B, source view 8192 B"
    physical = next(v for v in got["violations"] if v["rule"] == "alias.range.physical")
    assert physical["named_values"]["source_run_bytes"] == 8192
    assert "run_b" not in physical["named_values"]


def test_named_keeps_an_unknown_name() -> None:
    assert named({"off": 1, "something_new": 2}) == {"alias_offset_bytes": 1, "something_new": 2}


def test_frontend_rejection_names_values_in_user_terms() -> None:
    facts = parse_request(REQUEST).facts
    violations = alias_checks.check(facts, "safe")
    err = fixes.reject(facts, "safe", violations, [32, 64], [])
    text = str(err)
    assert "offset 6000 B, result 4096 B, source view 8192 B" in text
    assert "fix: alias_offset_bytes=4096" in text
    assert not INTERNAL.search(text), text


def test_frontend_lowering_error_names_values_in_user_terms() -> None:
    reasons = [("layout.rank", "the layout's rank differs", "fix the layout",
                {"res_layout_rank": 1, "res_rank": 2})]  # fmt: skip
    text = str(fixes.unsupported(reasons, "3.6"))
    assert "(result layout rank 1, result rank 2)" in text, text
    assert not INTERNAL.search(text), text
    assert describe({"res_layout_bits": 16}) == "result layout for 16-bit elements"
    # The lowering's "no recipe" reason (frontend/lowering.py) reports the offset and release.
    assert describe({"off": 100, "tv": 308}) == "offset 100 B, Triton 3.8"
    assert named({"tv": 309}) == {"triton_version": 309}


def test_cli_json_has_named_values() -> None:
    import contextlib
    import io
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "req.json"
        path.write_text(json.dumps(REQUEST))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = api.run(["check", str(path), "--json", "--no-fix"])
    assert code == 1
    first = json.loads(buf.getvalue())["violations"][0]
    assert first["named_values"]["alias_offset_bytes"] == 6000
    assert first["values"]["off"] == 6000
