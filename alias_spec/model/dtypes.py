"""Element types: Triton and MLIR spellings to bit widths."""

from __future__ import annotations

from typing import Any

from alias_spec.model.errors import RequestError

_BITS: dict[int, tuple[str, ...]] = {
    1: ("i1", "int1"),
    8: (
        "i8",
        "int8",
        "u8",
        "uint8",
        "ui8",
        "si8",
        "fp8e4nv",
        "fp8e5",
        "fp8e4b15",
        "fp8e4b8",
        "fp8e5b16",
        "f8E4M3FN",
        "f8E5M2",
        "f8E4M3FNUZ",
        "f8E5M2FNUZ",
        "f8E4M3B11FNUZ",
    ),
    16: ("i16", "int16", "u16", "uint16", "ui16", "fp16", "bf16", "f16", "float16", "bfloat16"),
    32: ("i32", "int32", "u32", "uint32", "ui32", "fp32", "f32", "float32", "tf32"),
    64: ("i64", "int64", "u64", "uint64", "ui64", "fp64", "f64", "float64"),
}
DTYPE_BITS: dict[str, int] = {name: bits for bits, names in _BITS.items() for name in names}


def dtype_bits(value: Any, field: str) -> int:
    """Bit width of a dtype given by name or as ``{"bits": N}``."""
    if isinstance(value, str):
        if value in DTYPE_BITS:
            return DTYPE_BITS[value]
        raise RequestError(
            field, f'unknown dtype {value!r}; use a Triton or MLIR name or {{"bits": N}}'
        )
    if isinstance(value, dict):
        bits = value.get("bits")
        if set(value) != {"bits"} or isinstance(bits, bool) or not isinstance(bits, int):
            raise RequestError(field, 'a dtype object must be {"bits": N} with N an integer')
        if bits < 0 or bits > 2**31:
            raise RequestError(field, f"bits must be between 0 and 2^31, got {bits}")
        return bits
    raise RequestError(field, f'dtype must be a name or {{"bits": N}}, got {type(value).__name__}')
