"""Renamed request fields: the old name is still read for one minor version, with a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alias_spec import api
from alias_spec.model.errors import RequestError
from alias_spec.model.layouts import parse_layout
from alias_spec.model.request import parse_request

NOTE = (
    "source.layout.element_bits is deprecated, read as element_bitwidth (renamed in 0.2.0; "
    "the old name is refused from 0.3.0)"
)


def _req(layout: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": {"shape": [64, 64], "dtype": "fp16", "layout": layout},
        "result": {"shape": [32, 64], "dtype": "fp16"},
        "alias_offset_bytes": 1024,
    }


def _check(tmp_path: Path, req: dict[str, Any], *flags: str) -> int:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(req))
    return api.run(["check", str(path), "--no-fix", *flags])


def test_element_bits_is_read_as_element_bitwidth() -> None:
    old = parse_layout({"kind": "nvmma", "element_bits": 16}, "layout")
    new = parse_layout({"kind": "nvmma", "element_bitwidth": 16}, "layout")
    assert old == new and old is not None and old.elem_bits == 16


def test_the_old_name_gives_one_note_in_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    req = _req({"kind": "nvmma", "swizzle_bytes": 128, "element_bits": 16})
    assert parse_request(req).notes == (NOTE,)
    assert _check(tmp_path, req, "--json") == 0
    assert json.loads(capsys.readouterr().out)["notes"] == [NOTE]
    assert _check(tmp_path, req) == 0  # human output: the note under the verdict, on stdout
    assert capsys.readouterr().out == f"valid under safe\n  note: {NOTE}\n"


def test_the_new_name_gives_no_note() -> None:
    req = _req({"kind": "nvmma", "swizzle_bytes": 128, "element_bitwidth": 16})
    assert parse_request(req).notes == ()


def test_both_names_with_one_value_are_accepted() -> None:
    req = _req({"kind": "nvmma", "element_bits": 16, "element_bitwidth": 16})
    assert parse_request(req).notes == (NOTE,)


def test_both_names_with_two_values_are_an_error_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    req = _req({"kind": "nvmma", "element_bits": 16, "element_bitwidth": 8})
    with pytest.raises(RequestError) as exc:
        parse_request(req)
    assert exc.value.field == "source.layout.element_bits"
    assert _check(tmp_path, req) == 2
    err = capsys.readouterr().err
    where = tmp_path / "request.json"
    assert err.startswith(f"alias-spec: error: {where}: source.layout.element_bits: ")
    assert "element_bitwidth" in err and err.count("\n") == 1


def test_the_old_name_of_a_swizzled_layout_is_still_unknown() -> None:
    with pytest.raises(RequestError) as exc:
        parse_request(_req({"kind": "swizzled", "element_bits": 16}))
    assert exc.value.field == "source.layout.element_bits"


def test_cli_judge_keeps_its_pre_0_2_form() -> None:
    """``alias_spec.cli.judge(request, profile, engine_name)`` worked before 0.2.0 moved the
    verdict to ``alias_spec.api``; it keeps working for one release."""
    from alias_spec.cli import implications, judge
    from alias_spec.model.request import parse_request

    req = parse_request({"source": {"shape": [16], "dtype": "i8"},
                         "result": {"shape": [32], "dtype": "i8"}, "alias_offset_bytes": 0})  # fmt: skip
    verdict = judge(req, "safe", "python")
    assert "alias.range.fits" in verdict.rule_ids()
    assert isinstance(implications(req, verdict), dict)
