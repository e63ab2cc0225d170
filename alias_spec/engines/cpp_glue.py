"""The generated FlagTree verifier glue, compiled and run on MLIR-like types.

``alias_spec/generated/MemDescAliasOpVerify.cpp`` is the body of FlagTree's
``MemDescAliasOp::verify()``: it reads its facts from ``ttg::MemDescType``s and the
``offset_bytes`` attribute itself. Here it is compiled for real against a small executable
stand-in for MLIR (``glue/mlir_standin.h``) with a driver (``glue/glue_main.cpp``, its line
format documented there), once per profile the glue can be built for, and cached like the
harness of ``cpp_engine``. Requests are turned into *types* (shapes, alloc shapes, element
bit widths, encodings, memory spaces, the memdesc_subslice the source came from, the offset
attribute), never into facts, so the glue's own fact extraction is what gets judged: for
example a source whose dims fit in int64 but whose element count does not.

The glue's domain is what a ``tle.memdesc_alias`` op can express; a request outside it gets a
``RequestError`` saying why:

- the op exists only once the frontend accepted the call: a source that is not a buffered
  tensor, an ``init_value``, a ``tmem`` scope or an offset that is not an integer never reach
  it (and its ``offset_bytes`` is an i64 attribute: an offset outside int64 cannot be written);
- an MLIR shape holds int64 dims (``?`` is dynamic): a dim outside int64 cannot be written;
- the glue reads the source view's position only from ``ttg.memdesc_subslice`` ops (int32
  offsets, over the view's own dims): ``base_offset_bytes`` (an alias of an alias, or a
  ``memdesc_index`` start) and view offsets in leading allocation dims are not expressible;
- the allocation's alignment is derived from the source encoding: an ``alloc_alignment``
  other than that is not expressible;
- the glue computes the source footprint in int64: an allocation of more than INT64_MAX
  elements is outside it (the request model uses unbounded integers there).

Known difference from FlagTree's verifier, shared by the model and the glue: FlagTree finds
no static byte size for a source whose element type has zero bits, so it reports
alias.size.static; the catalogue's alias.size.static does not check the source element width
(no Triton element type has zero bits).

A request without a layout gets a plain (unswizzled, non-NVMMA) encoding, as the request
model reads it. Layouts the spec does not model and tensor memory are judged by the glue like
any non-NVMMA layout; the rules ``parse_request`` names in ``Request.unknown`` are the ones
the spec does not judge for such requests.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from alias_spec.engines.cpp_engine import (
    BASE_FLAGS,
    SANITIZE_FLAGS,
    CppEngineError,
    build_binary,
    compiler,
    sanitizer_env,
)
from alias_spec.model.catalogue import RULES
from alias_spec.model.dtypes import dtype_bits
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT64_MAX, SCOPES
from alias_spec.model.layouts import parse_layout
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.request import DEFAULT_OP, parse_request

HERE = Path(__file__).resolve().parent
GLUE_DIR = HERE / "glue"
STANDIN = GLUE_DIR / "mlir_standin.h"
DRIVER = GLUE_DIR / "glue_main.cpp"
GENERATED = HERE.parent / "generated"
GLUE = GENERATED / "MemDescAliasOpVerify.cpp"
RULES_HEADER = GENERATED / "alias_rules.h"
# The glue's kProfile is FlagTree's rules unless built with TLE_ALIAS_PROFILE_SAFE.
PROFILE_FLAGS: dict[str, tuple[str, ...]] = {
    "flagtree": (),
    "safe": ("-DTLE_ALIAS_PROFILE_SAFE",),
}
GLUE_PROFILES = tuple(PROFILE_FLAGS)
FIRST_ERROR_FLAG = "-DTLE_ALIAS_FIRST_ERROR_ONLY"
INT64_MIN = -(2**63)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
SPACE_TOKENS = {"smem": "smem", "tmem": "tmem", "global": "other"}
_RULE_IDS = {r.id for r in RULES}


class CppGlueError(CppEngineError):
    """The glue could not be built, or its run crashed or answered something unexpected."""


def glue_available() -> bool:
    """A C++ compiler is present and the glue's sources are in place."""
    return compiler() is not None and all(p.is_file() for p in (STANDIN, DRIVER, GLUE))


def _inputs() -> list[Path]:
    """Every header the build reads, for the cache key."""
    return [RULES_HEADER, STANDIN, *sorted((GLUE_DIR / "include").rglob("*.h"))]


def build(profile: str, sanitize: bool = False, first_error_only: bool = False) -> Path:
    """The driver binary with the glue built for ``profile``, compiled into the cache."""
    if profile not in PROFILE_FLAGS:
        raise ValueError(
            f"the glue is built only for profiles {', '.join(GLUE_PROFILES)}, not {profile!r}"
        )
    flags = [
        *BASE_FLAGS,
        *(SANITIZE_FLAGS if sanitize else ()),
        *PROFILE_FLAGS[profile],
        *((FIRST_ERROR_FLAG,) if first_error_only else ()),
    ]
    name = f"glue-{profile}{'-first' if first_error_only else ''}"
    try:
        return build_binary(
            name, [GLUE, DRIVER], [GLUE_DIR, GLUE_DIR / "include", GENERATED], flags, _inputs()
        )
    except CppEngineError as exc:
        raise CppGlueError(str(exc)) from None


# --- requests to driver lines ---------------------------------------------------------------


def _dims(value: Any, fld: str) -> str:
    """A shape already validated by parse_request, as driver dims: int64 or ?."""
    out = []
    for i, d in enumerate(value):
        if d is None or d == "?":
            out.append("?")
        elif not INT64_MIN <= d <= INT64_MAX:
            raise RequestError(
                f"{fld}[{i}]", f"{d} is outside the glue's domain: an MLIR shape holds int64 dims"
            )
        else:
            out.append(str(d))
    return ",".join(out)


def _encoding(value: Any, fld: str, aliases: dict[str, str]) -> str:
    lay = parse_layout(value, fld, aliases)
    if lay is not None and lay.kind == "nvmma":
        return f"nvmma:{lay.swizzle_bytes}:{int(lay.transposed)}:{lay.elem_bits}"
    if lay is not None and lay.kind == "swizzled":
        # The order places the bytes a subview covers (a column-major row slice is strided).
        return "swizzled:" + ",".join(map(str, lay.order)) if lay.order else "swizzled"
    return "other"  # no layout, an undefined alias or one the spec does not model


def _side_tokens(side: dict[str, Any], who: str, aliases: dict[str, str]) -> list[str]:
    shape = side["shape"]
    tokens = [f"shape={_dims(shape, f'{who}.shape')}"]
    if side.get("alloc_shape") is not None:
        tokens.append(f"alloc={_dims(side['alloc_shape'], f'{who}.alloc_shape')}")
    tokens += [
        f"elem={dtype_bits(side['dtype'], f'{who}.dtype')}",
        f"enc={_encoding(side.get('layout'), f'{who}.layout', aliases)}",
        f"space={SPACE_TOKENS[side.get('space', 'smem')]}",
        f"mutable={1 if side.get('mutable', True) else 0}",
    ]
    return tokens


def _subslice(src: dict[str, Any]) -> list[str]:
    """The memdesc_subslice the source view came from (its offsets over the view's dims)."""
    offsets = src.get("view_offsets")
    if offsets is None:
        return []
    view_rank = len(src["shape"])
    lead, own = offsets[: len(offsets) - view_rank], offsets[len(offsets) - view_rank :]
    if any(lead):
        raise RequestError(
            "source.view_offsets",
            "outside the glue's domain: offsets in leading allocation dims need a "
            "memdesc_index, whose start the glue does not read",
        )
    for i, o in enumerate(own):
        if not INT32_MIN <= o <= INT32_MAX:
            raise RequestError(
                f"source.view_offsets[{len(lead) + i}]",
                "outside the glue's domain: memdesc_subslice offsets are int32",
            )
    return [f"sub={','.join(str(o) for o in own)}"]


def encode(obj: Any) -> str:
    """The driver line for one request; RequestError when it is malformed or the op cannot
    express it (see the module docstring)."""
    req = parse_request(obj)  # validates every field first
    if obj.get("op", DEFAULT_OP) != DEFAULT_OP:
        raise RequestError("op", f"the glue verifies only {DEFAULT_OP}, not {obj['op']}")
    facts = req.facts
    if not facts["src_buffered"]:
        raise RequestError(
            "source.kind", "outside the glue's domain: the frontend rejects it before any op exists"
        )
    if facts["init_given"]:
        raise RequestError(
            "init_value", "outside the glue's domain: tle.memdesc_alias has no init_value"
        )
    if facts["scope"] != SCOPES["smem"]:
        raise RequestError(
            "scope", "outside the glue's domain: the frontend rejects it before any op exists"
        )
    offset = obj.get("alias_offset_bytes", 0)
    if not facts["off_int"]:
        raise RequestError(
            "alias_offset_bytes",
            "outside the glue's domain: offset_bytes is an integer attribute",
        )
    if not INT64_MIN <= offset <= INT64_MAX:
        raise RequestError(
            "alias_offset_bytes", "outside the glue's domain: offset_bytes is an i64 attribute"
        )
    aliases: dict[str, str] = obj.get("attributes") or {}
    sides = {}
    for who in ("source", "result"):
        side = obj[who]
        sides[who] = parse_memdesc(side, who, aliases) if isinstance(side, str) else side
    src = sides["source"]
    if src.get("base_offset_bytes", 0) != 0:
        raise RequestError(
            "source.base_offset_bytes",
            "outside the glue's domain: the op's source type does not say where its base lies",
        )
    if "alloc_alignment" in src:
        derived = parse_request(
            {
                **obj,
                "source": {k: v for k, v in src.items() if k != "alloc_alignment"},
            }
        ).facts["align"]
        if derived != facts["align"]:
            raise RequestError(
                "source.alloc_alignment",
                f"outside the glue's domain: the glue derives {derived} from the source encoding",
            )
    tokens = ["src", *_side_tokens(src, "source", aliases)]
    if facts["src_static"]:
        alloc = src.get("alloc_shape") or src["shape"]
        count = 1
        for d in alloc:
            count *= d
        if count > INT64_MAX:
            raise RequestError(
                "source.alloc_shape",
                "outside the glue's domain: its footprint needs the allocation's element "
                "count in int64",
            )
        tokens += _subslice(src)
    tokens += ["res", *_side_tokens(sides["result"], "result", aliases)]
    tokens.append(f"off={offset}:64")
    return " ".join(tokens)


# --- running ----------------------------------------------------------------------------------


def run_lines(
    lines: Sequence[str],
    profile: str,
    sanitize: bool = False,
    first_error_only: bool = False,
    messages: bool = False,
) -> list[str]:
    """The driver's output line for each input line, from one run."""
    if not lines:
        return []
    if any("\n" in line for line in lines):
        raise ValueError("a driver line must not contain a newline")
    binary = build(profile, sanitize, first_error_only)
    try:
        proc = subprocess.run(
            [str(binary), *(["--messages"] if messages else [])],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            env=sanitizer_env() if sanitize else None,
            check=False,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CppGlueError(f"running the glue failed: {exc}") from None
    if proc.returncode != 0 or proc.stderr.strip():
        raise CppGlueError(
            f"glue driver exited with {proc.returncode}:\n{proc.stderr[-4000:] or '(no output)'}"
        )
    out = proc.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        raise CppGlueError(f"glue driver answered {len(out)} lines for {len(lines)} ops")
    return out


def judge(
    requests: Sequence[Mapping[str, Any]],
    profile: str,
    *,
    sanitize: bool = False,
    first_error_only: bool = False,
) -> list[list[str] | RequestError]:
    """Per request, the rule ids of the op errors the glue built for ``profile`` emits (in
    emission order, which is catalogue order), or the RequestError saying why the request is
    malformed or outside the glue's domain. All requests run through one driver process."""
    if profile not in PROFILE_FLAGS:
        raise ValueError(
            f"the glue is built only for profiles {', '.join(GLUE_PROFILES)}, not {profile!r}"
        )
    results: list[list[str] | RequestError] = []
    lines: list[str] = []
    slots: list[int] = []
    for obj in requests:
        try:
            line = encode(obj)
        except RequestError as exc:
            results.append(exc)
            continue
        slots.append(len(results))
        results.append([])
        lines.append(line)
    for slot, row in zip(slots, run_lines(lines, profile, sanitize, first_error_only), strict=True):
        ids = row.split()
        unknown = [i for i in ids if i not in _RULE_IDS]
        if unknown:
            raise CppGlueError(f"the glue emitted errors without a rule id: {unknown}")
        results[slot] = ids
    return results
