"""The JSON Schema of a request, generated from pydantic models of its form.

``request.py`` reads requests by hand (its errors name the field and say what is wrong, which
a schema validator cannot); these models restate the form it accepts, field by field, so that
``alias-spec schema`` and the docs site (``docs/request.schema.json``) publish it for editors
and other tools. ``tests/compat/test_schema.py`` ties the two together: the models' fields are
request.py's field sets, and every documented request validates.

The schema says what is a request, not what is a valid alias: a value the rules judge (an
offset that is a string, a source that is no buffered_tensor, a dtype of 0 bits) is allowed
here and judged by ``check``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.layouts import NVMMA_SWIZZLES, PARAM_MAX, RENAMED_UNTIL
from alias_spec.model.request import MAX_RANK

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

DtypeName = Literal[tuple(sorted(DTYPE_BITS))]  # type: ignore[valid-type]
Param = Annotated[int, Field(ge=0, le=PARAM_MAX)]
Positive = Annotated[int, Field(ge=1, le=PARAM_MAX)]
Dim = Annotated[
    int | Literal["?"] | None,
    Field(description="a dimension: an integer, or null / '?' for a dynamic one"),
]
Shape = Annotated[list[Dim], Field(min_length=1, max_length=MAX_RANK)]
MemdescText = Annotated[
    str,
    Field(
        pattern=r"^\s*!ttg\.memdesc<[\s\S]*>\s*$",
        description="MLIR memdesc type text, e.g. '!ttg.memdesc<64x64xbf16, #shared, #smem, "
        "mutable>' (trailing dims give the alloc shape)",
    ),
]


class _Strict(BaseModel):
    # A field request.py does not know is an error there: so it is here.
    model_config = ConfigDict(extra="forbid")


class Bits(_Strict):
    """A dtype given by its width alone."""

    bits: Annotated[int, Field(ge=0, le=2**31)]


class NvmmaLayout(_Strict):
    """An #ttg.nvmma_shared layout as JSON; each field left out takes its default."""

    kind: Literal["nvmma"]
    swizzle_bytes: Literal[NVMMA_SWIZZLES] = 128  # type: ignore[valid-type]
    transposed: bool = False
    element_bitwidth: Param = 0
    rank: Positive = 2
    element_bits: Param | None = Field(
        default=None,
        deprecated=True,
        description=f"old name of element_bitwidth, read as it with a note until {RENAMED_UNTIL}",
    )


class SwizzledLayout(_Strict):
    """A #ttg.swizzled_shared layout as JSON; each field left out takes its default."""

    kind: Literal["swizzled"]
    vec: Positive = 1
    per_phase: Positive = 1
    max_phase: Positive = 1
    order: list[Param] | None = None


LayoutValue = Annotated[
    NvmmaLayout | SwizzledLayout | str,
    Field(
        description="a JSON layout, MLIR attribute text ('#ttg.swizzled_shared<{...}>', any "
        "other attribute leaves the rules that need byte positions not judged) or an attribute "
        "alias name ('#shared') defined under 'attributes'"
    ),
]
Space = Literal["smem", "tmem", "global"]


class _Side(_Strict):
    shape: Shape
    dtype: DtypeName | Bits  # type: ignore[valid-type]
    space: Space = "smem"
    mutable: bool = True
    layout: LayoutValue | None = None
    alloc_shape: Shape | None = None


class Source(_Side):
    """The aliased view: a buffered tensor, possibly a subslice of a larger allocation."""

    kind: str = Field(
        default="buffered_tensor",
        description="'buffered_tensor'; any other kind is judged by alias.source.kind",
    )
    view_offsets: list[Annotated[int, Field(ge=0)]] | None = None
    base_offset_bytes: Annotated[int, Field(ge=0)] = 0
    # Its default is the source layout's: no one number to publish.
    alloc_alignment: int = Field(  # type: ignore[assignment]
        default=None,
        ge=1,
        description="the allocation's base alignment in bytes (default: the source layout's, "
        "16 unless NVMMA)",
        json_schema_extra=lambda s: s.pop("default", None),  # type: ignore[arg-type,misc]
    )


class Result(_Side):
    """The view the op makes."""

    kind: Literal["buffered_tensor"] = "buffered_tensor"


class _Request(_Strict):
    source: Source | MemdescText
    result: Result | MemdescText
    attributes: dict[str, str] | None = Field(
        default=None, description="attribute alias name ('#shared') -> MLIR attribute text"
    )
    name: str = ""
    description: Any = None
    expect: Any = Field(default=None, description="ignored by check (test data)")


class AliasRequest(_Request):
    """A tle.memdesc_alias request (FlagTree's tle.gpu.alloc(alias=...))."""

    op: Literal["tle.memdesc_alias"] = "tle.memdesc_alias"
    scope: Literal["smem", "tmem"] = "smem"
    alias_offset_bytes: Any = Field(
        default=0,
        description="an integer; any other value is judged by alias.offset.constexpr",
    )
    init_value: Any = Field(
        default=None, description="null or false: none given; anything else is alias.init_value"
    )


class ReinterpretRequest(_Request):
    """A stock Triton ttg.memdesc_reinterpret request."""

    op: Literal["ttg.memdesc_reinterpret"]


class SubsliceRequest(_Request):
    """A stock Triton ttg.memdesc_subslice request."""

    op: Literal["ttg.memdesc_subslice"]
    offsets: list[int]


class IndexRequest(_Request):
    """A stock Triton ttg.memdesc_index request."""

    op: Literal["ttg.memdesc_index"]
    index: int | Literal["?"] | None = Field(default=None, description="null or '?': runtime")


Request = AliasRequest | ReinterpretRequest | SubsliceRequest | IndexRequest
RequestList = Annotated[list[Request], Field(min_length=1)]
# What ``alias-spec check`` reads: one request or a non-empty list of them.
Input = Request | RequestList


def request_schema() -> dict[str, Any]:
    """The JSON Schema of ``check``'s input: a request, or a non-empty list of requests."""
    schema = TypeAdapter(Input).json_schema()
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "alias-spec request",
        "description": "Input of `alias-spec check`: one request (a tle.memdesc_alias, or a "
        "stock Triton view with 'op') or a non-empty list of requests.",
        **schema,
    }


def schema_text() -> str:
    """The schema as JSON text, as ``alias-spec schema`` prints it and the docs hold it."""
    return json.dumps(request_schema(), indent=2, sort_keys=True) + "\n"


SCHEMA_JSON = "docs/request.schema.json"
SCHEMA_PAGE = "docs/request-schema.md"


def schema_page() -> str:
    """The docs site's page of the schema (generated: ``alias-spec gen``)."""
    return f"""# Request schema

<!-- generated by `alias-spec gen` from alias_spec/model/schema.py; do not edit -->

The JSON Schema (draft 2020-12) of what `alias-spec check` reads: one request, or a non-empty
list of requests. `alias-spec schema` prints the same text; the file is
[request.schema.json](request.schema.json). Editors and other tools can validate requests with
it before `check` judges them.

The schema says what is a request, not what is a valid alias: values the rules judge (an offset
that is not an integer, a source that is not a buffered tensor, a dtype of 0 bits) are allowed
here, and `check` reports them as violations. `check`'s own errors (exit 2) name the field.
The nvmma layout field `element_bits` is the deprecated name of `element_bitwidth`: it is read
as `element_bitwidth`, with a note in the verdict, until {RENAMED_UNTIL}.

<details><summary>The schema</summary>

```json
{schema_text().rstrip()}
```

</details>
"""
