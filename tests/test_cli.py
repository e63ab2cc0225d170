"""The command line: exit codes, JSON shapes, malformed input never crashes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from alias_spec.api import DEFAULT_ENGINE
from alias_spec.api import run as main
from alias_spec.engines import registry
from tests.paths import ROOT


def run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "alias_spec", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_example_is_valid() -> None:
    p = run(["check", "examples/request.json"])
    assert p.returncode == 0, p.stderr
    assert "valid under safe" in p.stdout


def test_bad_examples_explain_and_fix() -> None:
    p = run(["check", "examples/requests-bad.json", "--json"])
    assert p.returncode == 1
    out = json.loads(p.stdout)
    first = out[0]
    assert first["valid"] is False and first["profile"] == "safe"
    assert first["engine"] == DEFAULT_ENGINE
    rules = [v["rule"] for v in first["violations"]]
    assert rules[:2] == ["alias.offset.aligned", "alias.range.fits"]
    # 4097 is neither aligned nor in range; the nearest offset satisfying every rule is 4096.
    assert first["violations"][0]["fix"] == {"alias_offset_bytes": 4096}
    human = run(["check", "examples/requests-bad.json"]).stdout
    assert "fix: alias_offset_bytes=4096" in human and "why:" in human


@pytest.mark.parametrize("engine", registry.NAMES)
def test_engines_agree_on_example(engine: str) -> None:
    p = run(["check", "examples/requests-bad.json", "--json", "--engine", engine, "--no-fix"])
    assert p.returncode == 1, p.stderr
    out = json.loads(p.stdout)
    assert out[1]["engine"] == engine
    assert [v["rule"] for v in out[1]["violations"]] == ["alias.range.physical"]


def test_profile_flagtree_accepts_gap_straddling_alias() -> None:
    p = run(["check", "-", "--profile", "flagtree", "--json"], stdin=json.dumps(
        {"source": {"shape": [4, 32], "alloc_shape": [4, 64], "dtype": "fp32"},
         "result": {"shape": [48], "dtype": "fp32"}}))  # fmt: skip
    assert p.returncode == 0 and json.loads(p.stdout)["valid"] is True


MALFORMED = [
    ("{", "input"),
    ("[]", "no requests"),
    ('"text"', "request"),
    ('{"result": {"shape": [1], "dtype": "i8"}}', "source"),
    ('{"source": {"shape": [1], "dtype": "i8"}}', "result"),
    (
        '{"source": {"shape": "x", "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.shape",
    ),
    (
        '{"source": {"shape": [true], "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.shape[0]",
    ),
    (
        '{"source": {"shape": [1], "dtype": "q7"}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.dtype",
    ),
    (
        '{"source": {"shape": [1], "dtype": {"bits": -3}}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.dtype",
    ),
    (
        '{"source": {"shape": [1], "dtype": {"bits": true}}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.dtype",
    ),
    (
        '{"source": {"shape": [1], "dtype": "i8", "space": "l2"}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.space",
    ),
    (
        '{"source": {"shape": [1], "dtype": "i8", "mutable": 1}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.mutable",
    ),
    (
        '{"source": {"shape": [1], "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}, "scope": 0}',
        "scope",
    ),
    (
        '{"source": {"shape": [1], "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}, "extra": 1}',
        "extra",
    ),
    ('{"source": "!ttg.memdesc<4xf16", "result": {"shape": [1], "dtype": "i8"}}', "source"),
    (
        '{"source": "!ttg.memdesc<4xq16, #s, #smem>", "result": {"shape": [1], "dtype": "i8"}}',
        "source.dtype",
    ),
    (
        '{"source": "!ttg.memdesc<4xf16, #s, #l2>", "result": {"shape": [1], "dtype": "i8"}}',
        "source",
    ),
    (
        '{"source": {"shape": [4], "dtype": "i8", "view_offsets": [1]}, '
        '"result": {"shape": [1], "dtype": "i8"}}',
        "source.view_offsets",
    ),
    (
        '{"source": {"shape": [4], "dtype": "i8", "alloc_alignment": 0}, '
        '"result": {"shape": [1], "dtype": "i8"}}',
        "source.alloc_alignment",
    ),
    (
        '{"source": {"shape": [1], "dtype": "i8", "layout": {"kind": "nvmma", "swizzle_bytes": 48}},'
        ' "result": {"shape": [1], "dtype": "i8"}}',
        "source.layout",
    ),
    # Layout parameters Triton's view rules read: integers in range, true/false.
    (
        '{"op": "ttg.memdesc_reinterpret", "source": "!ttg.memdesc<16x16xf16, '
        '#ttg.swizzled_shared<{vec =Phase = 1, order = [1, 0]}>, #ttg.shared_memory>", '
        '"result": "!ttg.memdesc<16x16xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, '
        'maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory>"}',
        "source.layout.vec",
    ),
    (
        '{"op": "ttg.memdesc_reinterpret", "source": "!ttg.memdesc<16x16xf16, '
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, "
        '#ttg.shared_memory>", "result": "!ttg.memdesc<16x16xf16, #ttg.swizzled_shared<{vec = 1, '
        'perPhase = 1, maxPhase = 0, order = [1, 0]}>, #ttg.shared_memory>"}',
        "result.layout.maxPhase",
    ),
    (
        '{"op": "ttg.memdesc_index", "index": 0, "source": "!ttg.memdesc<2x16x16xf16, '
        "#ttg.swizzled_shared<{vec = 99999999999, perPhase = 1, maxPhase = 1, order = [1, 0]}>, "
        '#ttg.shared_memory>", "result": "!ttg.memdesc<16x16xf16, #ttg.swizzled_shared<{vec = 1, '
        'perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory>"}',
        "source.layout.vec",
    ),
    (
        '{"source": {"shape": [16], "dtype": "i8"}, "alias_offset_bytes": 0, "result": '
        '"!ttg.memdesc<16x16xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = maybe, '
        'elementBitWidth = 16}>, #ttg.shared_memory>"}',
        "result.layout.transposed",
    ),
    (
        '{"source": {"shape": [16], "dtype": "i8", "layout": {"kind": "swizzled", "vec": true, '
        '"order": [0]}}, "result": {"shape": [1], "dtype": "i8"}}',
        "source.layout.vec",
    ),
    ("[" * 100000 + "]" * 100000, "input"),
    (
        '{"source": {"shape": [1], "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}, '
        '"alias_offset_bytes": ' + "9" * 5000 + "}",
        "input",
    ),
]


@pytest.mark.parametrize("text,field", MALFORMED, ids=[f for _, f in MALFORMED])
def test_malformed_input_is_one_line_exit_2(text: str, field: str, capsys) -> None:
    import io

    sys_stdin = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        code = main(["check", "-", "--engine", "interp", "--no-fix"])
    finally:
        sys.stdin = sys_stdin
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("alias-spec: error:")
    assert field in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "offset,rule",
    [(True, "alias.offset.constexpr"), (1.5, "alias.offset.constexpr"),
     ("8", "alias.offset.constexpr"), ([8], "alias.offset.constexpr"),
     ({"v": 8}, "alias.offset.constexpr"), (None, "alias.offset.constexpr"),
     (-(2**80), "alias.offset.nonneg"), (2**80, "alias.offset.i32")],
)  # fmt: skip
def test_any_offset_json_is_judged(offset: object, rule: str) -> None:
    req = {"source": {"shape": [64], "dtype": "i8"}, "result": {"shape": [4], "dtype": "i8"},
           "alias_offset_bytes": offset}  # fmt: skip
    p = run(["check", "-", "--json", "--profile", "flagtree"], stdin=json.dumps(req))
    assert p.returncode == 1, p.stderr
    assert rule in [v["rule"] for v in json.loads(p.stdout)["violations"]]


def test_missing_file_is_exit_2() -> None:
    p = run(["check", "does-not-exist.json"])
    assert p.returncode == 2
    assert p.stderr.startswith("alias-spec: error: does-not-exist.json: cannot read: ")


def test_rules_json_lists_catalogue() -> None:
    p = run(["rules", "--json"])
    rules = json.loads(p.stdout)["rules"]
    ids = [r["id"] for r in rules]
    assert "alias.range.physical" in ids and len(ids) == len(set(ids))
    assert all({"id", "title", "profiles", "formula", "message"} <= set(r) for r in rules)
    human = run(["rules", "--profile", "flagtree"]).stdout
    assert "alias.range.fits" in human and "alias.range.physical" not in human


def test_help_names_every_command() -> None:
    out = run(["--help"]).stdout
    for cmd in ("check", "rules", "prove", "gen", "fuzz", "lint", "docs"):
        assert cmd in out
