"""The request's JSON Schema (``alias-spec schema``): every documented request validates, and
the schema's fields are the fields the request reader knows."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from alias_spec import api
from alias_spec.model import request as reader
from alias_spec.model.errors import RequestError
from alias_spec.model.layouts import JSON_DEFAULTS, RENAMED
from alias_spec.model.schema import SCHEMA_JSON, request_schema, schema_text
from tests.paths import CASES, COMPAT, ROOT

FENCE = re.compile(r"^ *```json[^\n]*\n(.*?)^ *```$", re.S | re.M)
VALIDATOR = jsonschema.Draft202012Validator(request_schema())


def _is_request(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(i, dict) and "source" in i for i in items)


def _documented() -> list[Any]:
    """(where, JSON) of every request the README, the docs pages and examples/ show."""
    out = []
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text()
        for m in FENCE.finditer(text):
            data = json.loads(m.group(1))
            if _is_request(data):
                line = text[: m.start()].count("\n") + 1
                out.append(pytest.param(data, id=f"{page.relative_to(ROOT)}:{line}"))
    for path in sorted((ROOT / "examples").glob("*.json")):
        out.append(pytest.param(json.loads(path.read_text()), id=str(path.relative_to(ROOT))))
    return out


DOCUMENTED = _documented()


def test_the_schema_is_a_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(request_schema())


def test_there_are_documented_requests_of_each_kind() -> None:
    ids = [p.id for p in DOCUMENTED]
    assert any(i.startswith("README.md") for i in ids)
    assert any(i.startswith("docs/") for i in ids)
    assert {"examples/request.json", "examples/requests-bad.json"} <= set(ids)
    ops = {
        r.get("op")
        for p in DOCUMENTED
        for r in (p.values[0] if isinstance(p.values[0], list) else [p.values[0]])
    }
    assert {None, "ttg.memdesc_reinterpret"} <= ops


@pytest.mark.parametrize("data", DOCUMENTED)
def test_every_documented_request_validates(data: Any) -> None:
    assert [e.message for e in VALIDATOR.iter_errors(data)] == []


def test_every_case_and_compat_request_validates() -> None:
    cases = sorted(CASES.glob("*.json"))
    requests = [json.loads(p.read_text())["request"] for p in cases]
    compat = json.loads((COMPAT / "requests.json").read_text())["requests"]
    requests += [e["request"] for e in compat if "request" in e]
    assert len(requests) > 60
    bad = [r for r in requests if not VALIDATOR.is_valid(r)]
    assert bad == []


def _props(name: str) -> set[str]:
    return set(request_schema()["$defs"][name]["properties"])


def test_the_schema_has_the_readers_fields() -> None:
    """Each model's fields are what request.py accepts there, no more and no less."""
    assert _props("AliasRequest") == reader.TOP_KEYS | reader.META_KEYS
    views = {"source", "result", "attributes"} | reader.META_KEYS
    assert _props("ReinterpretRequest") == views
    assert _props("SubsliceRequest") == views | reader.OP_KEYS["ttg.memdesc_subslice"]
    assert _props("IndexRequest") == views | reader.OP_KEYS["ttg.memdesc_index"]
    assert _props("Result") == reader.SIDE_KEYS
    assert _props("Source") == reader.SIDE_KEYS | reader.SOURCE_ONLY
    old = {o for o, (kind, _) in RENAMED.items() if kind == "nvmma"}
    assert _props("NvmmaLayout") == {"kind"} | set(JSON_DEFAULTS["nvmma"]) | old
    assert _props("SwizzledLayout") == {"kind"} | set(JSON_DEFAULTS["swizzled"])
    nvmma = request_schema()["$defs"]["NvmmaLayout"]["properties"]
    assert nvmma["element_bits"].get("deprecated") is True


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"source": {"shape": [4], "dtype": "fp16"}},
        {
            "source": {"shape": [4], "dtype": "fp16"},
            "result": {"shape": [4], "dtype": "fp16"},
            "offset": 0,
        },
        {
            "source": {"shape": [4], "dtype": "fp16", "size": 8},
            "result": {"shape": [4], "dtype": "fp16"},
        },
        {"source": {"shape": [4], "dtype": "fp16"}, "result": {"shape": [4], "dtype": "float17"}},
        {"source": {"shape": [], "dtype": "fp16"}, "result": {"shape": [4], "dtype": "fp16"}},
        {
            "source": {"shape": [4], "dtype": "fp16", "layout": {"kind": "padded"}},
            "result": {"shape": [4], "dtype": "fp16"},
        },
        {
            "source": {
                "shape": [4],
                "dtype": "fp16",
                "layout": {"kind": "nvmma", "swizzle_bytes": 16},
            },
            "result": {"shape": [4], "dtype": "fp16"},
        },
        {
            "source": {"shape": [4], "dtype": "fp16"},
            "result": {"shape": [4], "dtype": "fp16"},
            "op": "ttg.memdesc_subslice",
        },
        {
            "source": {"shape": [4], "dtype": "fp16"},
            "result": {"shape": [4], "dtype": "fp16"},
            "op": "ttg.memdesc_index",
            "alias_offset_bytes": 0,
        },
        {"source": "memdesc<4xf16>", "result": {"shape": [4], "dtype": "fp16"}},
        {
            "source": {"shape": [4], "dtype": "fp16"},
            "result": {"shape": [4], "dtype": "fp16"},
            "name": None,
        },
        {
            "source": {"shape": [4], "dtype": "fp16", "alloc_alignment": None},
            "result": {"shape": [4], "dtype": "fp16"},
        },
    ],
    ids=[
        "empty-list",
        "no-result",
        "unknown-top",
        "unknown-side",
        "unknown-dtype",
        "empty-shape",
        "unknown-layout-kind",
        "bad-swizzle",
        "subslice-without-offsets",
        "index-with-offset",
        "not-memdesc-text",
        "null-name",
        "null-alignment",
    ],
)
def test_what_the_reader_refuses_the_schema_refuses(data: Any) -> None:
    assert not VALIDATOR.is_valid(data)
    with pytest.raises(RequestError):
        items = reader.load_requests(json.dumps(data))
        if not items:
            raise RequestError("input", "no requests")
        for item in items:
            reader.parse_request(item)


def test_the_command_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert api.run(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == schema_text()
    assert json.loads(out) == json.loads((ROOT / SCHEMA_JSON).read_text())
    assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
