"""One physical model: each fact is defined once and imported everywhere else.

* dtypes: ``alias_spec/model/dtypes.py`` is the only table of element types; no other module
  keeps a dict keyed by dtype names (or by widths with dtype names as values).
* element bytes: ``facts.DEFINITIONS`` defines them (``src_eb``/``res_eb``); Python code calls
  ``facts.elem_bytes`` (that definition, evaluated) instead of writing ``(bits + 7) // 8`` or
  ``bits // 8`` again.
* the frontend's placement (``frontend/tle/place.py``) computes the model's footprint and the
  model's layout alignments.
"""

from __future__ import annotations

import ast
import itertools
import math
from pathlib import Path

import pytest

from alias_spec.frontend.tle import place
from alias_spec.model import dsl, physical
from alias_spec.model.dtypes import BY_NAME, DTYPE_BITS, GPU_DTYPES, TABLE, WIDTHS
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import DEFINITIONS, elem_bytes, expand
from alias_spec.model.layouts import NVMMA_SWIZZLES, parse_layout
from alias_spec.model.request import parse_request
from tests.paths import GPU, ROOT

SCANNED = [ROOT / "alias_spec", GPU]
SKIPPED = {ROOT / "alias_spec" / "generated"}  # rendered from the DSL definitions
DTYPE_HOME = ROOT / "alias_spec" / "model" / "dtypes.py"
# Divisions by 8 of a bit width that are not the spec's element bytes, each with its reason.
# An entry that no longer matches anything fails the test, so the list cannot go stale.
ALLOWED_BIT_DIVISIONS = {
    # Triton's own NVMMA offset computation (elementBitWidth / 8, at least 1), which the
    # Triton rules model as Triton computes it, not the spec's ceil(bits / 8).
    ("alias_spec/model/triton_facts.py", "bits // 8"),
    # The packed lower bound (any layout takes at least this), not bytes per element.
    ("alias_spec/model/physical.py", "(bits * count + 7) // 8"),
}


def _sources() -> list[tuple[Path, str]]:
    out = []
    for top in SCANNED:
        for path in sorted(top.rglob("*.py")):
            if not any(path.is_relative_to(s) for s in SKIPPED):
                out.append((path, path.read_text()))
    return out


def _is_dtype_name(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in BY_NAME


def dtype_tables(text: str) -> list[int]:
    """Lines of dict literals that tabulate element types: two or more dtype-name keys, or
    int keys mapping to two or more dtype names (a width -> name table)."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Dict):
            continue
        named_keys = sum(_is_dtype_name(k) for k in node.keys)
        int_keys = all(isinstance(k, ast.Constant) and type(k.value) is int for k in node.keys)
        named_values = sum(_is_dtype_name(v) for v in node.values)
        if named_keys >= 2 or (node.keys and int_keys and named_values >= 2):
            out.append(node.lineno)
    return out


def _mentions_bits(node: ast.AST) -> bool:
    """The expression reads a bit width: a name, attribute or string key mentioning bits."""
    for n in ast.walk(node):
        text = (
            n.id
            if isinstance(n, ast.Name)
            else n.attr
            if isinstance(n, ast.Attribute)
            else n.value
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            else ""
        )
        if "bit" in text.lower():
            return True
    return False


def _const(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def element_byte_formulas(text: str) -> list[tuple[int, str]]:
    """(line, source) of hand-written element bytes: ``(x + 7) // 8`` anywhere, and
    ``x // 8`` where x reads a bit width."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)):
            continue
        if not _const(node.right, 8):
            continue
        left = node.left
        ceil = (
            isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add) and _const(left.right, 7)
        )
        if ceil or _mentions_bits(left):
            out.append((node.lineno, ast.get_source_segment(text, node) or ""))
    return out


# --- the scanners can fail ------------------------------------------------------------------


def test_scanners_see_planted_copies() -> None:
    planted = (
        'BITS = {"f16": 16, "bf16": 16}\n'
        'NAMES = {8: "i8", 16: "fp16"}\n'
        "def eb(bits):\n"
        "    return (bits + 7) // 8\n"
        "def eb2(f):\n"
        '    return f["res_bits"] // 8\n'
    )
    assert dtype_tables(planted) == [1, 2]
    assert [line for line, _ in element_byte_formulas(planted)] == [4, 6]
    innocent = 'SHAPES = {"a": 1, "b": 2}\nrows = n // 8\nk = {1: "x", 2: "y"}\n'
    assert dtype_tables(innocent) == [] and element_byte_formulas(innocent) == []


# --- one dtype table, one element-byte definition -------------------------------------------


def test_one_dtype_table() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path, text in _sources()
        if path != DTYPE_HOME
        for line in dtype_tables(text)
    ]
    assert not found, "dtype tables outside alias_spec/model/dtypes.py:\n" + "\n".join(found)


def test_no_hand_written_element_bytes() -> None:
    found, used = [], set()
    for path, text in _sources():
        rel = str(path.relative_to(ROOT))
        for line, src in element_byte_formulas(text):
            if (rel, src) in ALLOWED_BIT_DIVISIONS:
                used.add((rel, src))
            else:
                found.append(f"{rel}:{line}: {src}")
    assert not found, "use alias_spec.model.facts.elem_bytes:\n" + "\n".join(found)
    assert used == ALLOWED_BIT_DIVISIONS, (
        f"stale allow-list entries: {ALLOWED_BIT_DIVISIONS - used}"
    )


def test_elem_bytes_is_the_definition() -> None:
    """elem_bytes agrees with both DSL definitions and with what they mean, ceil(bits / 8)."""
    defs = {name: text for name, text, _ in DEFINITIONS}
    assert defs["src_eb"].replace("src_", "") == defs["res_eb"].replace("res_", "")
    for bits in [*range(0, 130), *WIDTHS, 2**31 - 1, 2**31]:
        want = math.ceil(bits / 8)
        assert elem_bytes(bits) == want
        assert dsl.evaluate(expand("src_eb"), {"src_bits": bits}) == want
        assert dsl.evaluate(expand("res_eb"), {"res_bits": bits}) == want


def test_dtype_table_is_consistent() -> None:
    names = [n for d in TABLE for n in d.names]
    assert len(names) == len(set(names)), "a spelling names two types"
    assert set(DTYPE_BITS) == set(names)
    for name in GPU_DTYPES:
        d = BY_NAME[name]
        assert d.triton == name and d.gluon and d.torch and d.bits % 8 == 0


def test_dtype_widths_match_gluon() -> None:
    """The table's widths are Triton's own (an independent source)."""
    gl = pytest.importorskip("triton.experimental.gluon.language")
    for d in TABLE:
        if d.gluon:
            assert getattr(gl, d.gluon).primitive_bitwidth == d.bits, d.mlir


# --- the frontend computes the model's footprint and alignments -----------------------------


def _views(max_rank: int = 3, max_dim: int = 3):
    """Every (shape, block, offsets) with block dims 1..max_dim, leading dims outside the view
    and every placement of the view inside the block."""
    for rank in range(1, max_rank + 1):
        for block in itertools.product(range(1, max_dim + 1), repeat=rank):
            for lead in range(rank):
                sizes = [range(1, 2) if i < lead else range(0, b + 1) for i, b in enumerate(block)]
                for dims in itertools.product(*sizes):
                    starts = [range(0, b - s + 1) for b, s in zip(block, dims, strict=True)]
                    for offsets in itertools.product(*starts):
                        yield list(dims[lead:]), list(block), list(offsets)


def test_frontend_footprint_is_the_model() -> None:
    assert place.Footprint is physical.Footprint
    n = 0
    for shape, block, offsets in [*_views(), ([2, 2, 2, 2], [3, 3, 3, 3], [0, 0, 0, 0])]:
        n += 1
        try:
            want = physical.footprint(shape, block, offsets)
        except RequestError:
            with pytest.raises(place.PlaceError):
                place.footprint(tuple(shape), tuple(block), tuple(offsets))
            continue
        got = place.footprint(tuple(shape), tuple(block), tuple(offsets))
        assert got.facts() == want.facts(), (shape, block, offsets)
    assert n > 1000


@pytest.mark.parametrize("swizzle", NVMMA_SWIZZLES)
def test_frontend_layout_alignment_is_the_model(swizzle: int) -> None:
    """The frontend's swizzle repeat and default allocation alignment for an NVMMA layout are
    the request parser's (the ``swz`` and ``align`` facts)."""
    info = place.LayoutInfo("nvmma", 2, swizzle_bytes=swizzle, bits=16)
    lay = parse_layout({"kind": "nvmma", "swizzle_bytes": swizzle}, "layout")
    assert lay is not None and info.swizzle_repeat == lay.swizzle_repeat
    side = {
        "shape": [64, 64],
        "dtype": "fp16",
        "layout": {"kind": "nvmma", "swizzle_bytes": swizzle},
    }
    facts = parse_request({"source": side, "result": side}).facts
    assert info.base_alignment == facts["align"]
    assert info.swizzle_repeat == facts["swz"]
