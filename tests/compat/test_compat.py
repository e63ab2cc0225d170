"""The compatibility suite: request forms users have written, judged as they were promised.

``requests.json`` holds one entry per request form the README, the docs, the examples and
tests/cases have shown (older forms from the git history included) and FlagTree's
``tle.memdesc_alias`` lit cases as requests. Each entry's verdict per profile was written from
the rules, not from what the code prints: ``"valid"``, or the rules ``violated`` and those
``not_judged``. ``check`` must give it through the command line (``--json``, its exit status)
and through the API.

``known`` marks a profile whose verdict waits for a fix of issue 18 item 2 (one of KNOWN_GAPS):
it is an expected failure (strict: it must fail until the fix lands, then the mark goes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alias_spec import api
from alias_spec.model.catalogue import PROFILES, rule
from alias_spec.model.request import load_requests, parse_request
from tests.paths import COMPAT, ROOT

DATA = COMPAT / "requests.json"
ENTRIES: list[dict[str, Any]] = json.loads(DATA.read_text())["requests"]
# The only issue-18 gaps a verdict here may wait for (item 2, being fixed beside this suite).
KNOWN_GAPS = ("18.2 shared-partial", "18.2 smem-by-name", "18.2 bits-0")
EXIT = {"valid": 0, "invalid": 1, "partial": 3}


def _request(entry: dict[str, Any]) -> Any:
    if "request" in entry:
        return entry["request"]
    items = load_requests((ROOT / entry["file"]).read_text())
    return items[entry.get("index", 0)]


def _want(entry: dict[str, Any], profile: str) -> dict[str, Any]:
    raw = entry["expect"][profile]
    want = {"violated": [], "not_judged": []} if raw == "valid" else raw
    status = "invalid" if want["violated"] else "partial" if want["not_judged"] else "valid"
    return {"status": status, "violated": sorted(want["violated"]),
            "not_judged": sorted(want["not_judged"])}  # fmt: skip


def _cases() -> list[Any]:
    out = []
    for e in ENTRIES:
        for profile in e["expect"]:
            gap = e.get("known", {}).get(profile)
            marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
            out.append(pytest.param(e, profile, id=f"{e['id']}-{profile}", marks=marks))
    return out


CASES = _cases()


def test_the_data_is_well_formed() -> None:
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for e in ENTRIES:
        assert ("request" in e) != ("file" in e), e["id"]
        assert e["expect"] and set(e["expect"]) <= set(PROFILES), e["id"]
        for profile, want in e["expect"].items():
            if want != "valid":
                assert set(want) == {"violated", "not_judged"}, e["id"]
                for rid in want["violated"] + want["not_judged"]:
                    assert profile in rule(rid).profiles, f"{e['id']}: {rid} not in {profile}"
        for profile, gap in e.get("known", {}).items():
            assert profile in e["expect"] and gap.startswith(KNOWN_GAPS), e["id"]


def test_the_suite_covers_the_forms_it_promises() -> None:
    origins = " ".join(e["origin"] for e in ENTRIES)
    for where in ("README.md", "examples/request.json", "examples/requests-bad.json",
                  "docs/index.md", "docs/profiles.md", "docs/guides/getting-started.md",
                  "FlagTree's tle.memdesc_alias lit test", "tests/cases"):  # fmt: skip
        assert where in origins, where
    lit = [e for e in ENTRIES if e["id"].startswith("flagtree-lit-")]
    assert len(lit) == 10  # its five cases, with its module's aliases and with #shared undefined
    ops = {_request(e).get("op", "tle.memdesc_alias") for e in ENTRIES}
    assert ops == {"tle.memdesc_alias", "ttg.memdesc_reinterpret", "ttg.memdesc_subslice"}


@pytest.mark.parametrize(("entry", "profile"), CASES)
def test_check_command(
    entry: dict[str, Any], profile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``alias-spec check FILE --profile P --json``: the verdict and the exit status."""
    if "file" in entry:
        path, index = ROOT / entry["file"], entry.get("index")
    else:
        path, index = tmp_path / "request.json", None
        path.write_text(json.dumps(entry["request"]))
    code = api.run(["check", str(path), "--profile", profile, "--json"])
    out = json.loads(capsys.readouterr().out)
    got = out[index] if index is not None else out
    want = _want(entry, profile)
    assert {
        "status": got["status"],
        "violated": sorted(v["rule"] for v in got["violations"]),
        "not_judged": sorted(got.get("not_judged", [])),
    } == want
    codes = [EXIT[o["status"]] for o in (out if isinstance(out, list) else [out])]
    assert code == (1 if 1 in codes else 3 if 3 in codes else 0)


@pytest.mark.parametrize(("entry", "profile"), CASES)
def test_api(entry: dict[str, Any], profile: str) -> None:
    """``parse_request`` and ``alias_spec.api.judge``, without the command line."""
    verdict = api.judge(parse_request(_request(entry)), profile, fixes=False)
    assert {
        "status": verdict.status,
        "violated": sorted(verdict.rule_ids()),
        "not_judged": sorted(verdict.not_judged),
    } == _want(entry, profile)


def _tmem(name: str | None) -> dict[str, Any]:
    """FlagTree's valid lit case with its memory space in tensor memory: through an attribute
    alias called ``name``, or (None) as JSON sides."""
    if name is None:
        side = {"dtype": "bf16", "space": "tmem", "layout": "#shared"}
        return {
            "source": {**side, "shape": [64, 64]},
            "result": {**side, "shape": [32, 64]},
            "alias_offset_bytes": 128,
            "attributes": {
                "#shared": "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
            },
        }
    req = _tmem(None)
    req["attributes"][name] = "#ttng.tensor_memory"
    req["source"] = f"!ttg.memdesc<64x64xbf16, #shared, {name}, mutable>"
    req["result"] = f"!ttg.memdesc<32x64xbf16, #shared, {name}, mutable>"
    return req


@pytest.mark.parametrize("profile", ["flagtree", "safe"])
@pytest.mark.parametrize(
    "name",
    ["#tmem", "#smem"],
)
def test_a_memory_space_alias_is_what_it_is_defined_as(name: str, profile: str) -> None:
    """Whatever it is called, an alias defined as tensor memory is tensor memory."""
    want = api.judge(parse_request(_tmem(None)), profile, fixes=False)
    got = api.judge(parse_request(_tmem(name)), profile, fixes=False)
    assert "alias.scope.smem" in want.rule_ids()
    assert (got.rule_ids(), got.not_judged) == (want.rule_ids(), want.not_judged)
