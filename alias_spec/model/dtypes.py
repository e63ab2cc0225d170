"""Element types: the one table of their spellings and bit widths.

Every other module that names an element type reads this table: the request parser (any
spelling to bits), the Triton rules ("same element type" compares MLIR spellings), witnesses
(one readable name per width), the GPU corpus (Gluon and torch attribute names). Pure Python
data, so the frontend and the GPU machine (no z3, no pydantic) import it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from alias_spec.model.errors import RequestError


@dataclass(frozen=True)
class DType:
    mlir: str  # the MLIR element type spelling (what "same element type" compares)
    bits: int
    triton: str | None = None  # Triton's short name (signature spelling), if Triton has one
    gluon: str | None = None  # attribute name in triton.experimental.gluon.language
    torch: str | None = None  # attribute name in torch, where torch has the type
    also: tuple[str, ...] = ()  # other accepted spellings

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling of this type, MLIR's first."""
        out = [self.mlir] + ([self.triton] if self.triton else []) + list(self.also)
        return tuple(dict.fromkeys(out))


# Order: by width, then as the GPU corpus samples them (GPU_DTYPES keeps this order).
TABLE: tuple[DType, ...] = (
    DType("i1", 1, "i1", "int1", "bool", ("int1",)),
    DType("i8", 8, "i8", "int8", "int8", ("int8",)),
    DType("si8", 8),
    DType("ui8", 8, "u8", "uint8", "uint8", ("uint8",)),
    DType("f8E4M3FN", 8, "fp8e4nv", "float8e4nv", "float8_e4m3fn"),
    DType("f8E5M2", 8, "fp8e5", "float8e5", "float8_e5m2"),
    DType("f8E4M3B11FNUZ", 8, "fp8e4b15", "float8e4b15"),
    DType("f8E4M3FNUZ", 8, "fp8e4b8", "float8e4b8", "float8_e4m3fnuz"),
    DType("f8E5M2FNUZ", 8, "fp8e5b16", "float8e5b16", "float8_e5m2fnuz"),
    DType("i16", 16, "i16", "int16", "int16", ("int16",)),
    DType("ui16", 16, "u16", "uint16", "uint16", ("uint16",)),
    DType("f16", 16, "fp16", "float16", "float16", ("float16",)),
    DType("bf16", 16, "bf16", "bfloat16", "bfloat16", ("bfloat16",)),
    DType("i32", 32, "i32", "int32", "int32", ("int32",)),
    DType("ui32", 32, "u32", "uint32", "uint32", ("uint32",)),
    DType("f32", 32, "fp32", "float32", "float32", ("float32",)),
    DType("tf32", 32),
    DType("i64", 64, "i64", "int64", "int64", ("int64",)),
    DType("ui64", 64, "u64", "uint64", "uint64", ("uint64",)),
    DType("f64", 64, "fp64", "float64", "float64", ("float64",)),
)

# Every element width some type has, ascending.
WIDTHS: tuple[int, ...] = tuple(sorted({d.bits for d in TABLE}))
BY_NAME: dict[str, DType] = {name: d for d in TABLE for name in d.names}
DTYPE_BITS: dict[str, int] = {name: d.bits for name, d in BY_NAME.items()}
# Any spelling to the MLIR one: two spellings name the same type exactly when these agree.
MLIR_NAME: dict[str, str] = {name: d.mlir for name, d in BY_NAME.items()}
# PTX's names of the element types wgmma reads -> the names above (widths from DTYPE_BITS).
PTX_DTYPES: dict[str, str] = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "e4m3": "f8E4M3FN",
                              "e5m2": "f8E5M2", "s8": "i8", "u8": "u8"}  # fmt: skip

# One type per width where a witness needs a name (the float type from 16 bits up).
_REPRESENTATIVE = ("i1", "i8", "f16", "f32", "f64")
REPRESENTATIVE: dict[int, DType] = {BY_NAME[n].bits: BY_NAME[n] for n in _REPRESENTATIVE}

# The element types the GPU corpus runs (Triton names, in its sampling order); each has a Gluon
# and a torch type in TABLE.
GPU_DTYPES: tuple[str, ...] = (
    "i8", "u8", "fp8e4nv", "fp8e5", "i16", "fp16", "bf16", "i32", "fp32", "i64", "fp64",
)  # fmt: skip


def triton_name(bits: int) -> str | None:
    """A readable Triton name for an element width (None where no type has that width)."""
    d = REPRESENTATIVE.get(bits)
    return d.triton if d else None


def mlir_name(bits: int) -> str | None:
    """A readable MLIR name for an element width (None where no type has that width)."""
    d = REPRESENTATIVE.get(bits)
    return d.mlir if d else None


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
