"""`alias-spec check` on layouts and memory the spec does not model: the request parses, the
rules that need byte positions are named as not judged, and the exit status says so (3)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from alias_spec import parse_request
from alias_spec.api import run as main
from alias_spec.model import dsl
from alias_spec.model.catalogue import compiled, rules_for
from alias_spec.model.interp import check_facts
from alias_spec.model.layouts import parse_layout
from alias_spec.model.unknown import BYTE_FACTS, LAYOUT_FACTS
from tests.paths import ROOT

PAD = "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>"
LIN = (
    "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], "
    "[2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}, alignment = 16>"
)
TMEM_ENC = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>"
SW = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
SMEM, TMEM = "#ttg.shared_memory", "#ttng.tensor_memory"


def md(shape: str, layout: str, space: str = SMEM, mutable: bool = True) -> str:
    return f"!ttg.memdesc<{shape}, {layout}, {space}{', mutable' if mutable else ''}>"


# One alias request per unmodelled layout: the result is the source's second half (in range
# and aligned for a dense layout, so nothing fires on the rules that are judged).
REQUESTS: dict[str, dict[str, Any]] = {
    "padded_shared": {
        "source": md("64x64xf16", PAD),
        "result": md("32x64xf16", PAD),
        "alias_offset_bytes": 4096,
    },
    "shared_linear": {
        "source": md("64x64xf16", LIN),
        "result": md("32x64xf16", LIN),
        "alias_offset_bytes": 4096,
    },
    "tensor_memory_encoding": {
        "op": "ttg.memdesc_reinterpret",
        "source": md("128x64xf32", TMEM_ENC, TMEM),
        "result": md("128x128xf16", TMEM_ENC, TMEM),
    },
}


def check(request: Any, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    import io

    stdin = sys.stdin
    sys.stdin = io.StringIO(json.dumps(request))
    try:
        code = main(["check", "-", "--engine", "interp", "--no-fix", *args])
    finally:
        sys.stdin = stdin
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out


def _needs_bytes(rule_id: str) -> bool:
    guard, formula = compiled(rule_id)
    return bool((dsl.free_vars(guard) | dsl.free_vars(formula)) & (BYTE_FACTS | LAYOUT_FACTS))


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_unmodelled_layout_is_partial_exit_3(name: str, capsys: pytest.CaptureFixture) -> None:
    code, text = check(REQUESTS[name], capsys=capsys)
    assert code == 3, text
    head = text.splitlines()[0]
    assert head.startswith("PARTIAL: valid under safe for the judged rules;"), head
    assert "valid under safe\n" not in text + "\n"  # never a plain "valid"
    named = head.split("not judged: ")[1].split(", ")
    # Physical containment needs to know where the bytes lie; whether a mutable view of a
    # mutable source is allowed does not, nor do FlagTree's logical size rules (they read the
    # shapes and element widths only).
    assert "alias.range.physical" in named
    assert "alias.range.fits" not in named and "alias.size.static" not in named
    assert "alias.mutability" not in named and "alias.space.match" not in named
    assert all(_needs_bytes(r) for r in named), named
    what = "tensor memory" if name.startswith("tensor") else f"layout #ttg.{name}"
    assert f"not judged because the spec does not model {what}" in text
    # The reason names the unknown facts each rule reads.
    assert "alias.range.physical reads run, p0, c0, p1, c1, p2, c2" in text

    code, text = check(REQUESTS[name], "--json", capsys=capsys)
    verdict = json.loads(text)
    assert code == 3
    assert verdict["status"] == "partial" and verdict["violations"] == []
    assert verdict["not_judged"] == named
    assert what in verdict["not_judged_reason"]


def test_padded_layout_keeps_rank_and_padding() -> None:
    lay = parse_layout(PAD, "layout")
    assert lay is not None and lay.kind == "other" and not lay.placement_known
    assert lay.rank == 2 and lay.padding == ((64, 4),)
    lin = parse_layout(LIN, "layout")
    assert lin is not None and lin.kind == "other" and lin.rank == 2
    enc = parse_layout(TMEM_ENC, "layout")
    assert enc is not None and enc.kind == "other" and enc.rank is None
    scales = parse_layout("#ttng.tensor_memory_scales_encoding<>", "layout")
    assert scales is not None and scales.kind == "other"


def test_stated_layout_rank_is_judged(capsys: pytest.CaptureFixture) -> None:
    # A rank-1 padded layout on a rank-3 memdesc: Triton wants the layout's rank to be the
    # shape's or one less. The rank is stated, so the rule is judged and fires.
    flat = "#ttg.padded_shared<[64:+4] {order = [0], shape = [4096]}>"
    req = {"op": "ttg.memdesc_index", "index": 0,
           "source": md("2x64x64xf16", flat), "result": md("64x64xf16", flat)}  # fmt: skip
    code, text = check(req, "--profile", "triton-3.9", "--json", capsys=capsys)
    verdict = json.loads(text)
    assert code == 1 and verdict["status"] == "invalid"
    assert "triton.type.layout_rank" in [v["rule"] for v in verdict["violations"]]
    assert "triton.type.layout_rank" not in verdict.get("not_judged", [])


def test_fired_rule_with_unjudged_rules_is_exit_1(capsys: pytest.CaptureFixture) -> None:
    req = dict(REQUESTS["padded_shared"], source=md("64x64xf16", PAD, mutable=False))
    code, text = check(req, capsys=capsys)
    assert code == 1
    head = text.splitlines()[0]
    assert head.startswith("INVALID under safe: 1 rule violated;") and "not judged:" in head
    assert "[alias.mutability]" in text


def test_a_partial_request_among_valid_ones_is_exit_3(capsys: pytest.CaptureFixture) -> None:
    dense = {"source": md("64x64xf16", SW), "result": md("32x64xf16", SW),
             "alias_offset_bytes": 4096}  # fmt: skip
    code, text = check([dense], capsys=capsys)
    assert code == 0 and text.startswith("valid under safe") and "not judged" not in text
    code, text = check([dense, REQUESTS["shared_linear"]], capsys=capsys)
    assert code == 3
    assert "request[0]: valid under safe\n" in text and "request[1]: PARTIAL" in text


def test_exit_3_end_to_end() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "alias_spec", "check", "-", "--no-fix"],
        input=json.dumps(REQUESTS["padded_shared"]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert p.returncode == 3, p.stderr
    assert "PARTIAL" in p.stdout
    help_text = subprocess.run(
        [sys.executable, "-m", "alias_spec", "check", "--help"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    ).stdout  # fmt: skip
    assert "3 no rule fires" in " ".join(help_text.split())


# --- a stock view in tensor memory has no alias scope -----------------------------------------


def test_stock_view_in_tensor_memory_is_not_alias_mode(capsys: pytest.CaptureFixture) -> None:
    view = REQUESTS["tensor_memory_encoding"]
    for profile in ("safe", "flagtree"):
        assert "alias.scope.smem" not in check_facts(parse_request(view).facts, profile).rule_ids()
    code, text = check(view, "--json", capsys=capsys)
    verdict = json.loads(text)
    assert "alias.scope.smem" not in [v["rule"] for v in verdict["violations"]]
    assert "alias.scope.smem" not in verdict["not_judged"]
    # tle.memdesc_alias in tensor memory is alias mode: the rule still fires for it.
    alias = {"source": view["source"], "result": md("64x64xf32", TMEM_ENC, TMEM)}
    assert "alias.scope.smem" in check_facts(parse_request(alias).facts, "safe").rule_ids()
    code, text = check(alias, "--json", capsys=capsys)
    assert code == 1 and "alias.scope.smem" in [v["rule"] for v in json.loads(text)["violations"]]


def test_scope_rule_is_in_the_alias_profiles() -> None:
    assert "alias.scope.smem" in [r.id for r in rules_for("safe")]


# --- an attribute alias the input does not define ---------------------------------------------

UNDEFINED = {
    "tle.memdesc_alias": {"source": md("64x64xf16", "#shared"),
                          "result": md("32x64xf16", "#shared"), "alias_offset_bytes": 4096},
    "ttg.memdesc_index": {"op": "ttg.memdesc_index", "index": 1,
                          "source": md("2x64x64xf16", "#shared"), "result": md("64x64xf16", "#shared")},
}  # fmt: skip


@pytest.mark.parametrize("op", sorted(UNDEFINED))
def test_undefined_alias_is_partial(op: str, capsys: pytest.CaptureFixture) -> None:
    """Where an undefined alias puts its bytes is unknown: the rules that need it are not
    judged (never "valid"), a note names the alias, and defining it judges every rule."""
    profile = "safe" if op == "tle.memdesc_alias" else "triton-3.9"
    code, text = check(UNDEFINED[op], "--profile", profile, "--json", capsys=capsys)
    verdict = json.loads(text)
    assert code == 3 and verdict["status"] == "partial", verdict
    assert verdict["not_judged"] and all(_needs_bytes(r) for r in verdict["not_judged"])
    assert "#shared (an undefined attribute alias)" in verdict["not_judged_reason"]
    assert any("#shared is an undefined attribute alias" in n for n in verdict["notes"])
    defined = dict(UNDEFINED[op], attributes={"#shared": SW})
    code, text = check(defined, "--profile", profile, "--json", capsys=capsys)
    assert code == 0 and json.loads(text)["status"] == "valid", text


def test_undefined_alias_names_may_differ_in_encoding() -> None:
    """Two undefined aliases may name different encodings: same_enc is known only for one
    name on both sides, so the encoding rules are not judged on two names."""
    same = dict(UNDEFINED["ttg.memdesc_index"])
    other = dict(same, result=md("64x64xf16", "#shared1"))
    assert "same_enc" not in parse_request(same).unknown
    assert "same_enc" in parse_request(other).unknown


def test_lint_leaves_the_same_rules_unjudged_as_check(capsys: pytest.CaptureFixture) -> None:
    from alias_spec.lint.lint import lint_text

    src, res = md("64x64xf16", "#shared"), md("32x64xf16", "#shared")
    module = (
        "module {\n  tt.func @f() {\n"
        f"    %a = ttg.local_alloc : () -> {src}\n"
        f"    %b = tle.memdesc_alias %a {{offset_bytes = 4096 : i64}} : {src} -> {res}\n"
        "    tt.return\n  }\n}\n"
    )
    report = lint_text(module, "undefined.mlir", "safe")
    [notice] = report.notices
    assert notice.kind == "lint.unmodelled" and "#shared (an undefined attribute alias)" in (
        notice.message
    )
    _, text = check(UNDEFINED["tle.memdesc_alias"], "--json", capsys=capsys)
    skipped = ", ".join(sorted(json.loads(text)["not_judged"]))
    assert notice.message.endswith(f"not judged: {skipped}"), (notice.message, skipped)
