"""Profiles judge what their verifier reads (issue 18, item 2).

A rule whose formula reads only logical facts (shapes, element widths, mutability, memory
space) is judged whatever the layout; "not judged" is kept for rules that read a fact an
unknown layout decides, and the reason names those facts. Attribute aliases resolve by what
the input defines them as, never by their name. Each case states its expected verdict per
profile by hand.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest

from alias_spec import parse_request
from alias_spec.api import run as main
from alias_spec.lint.lint import lint_text
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.unknown import unjudged_reads

SW = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"


def md(shape: str, layout: str = "#shared", space: str = "#smem") -> str:
    return f"!ttg.memdesc<{shape}, {layout}, {space}, mutable>"


# FlagTree's one valid lit case (64x64 bf16 source, 32x64 bf16 alias at byte 128), written as
# the lit file writes its types: #shared and #smem are aliases the request does not define.
FLAGTREE_LIT: dict[str, Any] = {
    "source": md("64x64xbf16"),
    "result": md("32x64xbf16"),
    "alias_offset_bytes": 128,
}
# A reinterpret of a 512-byte view as 8192 bytes, its layout an undefined alias.
OVERSIZE_REINTERPRET: dict[str, Any] = {
    "op": "ttg.memdesc_reinterpret",
    "source": md("16x16xf16"),
    "result": md("64x64xf16"),
}
# The rules of safe that need where the bytes lie (runs, base, alignment, swizzle).
SAFE_PHYSICAL = ["alias.range.physical", "alias.address.aligned", "alias.address.i32",
                 "alias.base.aligned"]  # fmt: skip
LAYOUT_RANK = "triton.type.layout_rank reads src_lay_rank, res_lay_rank"

# (request, profile) -> (status, violated rules, rules not judged)
EXPECTED: list[tuple[str, str, str, list[str], list[str]]] = [
    ("flagtree_lit", "flagtree", "valid", [], []),
    ("flagtree_lit", "safe", "partial", [], SAFE_PHYSICAL),
    ("oversize_reinterpret", "flagtree", "invalid", ["alias.range.fits"], []),
    ("oversize_reinterpret", "safe", "invalid", ["alias.range.fits"], SAFE_PHYSICAL),
    # 3.6 has no reinterpret verifier; the layout's rank is the one thing the undefined alias
    # leaves open (Triton's type verifier reads it).
    ("oversize_reinterpret", "triton-3.6", "partial", [], ["triton.type.layout_rank"]),
    ("oversize_reinterpret", "triton-3.8", "invalid", ["triton.reinterpret.same_size"],
     ["triton.type.layout_rank", "triton.type.nvmma_width", "triton.reinterpret.layout"]),
    ("oversize_reinterpret", "triton-3.9", "invalid", ["triton.reinterpret.fits"],
     ["triton.type.layout_rank", "triton.type.pow2", "triton.type.nvmma_width",
      "triton.reinterpret.nvmma_rows"]),
]  # fmt: skip
# The same byte count reinterpreted: the logical size check holds, but Triton 3.8 and 3.9 also
# refuse a reinterpret between padded and unpadded layouts (measured), which no rule models;
# with an undefined layout that holding check is not judged (a failure would be decisive).
SAME_SIZE_REINTERPRET: dict[str, Any] = {
    "op": "ttg.memdesc_reinterpret",
    "source": md("64x64xf16"),
    "result": md("128x32xf16"),
}
EXPECTED += [
    ("same_size_reinterpret", "triton-3.8", "partial", [],
     ["triton.type.layout_rank", "triton.type.nvmma_width", "triton.reinterpret.same_size",
      "triton.reinterpret.layout"]),
]  # fmt: skip
REQUESTS = {
    "flagtree_lit": FLAGTREE_LIT,
    "oversize_reinterpret": OVERSIZE_REINTERPRET,
    "same_size_reinterpret": SAME_SIZE_REINTERPRET,
}


def check(request: Any, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    stdin = sys.stdin
    sys.stdin = io.StringIO(json.dumps(request))
    try:
        code = main(["check", "-", "--engine", "interp", "--no-fix", "--json", *args])
    finally:
        sys.stdin = stdin
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


@pytest.mark.parametrize(
    ("name", "profile", "status", "violated", "skipped"),
    EXPECTED,
    ids=[f"{n}-{p}" for n, p, *_ in EXPECTED],
)
def test_logical_rules_are_judged_whatever_the_layout(
    name: str,
    profile: str,
    status: str,
    violated: list[str],
    skipped: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, verdict = check(REQUESTS[name], "--profile", profile, capsys=capsys)
    assert verdict["status"] == status, verdict
    assert code == {"valid": 0, "invalid": 1, "partial": 3}[status]
    assert [v["rule"] for v in verdict["violations"]] == violated
    assert verdict.get("not_judged", []) == skipped
    # FlagTree's logical size rules never wait on the layout.
    assert "alias.size.static" not in skipped and "alias.range.fits" not in skipped


def test_the_reason_names_the_unknown_facts(capsys: pytest.CaptureFixture[str]) -> None:
    _, verdict = check(FLAGTREE_LIT, "--profile", "safe", capsys=capsys)
    reason = verdict["not_judged_reason"]
    assert "#shared (an undefined attribute alias)" in reason
    assert "alias.range.physical reads run, p0, c0, p1, c1, p2, c2" in reason
    assert "alias.base.aligned reads src_start, src_base, align, swz" in reason
    _, verdict = check(OVERSIZE_REINTERPRET, "--profile", "triton-3.6", capsys=capsys)
    assert verdict["not_judged_reason"].endswith(LAYOUT_RANK)
    # The same through the model: each unjudged rule with the unknown facts it reads.
    req = parse_request(FLAGTREE_LIT)
    assert unjudged_reads(req.facts, "flagtree", req.unknown) == {}
    assert unjudged_reads(req.facts, "safe", req.unknown)["alias.address.i32"] == [
        "src_start",
        "src_base",
    ]


def test_defining_the_layout_judges_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    defined = dict(OVERSIZE_REINTERPRET, attributes={"#shared": SW})
    code, verdict = check(defined, "--profile", "triton-3.6", capsys=capsys)
    assert (code, verdict["status"]) == (0, "valid")
    code, verdict = check(defined, "--profile", "triton-3.8", capsys=capsys)
    assert code == 1 and "not_judged" not in verdict
    assert [v["rule"] for v in verdict["violations"]] == ["triton.reinterpret.same_size"]


# --- aliases resolve by their definition ------------------------------------------------------


@pytest.mark.parametrize("name", ["#smem", "#tmem", "#space"])
def test_a_space_alias_is_what_it_is_defined_as(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tmem = {"source": md("64x64xbf16", SW, name), "result": md("32x64xbf16", SW, name),
            "alias_offset_bytes": 128, "attributes": {name: "#ttng.tensor_memory"}}  # fmt: skip
    assert parse_memdesc(tmem["source"], "source", tmem["attributes"])["space"] == "tmem"
    code, verdict = check(tmem, "--profile", "flagtree", capsys=capsys)
    assert code == 1 and [v["rule"] for v in verdict["violations"]] == ["alias.scope.smem"]
    smem = dict(tmem, attributes={name: "#ttg.shared_memory"})
    code, verdict = check(smem, "--profile", "flagtree", capsys=capsys)
    assert (code, verdict["status"]) == (0, "valid")


def test_an_undefined_space_alias_is_what_triton_prints_under_that_name() -> None:
    # Triton prints #ttg.shared_memory as #smem and #ttng.tensor_memory as #tmem: a type
    # copied from its output without the definitions reads as the printer meant it.
    assert parse_memdesc(md("4xf16", SW, "#smem"), "source")["space"] == "smem"
    assert parse_memdesc(md("4xf16", SW, "#tmem"), "source")["space"] == "tmem"


def _module(space_alias: str, space: str) -> str:
    src, res = md("64x64xbf16", "#shared", space_alias), md("32x64xbf16", "#shared", space_alias)
    return (
        f"#shared = {SW}\n{space_alias} = {space}\n"
        "module {\n  tt.func @f() {\n"
        f"    %a = ttg.local_alloc : () -> {src}\n"
        f"    %b = tle.memdesc_alias %a {{offset_bytes = 128 : i64}} : {src} -> {res}\n"
        "    tt.return\n  }\n}\n"
    )


@pytest.mark.parametrize("name", ["#smem", "#tmem"])
def test_lint_resolves_space_aliases_by_definition(name: str) -> None:
    report = lint_text(_module(name, "#ttng.tensor_memory"), "m.mlir", "flagtree")
    assert [f.rule for f in report.findings] == ["alias.scope.smem"], report.findings
    report = lint_text(_module(name, "#ttg.shared_memory"), "m.mlir", "flagtree")
    assert report.findings == [] and report.notices == [] and report.views == 1


# --- FlagTree's byte size has no value for a zero-byte element --------------------------------


@pytest.mark.parametrize("profile", ["flagtree", "safe"])
def test_zero_bit_source_has_no_static_byte_size(
    profile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    req = {"source": {"shape": [64], "dtype": {"bits": 0}},
           "result": {"shape": [0], "dtype": "i8"}}  # fmt: skip
    code, verdict = check(req, "--profile", profile, capsys=capsys)
    assert code == 1 and [v["rule"] for v in verdict["violations"]] == ["alias.size.static"]
    # An 8-bit source of the same shape has a size: the same request is valid.
    req["source"]["dtype"] = "i8"
    code, verdict = check(req, "--profile", profile, capsys=capsys)
    assert (code, verdict["status"]) == (0, "valid")
