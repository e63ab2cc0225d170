# Generated from the tle-alias-spec rule catalogue by `alias-spec gen`.
# Do not edit: change alias_spec/model/catalogue.py and regenerate.

"""Alias rule checks for tle.gpu.alloc, one function per rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Violation(NamedTuple):
    rule: str
    message: str
    values: dict[str, int | bool]


class AliasError(ValueError):
    """Raised by raise_if_invalid; its text names every violated rule."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = violations
        super().__init__('; '.join(f'[{v.rule}] {v.message}' for v in violations))


class FactsError(ValueError):
    """Raised by check for a fact dict it cannot judge: names the fact."""

    def __init__(self, fact: str, problem: str) -> None:
        self.fact = fact
        super().__init__(f'facts.{fact}: {problem}')


FACTS = ('src_buffered', 'init_given', 'scope', 'src_space', 'res_space', 'src_mutable', 'res_mutable', 'off_int', 'off', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'src_start', 'src_base', 'run', 'p0', 'c0', 'p1', 'c1', 'p2', 'c2', 'align', 'swz', 'op', 'src_rank', 'src_alloc_rank', 'src_lay_rank', 'src_d0_pow2', 'src_tail_pow2', 'src_nonzero', 'src_alloc_fits', 'src_alloc_tail_pow2', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_rank', 'res_alloc_rank', 'res_lay_rank', 'res_d0_pow2', 'res_tail_pow2', 'res_nonzero', 'res_alloc_fits', 'res_alloc_tail_pow2', 'res_subview', 'res_nvmma_fits', 'res_nvmma_rows', 'same_elem', 'same_enc', 'same_alloc', 'src_prefix_sub', 'idx_static', 'idx', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_off_lt', 'sub_in_bounds', 'sub_swz_ok')
BOOL_FACTS = frozenset(('src_buffered', 'init_given', 'src_mutable', 'res_mutable', 'off_int', 'src_static', 'res_static', 'src_d0_pow2', 'src_tail_pow2', 'src_nonzero', 'src_alloc_fits', 'src_alloc_tail_pow2', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_d0_pow2', 'res_tail_pow2', 'res_nonzero', 'res_alloc_fits', 'res_alloc_tail_pow2', 'res_subview', 'res_nvmma_fits', 'res_nvmma_rows', 'same_elem', 'same_enc', 'same_alloc', 'src_prefix_sub', 'idx_static', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_off_lt', 'sub_in_bounds', 'sub_swz_ok'))
# The facts each profile's rules read: check validates exactly these.
READS = {
    'flagtree': ('src_buffered', 'init_given', 'scope', 'src_space', 'res_space', 'src_mutable', 'res_mutable', 'off_int', 'off', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'op'),
    'safe': ('src_buffered', 'init_given', 'scope', 'src_space', 'res_space', 'src_mutable', 'res_mutable', 'off_int', 'off', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'src_start', 'src_base', 'run', 'p0', 'c0', 'p1', 'c1', 'p2', 'c2', 'align', 'swz', 'op'),
    'triton-3.6': ('op', 'src_rank', 'src_alloc_rank', 'src_lay_rank', 'src_d0_pow2', 'src_tail_pow2', 'src_alloc_fits', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_rank', 'res_alloc_rank', 'res_lay_rank', 'res_tail_pow2', 'res_alloc_fits', 'res_subview', 'same_elem', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_swz_ok'),
    'triton-3.7': ('op', 'src_rank', 'src_alloc_rank', 'src_lay_rank', 'src_d0_pow2', 'src_tail_pow2', 'src_nonzero', 'src_alloc_fits', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_rank', 'res_alloc_rank', 'res_lay_rank', 'res_tail_pow2', 'res_nonzero', 'res_alloc_fits', 'res_subview', 'res_nvmma_fits', 'same_elem', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_swz_ok'),
    'triton-3.8': ('src_space', 'res_space', 'src_mutable', 'res_mutable', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'op', 'src_rank', 'src_alloc_rank', 'src_lay_rank', 'src_d0_pow2', 'src_tail_pow2', 'src_nonzero', 'src_alloc_fits', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_rank', 'res_alloc_rank', 'res_lay_rank', 'res_d0_pow2', 'res_tail_pow2', 'res_nonzero', 'res_alloc_fits', 'res_subview', 'res_nvmma_fits', 'res_nvmma_rows', 'same_elem', 'same_enc', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_off_lt', 'sub_swz_ok'),
    'triton-3.9': ('src_space', 'res_space', 'src_mutable', 'res_mutable', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'run', 'op', 'src_rank', 'src_alloc_rank', 'src_lay_rank', 'src_d0_pow2', 'src_tail_pow2', 'src_nonzero', 'src_alloc_fits', 'src_alloc_tail_pow2', 'src_subview', 'src_nvmma_fits', 'src_nvmma_rows', 'res_rank', 'res_alloc_rank', 'res_lay_rank', 'res_d0_pow2', 'res_tail_pow2', 'res_nonzero', 'res_alloc_fits', 'res_alloc_tail_pow2', 'res_subview', 'res_nvmma_fits', 'res_nvmma_rows', 'same_elem', 'same_enc', 'same_alloc', 'src_prefix_sub', 'idx_shape_ok', 'sub_rank_ok', 'sub_split', 'sub_zero_ok', 'sub_tile_ok', 'sub_in_bounds', 'sub_swz_ok'),
}


def _rule_alias_source_kind(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.source.kind: The source is a buffered tensor."""
    if not (True):
        return None
    if f['src_buffered']:
        return None
    return {}


def _rule_alias_init_value(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.init_value: No init_value with alias."""
    if not (True):
        return None
    if not f['init_given']:
        return None
    return {}


def _rule_alias_scope_smem(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.scope.smem: Shared memory only."""
    if not (f['op'] == 0):
        return None
    if f['scope'] == 0 and f['src_space'] == 0:
        return None
    return {'scope': f['scope'], 'src_space': f['src_space']}


def _rule_alias_space_match(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.space.match: Source and result share a memory space."""
    if not (True):
        return None
    if f['src_space'] == f['res_space']:
        return None
    return {'src_space': f['src_space'], 'res_space': f['res_space']}


def _rule_alias_mutability(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.mutability: No mutable alias of an immutable source."""
    if not (True):
        return None
    if f['src_mutable'] or not f['res_mutable']:
        return None
    return {'src_mutable': f['src_mutable'], 'res_mutable': f['res_mutable']}


def _rule_alias_offset_constexpr(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.constexpr: The offset is a compile-time integer."""
    if not (True):
        return None
    if f['off_int']:
        return None
    return {}


def _rule_alias_offset_nonneg(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.nonneg: The offset is non-negative."""
    if not (f['off_int']):
        return None
    if f['off'] >= 0:
        return None
    return {'off': f['off']}


def _rule_alias_offset_i32(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.i32: The offset fits in i32."""
    if not (f['off_int']):
        return None
    if f['off'] <= 2147483647:
        return None
    return {'off': f['off']}


def _rule_alias_dtype_addressable(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.dtype.addressable: The result element type is byte-addressable."""
    if not (True):
        return None
    if (f['res_bits'] + 7) // 8 >= 1:
        return None
    return {'res_bits': f['res_bits'], 'res_eb': (f['res_bits'] + 7) // 8}


def _rule_alias_offset_aligned(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.aligned: The offset is aligned to the result element width."""
    if not (f['off_int'] and (f['res_bits'] + 7) // 8 >= 1):
        return None
    if f['off'] % ((f['res_bits'] + 7) // 8) == 0:
        return None
    return {'off': f['off'], 'res_eb': (f['res_bits'] + 7) // 8}


def _rule_alias_size_static(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.size.static: Static byte sizes."""
    if not (True):
        return None
    if f['src_static'] and f['res_static'] and f['src_elems'] * ((f['src_bits'] + 7) // 8) <= 9223372036854775807 and f['res_elems'] * ((f['res_bits'] + 7) // 8) <= 9223372036854775807 and f['src_bits'] >= 1:
        return None
    return {'src_static': f['src_static'], 'res_static': f['res_static'], 'src_bits': f['src_bits'], 'src_bytes': f['src_elems'] * ((f['src_bits'] + 7) // 8), 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8)}


def _rule_alias_range_fits(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.range.fits: The result fits in the source view (logical sizes)."""
    if not (f['off_int'] and f['src_static'] and f['res_static']):
        return None
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['src_elems'] * ((f['src_bits'] + 7) // 8) and f['off'] <= f['src_elems'] * ((f['src_bits'] + 7) // 8) - f['res_elems'] * ((f['res_bits'] + 7) // 8):
        return None
    return {'off': f['off'], 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8), 'src_bytes': f['src_elems'] * ((f['src_bits'] + 7) // 8)}


def _rule_alias_range_physical(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.range.physical: The result lies in the source view's physical footprint."""
    if not (f['off_int'] and f['src_static'] and f['res_static'] and f['off'] >= 0):
        return None
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) == 0 or (f['run'] * ((f['src_bits'] + 7) // 8) >= f['res_elems'] * ((f['res_bits'] + 7) // 8) and f['off'] // (f['p0'] * ((f['src_bits'] + 7) // 8)) < f['c0'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) // (f['p1'] * ((f['src_bits'] + 7) // 8)) < f['c1'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) % (f['p1'] * ((f['src_bits'] + 7) // 8)) // (f['p2'] * ((f['src_bits'] + 7) // 8)) < f['c2'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) % (f['p1'] * ((f['src_bits'] + 7) // 8)) % (f['p2'] * ((f['src_bits'] + 7) // 8)) + f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['run'] * ((f['src_bits'] + 7) // 8)):
        return None
    return {'off': f['off'], 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8), 'run_b': f['run'] * ((f['src_bits'] + 7) // 8), 'p0_b': f['p0'] * ((f['src_bits'] + 7) // 8), 'c0': f['c0'], 'p1_b': f['p1'] * ((f['src_bits'] + 7) // 8), 'c1': f['c1'], 'p2_b': f['p2'] * ((f['src_bits'] + 7) // 8), 'c2': f['c2']}


def _rule_alias_address_aligned(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.address.aligned: The result is element-aligned in absolute address terms."""
    if not (f['off_int'] and (f['res_bits'] + 7) // 8 >= 1 and f['src_static']):
        return None
    if (f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off']) % ((f['res_bits'] + 7) // 8) == 0 and f['align'] % ((f['res_bits'] + 7) // 8) == 0:
        return None
    return {'abs_off': f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'], 'res_eb': (f['res_bits'] + 7) // 8, 'align': f['align']}


def _rule_alias_address_i32(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.address.i32: The result is 32-bit addressable from its allocation."""
    if not (f['off_int'] and f['src_static'] and f['res_static'] and f['off'] <= 2147483647):
        return None
    if f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'] + f['res_elems'] * ((f['res_bits'] + 7) // 8) <= 2147483647:
        return None
    return {'abs_off': f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'], 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8)}


def _rule_alias_base_aligned(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.base.aligned: A swizzled NVMMA result starts on a swizzle repeat."""
    if not (f['off_int'] and f['src_static']):
        return None
    if f['swz'] == 0 or ((f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off']) % f['swz'] == 0 and f['align'] % f['swz'] == 0):
        return None
    return {'abs_off': f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'], 'swz': f['swz'], 'align': f['align']}


def _rule_triton_op_stock(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.op.stock: The op exists in stock Triton."""
    if not (True):
        return None
    if f['op'] != 0:
        return None
    return {'op': f['op']}


def _rule_triton_type_rank(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.rank: A memdesc has rank >= 1."""
    if not (True):
        return None
    if f['src_rank'] >= 1 and f['res_rank'] >= 1:
        return None
    return {'src_rank': f['src_rank'], 'res_rank': f['res_rank']}


def _rule_triton_type_layout_rank(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.layout_rank: The layout rank is the shape rank or one less."""
    if not (True):
        return None
    if f['src_rank'] - f['src_lay_rank'] >= 0 and f['src_rank'] - f['src_lay_rank'] <= 1 and f['res_rank'] - f['res_lay_rank'] >= 0 and f['res_rank'] - f['res_lay_rank'] <= 1:
        return None
    return {'src_lay_rank': f['src_lay_rank'], 'src_rank': f['src_rank'], 'res_lay_rank': f['res_lay_rank'], 'res_rank': f['res_rank']}


def _rule_triton_type_alloc_rank(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.alloc_rank: The alloc shape has at least the shape's rank."""
    if not (True):
        return None
    if f['src_alloc_rank'] >= f['src_rank'] and f['res_alloc_rank'] >= f['res_rank']:
        return None
    return {'src_alloc_rank': f['src_alloc_rank'], 'src_rank': f['src_rank'], 'res_alloc_rank': f['res_alloc_rank'], 'res_rank': f['res_rank']}


def _rule_triton_type_alloc_fits(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.alloc_fits: The shape fits in the alloc shape."""
    if not (True):
        return None
    if f['src_alloc_fits'] and f['res_alloc_fits']:
        return None
    return {}


def _rule_triton_type_pow2_tail(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.pow2_tail: Every dim after the first is a power of 2."""
    if not (True):
        return None
    if f['src_tail_pow2'] and f['res_tail_pow2']:
        return None
    return {}


def _rule_triton_type_nonzero(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.nonzero: No zero dim."""
    if not (True):
        return None
    if f['src_nonzero'] and f['res_nonzero']:
        return None
    return {}


def _rule_triton_type_pow2(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.pow2: Every dim the layout covers is a power of 2."""
    if not (True):
        return None
    if f['src_tail_pow2'] and f['res_tail_pow2'] and (True if f['src_lay_rank'] < f['src_rank'] else f['src_d0_pow2']) and (True if f['res_lay_rank'] < f['res_rank'] else f['res_d0_pow2']):
        return None
    return {}


def _rule_triton_type_alloc_pow2(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.alloc_pow2: Every alloc-shape dim after the first is a power of 2."""
    if not (True):
        return None
    if f['src_alloc_tail_pow2'] and f['res_alloc_tail_pow2']:
        return None
    return {}


def _rule_triton_type_nvmma_width(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.nvmma_width: An NVMMA layout's contiguous dim spans a swizzle row."""
    if not (True):
        return None
    if f['src_nvmma_fits'] and f['res_nvmma_fits']:
        return None
    return {}


def _rule_triton_type_byte_elems(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.type.byte_elems: Shared-memory elements are whole bytes."""
    if not (True):
        return None
    if f['src_bits'] >= 8 and f['res_bits'] >= 8 and f['src_bits'] % 8 == 0 and f['res_bits'] % 8 == 0:
        return None
    return {'src_bits': f['src_bits'], 'res_bits': f['res_bits']}


def _rule_triton_reinterpret_space(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.space: Reinterpret keeps the memory space."""
    if not (f['op'] == 1):
        return None
    if f['src_space'] == f['res_space']:
        return None
    return {'src_space': f['src_space'], 'res_space': f['res_space']}


def _rule_triton_reinterpret_mutability(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.mutability: Reinterpret keeps mutability."""
    if not (f['op'] == 1):
        return None
    if f['src_mutable'] == f['res_mutable']:
        return None
    return {'src_mutable': f['src_mutable'], 'res_mutable': f['res_mutable']}


def _rule_triton_reinterpret_no_subview(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.no_subview: 3.8: neither side is a subview."""
    if not (f['op'] == 1):
        return None
    if not f['src_subview'] and not f['res_subview']:
        return None
    return {'src_subview': f['src_subview'], 'res_subview': f['res_subview']}


def _rule_triton_reinterpret_same_size(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.same_size: 3.8: the logical storage size is unchanged."""
    if not (f['op'] == 1 and f['src_static'] and f['res_static']):
        return None
    if f['src_elems'] * f['src_bits'] == f['res_elems'] * f['res_bits']:
        return None
    return {'src_elems': f['src_elems'], 'src_bits': f['src_bits'], 'res_elems': f['res_elems'], 'res_bits': f['res_bits']}


def _rule_triton_reinterpret_layout(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.layout: 3.8 aborts on some reinterprets."""
    if not (f['op'] == 1):
        return None
    if (f['src_d0_pow2'] or f['src_lay_rank'] < f['src_rank']) and (f['res_d0_pow2'] or f['res_lay_rank'] < f['res_rank']) and f['src_nvmma_rows'] and f['res_nvmma_rows']:
        return None
    return {}


def _rule_triton_reinterpret_result_subview(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.result_subview: 3.9: the result is not a subview."""
    if not (f['op'] == 1):
        return None
    if not f['res_subview']:
        return None
    return {'res_subview': f['res_subview']}


def _rule_triton_reinterpret_fits(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.fits: 3.9: the result fits in the source view."""
    if not (f['op'] == 1 and f['src_static'] and f['res_static']):
        return None
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['src_elems'] * ((f['src_bits'] + 7) // 8):
        return None
    return {'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8), 'src_bytes': f['src_elems'] * ((f['src_bits'] + 7) // 8)}


def _rule_triton_reinterpret_owned(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.owned: 3.9: a subview source owns the result's bytes."""
    if not (f['op'] == 1 and f['src_static'] and f['res_static'] and f['src_subview']):
        return None
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['run'] * ((f['src_bits'] + 7) // 8):
        return None
    return {'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8), 'run_b': f['run'] * ((f['src_bits'] + 7) // 8)}


def _rule_triton_index_elem(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.elem: Index keeps the element type."""
    if not (f['op'] == 3):
        return None
    if f['same_elem']:
        return None
    return {}


def _rule_triton_index_rank(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.rank: Index drops exactly one dim."""
    if not (f['op'] == 3):
        return None
    if f['res_rank'] + 1 == f['src_rank']:
        return None
    return {'src_rank': f['src_rank'], 'res_rank': f['res_rank']}


def _rule_triton_index_of_index(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.of_index: No index of a view with a longer alloc shape."""
    if not (f['op'] == 3):
        return None
    if f['src_alloc_rank'] == f['src_rank']:
        return None
    return {'src_alloc_rank': f['src_alloc_rank'], 'src_rank': f['src_rank']}


def _rule_triton_index_shape(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.shape: The result shape is the source shape without its first dim."""
    if not (f['op'] == 3):
        return None
    if f['idx_shape_ok']:
        return None
    return {}


def _rule_triton_index_subview(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.subview: 3.6/3.8: no index of a subview."""
    if not (f['op'] == 3):
        return None
    if not f['src_subview']:
        return None
    return {'src_subview': f['src_subview']}


def _rule_triton_index_prefix(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.prefix: 3.9: only a leading-dim subview can be indexed."""
    if not (f['op'] == 3):
        return None
    if not f['src_subview'] or f['src_prefix_sub']:
        return None
    return {'src_subview': f['src_subview'], 'src_prefix_sub': f['src_prefix_sub']}


def _rule_triton_index_result_alloc(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.result_alloc: The index result is a root-shaped view."""
    if not (f['op'] == 3):
        return None
    if not f['res_subview']:
        return None
    return {'res_subview': f['res_subview']}


def _rule_triton_index_encoding(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.index.encoding: 3.8+: index keeps the layout."""
    if not (f['op'] == 3):
        return None
    if f['same_enc']:
        return None
    return {}


def _rule_triton_subslice_elem(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.elem: Subslice keeps the element type."""
    if not (f['op'] == 2):
        return None
    if f['same_elem']:
        return None
    return {}


def _rule_triton_subslice_offsets(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.offsets: One offset per source dim."""
    if not (f['op'] == 2):
        return None
    if f['sub_rank_ok']:
        return None
    return {}


def _rule_triton_subslice_rank(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.rank: Subslice keeps the rank."""
    if not (f['op'] == 2):
        return None
    if f['src_rank'] == f['res_rank']:
        return None
    return {'src_rank': f['src_rank'], 'res_rank': f['res_rank']}


def _rule_triton_subslice_encoding(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.encoding: 3.8+: subslice keeps the layout."""
    if not (f['op'] == 2):
        return None
    if f['same_enc']:
        return None
    return {}


def _rule_triton_subslice_alloc_shape(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.alloc_shape: 3.9: subslice keeps the alloc shape."""
    if not (f['op'] == 2):
        return None
    if f['same_alloc']:
        return None
    return {}


def _rule_triton_subslice_bounds(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.bounds: 3.9: the subslice lies inside the source."""
    if not (f['op'] == 2 and f['sub_rank_ok']):
        return None
    if f['sub_in_bounds']:
        return None
    return {}


def _rule_triton_subslice_start(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.start: 3.8: every offset is below the source size."""
    if not (f['op'] == 2 and f['sub_split'] and f['sub_rank_ok']):
        return None
    if f['sub_off_lt']:
        return None
    return {}


def _rule_triton_subslice_unsplit(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.unsplit: Dims that are not split have offset 0."""
    if not (f['op'] == 2 and f['sub_split'] and f['sub_rank_ok']):
        return None
    if f['sub_zero_ok']:
        return None
    return {}


def _rule_triton_subslice_tile(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.tile: A split offset is a multiple of the result size."""
    if not (f['op'] == 2 and f['sub_split'] and f['sub_rank_ok']):
        return None
    if f['sub_tile_ok']:
        return None
    return {}


def _rule_triton_subslice_swizzle(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.swizzle: A split does not cut the swizzle pattern."""
    if not (f['op'] == 2 and f['sub_split'] and f['sub_rank_ok']):
        return None
    if f['sub_swz_ok']:
        return None
    return {}


def _rule_triton_subslice_layout(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.layout: 3.6/3.8 abort on a split of some sources."""
    if not (f['op'] == 2 and f['sub_split']):
        return None
    if f['src_lay_rank'] == f['src_rank'] and f['src_d0_pow2'] and f['src_nvmma_fits'] and f['src_nvmma_rows']:
        return None
    return {'src_lay_rank': f['src_lay_rank'], 'src_rank': f['src_rank']}


def _rule_triton_subslice_nvmma_rows(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.subslice.nvmma_rows: 3.9 aborts on a split of a short NVMMA source."""
    if not (f['op'] == 2 and f['sub_split']):
        return None
    if f['src_nvmma_rows']:
        return None
    return {}


def _rule_triton_reinterpret_nvmma_rows(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """triton.reinterpret.nvmma_rows: 3.9 aborts on a reinterpret of a short NVMMA view."""
    if not (f['op'] == 1):
        return None
    if f['src_nvmma_rows'] and f['res_nvmma_rows']:
        return None
    return {}


RULES = (
    ('alias.source.kind', 'alias must be a tle.buffered_tensor', _rule_alias_source_kind),
    ('alias.init_value', 'alloc alias mode cannot be combined with init_value', _rule_alias_init_value),
    ('alias.scope.smem', 'alloc alias mode currently supports only smem buffers', _rule_alias_scope_smem),
    ('alias.space.match', 'expects source and result memory spaces to match', _rule_alias_space_match),
    ('alias.mutability', 'cannot create a mutable alias from an immutable source', _rule_alias_mutability),
    ('alias.offset.constexpr', 'alias_offset_bytes must be a compile-time integer', _rule_alias_offset_constexpr),
    ('alias.offset.nonneg', 'alias_offset_bytes must be non-negative', _rule_alias_offset_nonneg),
    ('alias.offset.i32', 'expects offset_bytes to fit in i32 for shared memory lowering', _rule_alias_offset_i32),
    ('alias.dtype.addressable', 'expects byte-addressable result element type', _rule_alias_dtype_addressable),
    ('alias.offset.aligned', 'expects offset_bytes to be aligned to the result element byte width', _rule_alias_offset_aligned),
    ('alias.size.static', 'expects static source and result memdesc byte sizes', _rule_alias_size_static),
    ('alias.range.fits', 'result byte range must fit within the source view', _rule_alias_range_fits),
    ('alias.range.physical', "result byte range must lie within the source view's physical footprint", _rule_alias_range_physical),
    ('alias.address.aligned', 'result start must be aligned to its element width in absolute address terms', _rule_alias_address_aligned),
    ('alias.address.i32', 'result byte range must end within 32-bit shared-memory addressing', _rule_alias_address_i32),
    ('alias.base.aligned', 'swizzled NVMMA alias must start on a multiple of its swizzle repeat', _rule_alias_base_aligned),
    ('triton.op.stock', 'tle.memdesc_alias is not a stock Triton op', _rule_triton_op_stock),
    ('triton.type.rank', 'rank 0 memdesc is not allowed', _rule_triton_type_rank),
    ('triton.type.layout_rank', 'rank must be equal to or one less than the shape size', _rule_triton_type_layout_rank),
    ('triton.type.alloc_rank', 'alloc shape must have at least as many dimensions as shape', _rule_triton_type_alloc_rank),
    ('triton.type.alloc_fits', 'shape must be less than or equal to allocShape', _rule_triton_type_alloc_fits),
    ('triton.type.pow2_tail', 'shape must have power-of-2 and non-zero dimensions', _rule_triton_type_pow2_tail),
    ('triton.type.nonzero', 'shape has 0 dimension', _rule_triton_type_nonzero),
    ('triton.type.pow2', 'shape must have power-of-2 and non-zero dimensions', _rule_triton_type_pow2),
    ('triton.type.alloc_pow2', 'alloc shape must have power-of-2 and non-zero dimensions', _rule_triton_type_alloc_pow2),
    ('triton.type.nvmma_width', 'block shape along the contiguous dimension is too small for the swizzle byte width', _rule_triton_type_nvmma_width),
    ('triton.type.byte_elems', 'shared-memory element type bit width must be a multiple of 8', _rule_triton_type_byte_elems),
    ('triton.reinterpret.space', 'source and result must have the same memory space', _rule_triton_reinterpret_space),
    ('triton.reinterpret.mutability', 'source and result must have the same mutability', _rule_triton_reinterpret_mutability),
    ('triton.reinterpret.no_subview', 'source and result must not be subviews; reinterpret the parent descriptor and then take a subview', _rule_triton_reinterpret_no_subview),
    ('triton.reinterpret.same_size', 'source and result must have the same logical storage size', _rule_triton_reinterpret_same_size),
    ('triton.reinterpret.layout', 'Triton 3.8 aborts on this reinterpret (layout conversion assert)', _rule_triton_reinterpret_layout),
    ('triton.reinterpret.result_subview', 'result must not be a subview', _rule_triton_reinterpret_result_subview),
    ('triton.reinterpret.fits', 'result shared-memory footprint exceeds the source view', _rule_triton_reinterpret_fits),
    ('triton.reinterpret.owned', 'result shared-memory footprint includes offsets not owned by the source subview', _rule_triton_reinterpret_owned),
    ('triton.index.elem', 'result element type must match desc element type', _rule_triton_index_elem),
    ('triton.index.rank', 'result rank must be input rank - 1', _rule_triton_index_rank),
    ('triton.index.of_index', "We don't allow taking memdesc_index of a memdesc_index", _rule_triton_index_of_index),
    ('triton.index.shape', 'result shape must equal to srcShape[1:]', _rule_triton_index_shape),
    ('triton.index.subview', "We don't support memdesc_index of a subview", _rule_triton_index_subview),
    ('triton.index.prefix', 'We only support memdesc_index of a multibuffer-prefix subview', _rule_triton_index_prefix),
    ('triton.index.result_alloc', 'alloc shape must match shape for the result', _rule_triton_index_result_alloc),
    ('triton.index.encoding', 'src and result must have the same encoding', _rule_triton_index_encoding),
    ('triton.subslice.elem', 'result element type must match desc element type', _rule_triton_subslice_elem),
    ('triton.subslice.offsets', 'offsets must have the same rank as input', _rule_triton_subslice_offsets),
    ('triton.subslice.rank', 'result rank must equal to input rank', _rule_triton_subslice_rank),
    ('triton.subslice.encoding', 'src and result must have the same encoding', _rule_triton_subslice_encoding),
    ('triton.subslice.alloc_shape', 'source and result must have the same allocation shape', _rule_triton_subslice_alloc_shape),
    ('triton.subslice.bounds', 'The split offset may not exceed the source shape', _rule_triton_subslice_bounds),
    ('triton.subslice.start', 'The split offset may not exceed the source shape', _rule_triton_subslice_start),
    ('triton.subslice.unsplit', 'A non zero offset found in a dimension that is not being split', _rule_triton_subslice_unsplit),
    ('triton.subslice.tile', 'The split offset may not touch the tile', _rule_triton_subslice_tile),
    ('triton.subslice.swizzle', "We don't support splitting along the swizzling pattern", _rule_triton_subslice_swizzle),
    ('triton.subslice.layout', 'Triton aborts on this subslice (layout conversion assert)', _rule_triton_subslice_layout),
    ('triton.subslice.nvmma_rows', 'Triton aborts on this subslice (NVMMA layout shorter than its swizzle pattern)', _rule_triton_subslice_nvmma_rows),
    ('triton.reinterpret.nvmma_rows', 'Triton aborts on this reinterpret (NVMMA layout shorter than its swizzle pattern)', _rule_triton_reinterpret_nvmma_rows),
)
PROFILES = {
    'flagtree': frozenset(('alias.source.kind', 'alias.init_value', 'alias.scope.smem', 'alias.space.match', 'alias.mutability', 'alias.offset.constexpr', 'alias.offset.nonneg', 'alias.offset.i32', 'alias.dtype.addressable', 'alias.offset.aligned', 'alias.size.static', 'alias.range.fits')),
    'safe': frozenset(('alias.source.kind', 'alias.init_value', 'alias.scope.smem', 'alias.space.match', 'alias.mutability', 'alias.offset.constexpr', 'alias.offset.nonneg', 'alias.offset.i32', 'alias.dtype.addressable', 'alias.offset.aligned', 'alias.size.static', 'alias.range.fits', 'alias.range.physical', 'alias.address.aligned', 'alias.address.i32', 'alias.base.aligned')),
    'triton-3.6': frozenset(('triton.op.stock', 'triton.type.rank', 'triton.type.layout_rank', 'triton.type.alloc_rank', 'triton.type.alloc_fits', 'triton.type.pow2_tail', 'triton.index.elem', 'triton.index.rank', 'triton.index.of_index', 'triton.index.shape', 'triton.index.subview', 'triton.index.result_alloc', 'triton.subslice.elem', 'triton.subslice.offsets', 'triton.subslice.rank', 'triton.subslice.unsplit', 'triton.subslice.tile', 'triton.subslice.swizzle', 'triton.subslice.layout')),
    'triton-3.7': frozenset(('triton.op.stock', 'triton.type.rank', 'triton.type.layout_rank', 'triton.type.alloc_rank', 'triton.type.alloc_fits', 'triton.type.pow2_tail', 'triton.type.nonzero', 'triton.type.nvmma_width', 'triton.index.elem', 'triton.index.rank', 'triton.index.of_index', 'triton.index.shape', 'triton.index.subview', 'triton.index.result_alloc', 'triton.subslice.elem', 'triton.subslice.offsets', 'triton.subslice.rank', 'triton.subslice.unsplit', 'triton.subslice.tile', 'triton.subslice.swizzle', 'triton.subslice.layout')),
    'triton-3.8': frozenset(('triton.op.stock', 'triton.type.rank', 'triton.type.layout_rank', 'triton.type.alloc_rank', 'triton.type.alloc_fits', 'triton.type.pow2_tail', 'triton.type.nonzero', 'triton.type.nvmma_width', 'triton.reinterpret.space', 'triton.reinterpret.mutability', 'triton.reinterpret.no_subview', 'triton.reinterpret.same_size', 'triton.reinterpret.layout', 'triton.index.elem', 'triton.index.rank', 'triton.index.of_index', 'triton.index.shape', 'triton.index.subview', 'triton.index.result_alloc', 'triton.index.encoding', 'triton.subslice.elem', 'triton.subslice.offsets', 'triton.subslice.rank', 'triton.subslice.encoding', 'triton.subslice.start', 'triton.subslice.unsplit', 'triton.subslice.tile', 'triton.subslice.swizzle', 'triton.subslice.layout')),
    'triton-3.9': frozenset(('triton.op.stock', 'triton.type.rank', 'triton.type.layout_rank', 'triton.type.alloc_rank', 'triton.type.alloc_fits', 'triton.type.nonzero', 'triton.type.pow2', 'triton.type.alloc_pow2', 'triton.type.nvmma_width', 'triton.type.byte_elems', 'triton.reinterpret.space', 'triton.reinterpret.mutability', 'triton.reinterpret.result_subview', 'triton.reinterpret.fits', 'triton.reinterpret.owned', 'triton.index.elem', 'triton.index.rank', 'triton.index.of_index', 'triton.index.shape', 'triton.index.prefix', 'triton.index.result_alloc', 'triton.index.encoding', 'triton.subslice.elem', 'triton.subslice.offsets', 'triton.subslice.rank', 'triton.subslice.encoding', 'triton.subslice.alloc_shape', 'triton.subslice.bounds', 'triton.subslice.unsplit', 'triton.subslice.tile', 'triton.subslice.swizzle', 'triton.subslice.nvmma_rows', 'triton.reinterpret.nvmma_rows')),
}


def validate(f: Mapping[str, int | bool], profile: str = 'safe') -> None:
    """Raise FactsError unless every fact the profile reads (READS) is present, a bool
    fact is True or False (or 0 or 1) and an int fact is an int (not a bool; any size).
    Facts the profile does not read may be absent or anything."""
    if not isinstance(profile, str) or profile not in READS:
        names = ', '.join(READS)
        raise KeyError(f'unknown profile {profile!r}; choose one of {names}')
    if not isinstance(f, Mapping):
        raise TypeError(f'facts must be a mapping of fact names, got {type(f).__name__}')
    for name in READS[profile]:
        if name not in f:
            raise FactsError(name, 'missing')
        v = f[name]
        if name in BOOL_FACTS:
            if not (isinstance(v, int) and v in (0, 1)):
                raise FactsError(name, f'must be True or False, got {type(v).__name__}')
        elif isinstance(v, bool) or not isinstance(v, int):
            raise FactsError(name, f'must be an int, got {type(v).__name__}')


def check(f: Mapping[str, int | bool], profile: str = 'safe') -> list[Violation]:
    """Every violated rule of the profile, in catalogue order. A fact dict it cannot
    judge raises FactsError (see validate), an unknown profile KeyError: never a verdict
    on a guess."""
    validate(f, profile)
    enabled = PROFILES[profile]
    out = []
    for rule_id, message, fn in RULES:
        if rule_id in enabled:
            values = fn(f)
            if values is not None:
                out.append(Violation(rule_id, message, values))
    return out


def raise_if_invalid(f: Mapping[str, int | bool], profile: str = 'safe') -> None:
    violations = check(f, profile)
    if violations:
        raise AliasError(violations)
