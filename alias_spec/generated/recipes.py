# Generated from alias_spec/backends/gen_recipes.py by `alias-spec gen`.
# Do not edit: change the formulas there and regenerate.

"""Recipe choice for lowering tle.gpu.alloc(alias=...) onto Gluon ops."""

from __future__ import annotations

from collections.abc import Mapping

RECIPE_FACTS = ('tv', 'res_rank', 'res_d0_pow2', 'res_tail_pow2', 'res_layout_rank', 'res_layout_bits', 'src_sub', 'src_lead_pow2', 'src_alloc_pow2', 'src_layout_full', 'src_model', 'gran')
OFFSET_FIXABLE = frozenset(('alias.offset.nonneg', 'alias.offset.i32', 'alias.offset.aligned', 'alias.range.fits', 'alias.range.physical', 'alias.address.aligned', 'alias.address.i32', 'alias.base.aligned'))
SIZE_FIXABLE = frozenset(())
HINTS = {
    'alias.source.kind': 'pass a shared-memory descriptor (from tle.gpu.alloc or Gluon) as alias',
    'alias.init_value': 'drop init_value; store into the alias after creating it if needed',
    'alias.scope.smem': 'use scope=tle.smem and a shared-memory source',
    'alias.space.match': 'view the source in its own memory space',
    'alias.mutability': 'make the result immutable, or view a mutable source',
    'alias.offset.constexpr': 'pass a Python int or a gl.constexpr as alias_offset_bytes',
    'alias.offset.nonneg': 'choose an offset that is non-negative, aligned and inside the source',
    'alias.offset.i32': 'choose an offset that is non-negative, aligned and inside the source',
    'alias.dtype.addressable': 'use a dtype of at least 8 bits',
    'alias.offset.aligned': 'choose an offset that is non-negative, aligned and inside the source',
    'alias.size.static': 'give shape static, non-negative int dims and a source dtype of at least 8 bits',
    'alias.range.fits': 'shrink the result or move it so that it ends inside the source view',
    'alias.range.physical': 'shrink the result or move it so that it ends inside the source view',
    'alias.address.aligned': 'start the view on a multiple of its element width from the allocation',
    'alias.address.i32': 'start the view on a multiple of its element width from the allocation',
    'alias.base.aligned': 'start the swizzled view on a multiple of its swizzle repeat',
    'triton.op.stock': 'lower tle.memdesc_alias to a Gluon recipe (reinterpret + index)',
    'triton.type.rank': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.layout_rank': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.alloc_rank': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.alloc_fits': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.pow2_tail': 'use power-of-2 dims (only a leading buffer dim may be any size)',
    'triton.type.nonzero': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.pow2': 'use power-of-2 dims (only a leading buffer dim may be any size)',
    'triton.type.alloc_pow2': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.nvmma_width': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.type.byte_elems': 'fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)',
    'triton.reinterpret.space': 'reinterpret the whole parent descriptor',
    'triton.reinterpret.mutability': "keep the source's mutability",
    'triton.reinterpret.no_subview': 'reinterpret the parent descriptor, then take the subview',
    'triton.reinterpret.same_size': "reinterpret to exactly the source's byte size",
    'triton.reinterpret.layout': 'reinterpret the whole parent descriptor',
    'triton.reinterpret.result_subview': 'reinterpret the whole parent descriptor',
    'triton.reinterpret.fits': "reinterpret to at most the source view's byte size",
    'triton.reinterpret.owned': 'reinterpret only a contiguous part of a subview source',
    'triton.index.elem': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.rank': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.of_index': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.shape': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.subview': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.prefix': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.result_alloc': 'index a whole multi-buffered allocation; the result is shape[1:]',
    'triton.index.encoding': "give the result the source's layout (a layout without the leading buffer dim)",
    'triton.subslice.elem': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.offsets': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.rank': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.encoding': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.alloc_shape': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.bounds': 'keep offset + size within the source in every dim',
    'triton.subslice.start': 'keep every offset below the source size',
    'triton.subslice.unsplit': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.tile': 'use offsets that are multiples of the result size',
    'triton.subslice.swizzle': 'split along whole swizzle patterns (rows in multiples of perPhase x maxPhase)',
    'triton.subslice.layout': "take a subslice with the source's layout, alloc shape and element type",
    'triton.subslice.nvmma_rows': "take a subslice with the source's layout, alloc shape and element type",
    'triton.reinterpret.nvmma_rows': 'reinterpret the whole parent descriptor',
}


def _support_shape_rank(f: Mapping[str, int | bool]) -> dict | None:
    """shape.rank: res_rank >= 1"""
    if f['res_rank'] >= 1:
        return None
    return {'res_rank': f['res_rank']}


def _support_shape_empty(f: Mapping[str, int | bool]) -> dict | None:
    """shape.empty: res_elems >= 1"""
    if f['res_elems'] >= 1:
        return None
    return {'res_elems': f['res_elems']}


def _support_dtype_bytes(f: Mapping[str, int | bool]) -> dict | None:
    """dtype.bytes: res_bits % 8 == 0"""
    if f['res_bits'] % 8 == 0:
        return None
    return {'res_bits': f['res_bits']}


def _support_shape_pow2(f: Mapping[str, int | bool]) -> dict | None:
    """shape.pow2: res_tail_pow2 and (res_rank >= 2 or res_d0_pow2)"""
    if f['res_tail_pow2'] and (f['res_rank'] >= 2 or f['res_d0_pow2']):
        return None
    return {'res_rank': f['res_rank']}


def _support_layout_rank(f: Mapping[str, int | bool]) -> dict | None:
    """layout.rank: res_layout_rank == res_rank or res_layout_rank + 1 == res_rank"""
    if f['res_layout_rank'] == f['res_rank'] or f['res_layout_rank'] + 1 == f['res_rank']:
        return None
    return {'res_layout_rank': f['res_layout_rank'], 'res_rank': f['res_rank']}


def _support_layout_dtype(f: Mapping[str, int | bool]) -> dict | None:
    """layout.dtype: res_layout_bits == 0 or res_layout_bits == res_bits"""
    if f['res_layout_bits'] == 0 or f['res_layout_bits'] == f['res_bits']:
        return None
    return {'res_layout_bits': f['res_layout_bits'], 'res_bits': f['res_bits']}


def _support_shape_pow2_lead(f: Mapping[str, int | bool]) -> dict | None:
    """shape.pow2_lead: tv <= 307 or res_d0_pow2 or res_layout_rank < res_rank"""
    if f['tv'] <= 307 or f['res_d0_pow2'] or f['res_layout_rank'] < f['res_rank']:
        return None
    return {'res_rank': f['res_rank'], 'res_layout_rank': f['res_layout_rank']}


def _support_base_align16(f: Mapping[str, int | bool]) -> dict | None:
    """base.align16: abs_off % 16 == 0 and align % 16 == 0"""
    if (f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off']) % 16 == 0 and f['align'] % 16 == 0:
        return None
    return {'abs_off': f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'], 'align': f['align']}


def _support_source_subview(f: Mapping[str, int | bool]) -> dict | None:
    """source.subview: not src_sub or (src_alloc_pow2 and src_layout_full)"""
    if not f['src_sub'] or (f['src_alloc_pow2'] and f['src_layout_full']):
        return None
    return {}


def _support_source_model(f: Mapping[str, int | bool]) -> dict | None:
    """source.model: src_model"""
    if f['src_model']:
        return None
    return {}


def _recipe_view(f: Mapping[str, int | bool]) -> bool:
    """src._reinterpret(D, S, L)"""
    return bool(f['off'] == 0 and (f['tv'] <= 307 or (f['tv'] == 308 and (not f['src_sub'] and (f['src_lead_pow2'] or not f['src_layout_full']) and f['src_bits'] % 8 == 0) and f['res_elems'] * ((f['res_bits'] + 7) // 8) == f['src_elems'] * ((f['src_bits'] + 7) // 8)) or (f['tv'] >= 309 and (not f['src_sub'] or f['c0'] * f['c1'] * f['c2'] == 1) and f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['src_elems'] * ((f['src_bits'] + 7) // 8))))


def _recipe_index(f: Mapping[str, int | bool]) -> bool:
    """src._reinterpret(D, [M, *S], L).index(off // B)._reinterpret(D, S, L)"""
    return bool(f['res_elems'] * ((f['res_bits'] + 7) // 8) >= 1 and f['off'] % (f['res_elems'] * ((f['res_bits'] + 7) // 8)) == 0 and f['res_d0_pow2'] and f['res_layout_rank'] == f['res_rank'] and (f['tv'] <= 307 or (f['tv'] == 308 and (not f['src_sub'] and (f['src_lead_pow2'] or not f['src_layout_full']) and f['src_bits'] % 8 == 0) and f['src_elems'] * ((f['src_bits'] + 7) // 8) % (f['res_elems'] * ((f['res_bits'] + 7) // 8)) == 0) or (f['tv'] >= 309 and (not f['src_sub'] or f['c0'] * f['c1'] * f['c2'] == 1))))


def _recipe_granule(f: Mapping[str, int | bool]) -> bool:
    """src._reinterpret(int8, [K, g], L1).index(off // g)._reinterpret(D, S, L)"""
    return bool(f['tv'] <= 307 and f['gran'] >= 1 and f['off'] % f['gran'] == 0)


SUPPORT = (
    ('shape.rank', 'a shared-memory descriptor needs rank >= 1', 'give the result at least one dimension', _support_shape_rank),
    ('shape.empty', 'the result has no elements', 'give every result dim a positive size', _support_shape_empty),
    ('dtype.bytes', 'Gluon cannot view sub-byte elements in shared memory', 'alias with an element type of 8, 16, 32 or 64 bits', _support_dtype_bytes),
    ('shape.pow2', 'every result dim after the first must be a power of 2, and so must a 1-D result (Triton aborts the process on a non-power-of-2 1-D shared view)', 'pad the result shape to powers of 2 (only the leading dim of a rank >= 2 result may be any size)', _support_shape_pow2),
    ('layout.rank', "the result layout's rank must equal the result rank or be one less (a leading buffer dim)", "pass a layout built for the result's rank", _support_layout_rank),
    ('layout.dtype', 'the NVMMA layout names another element width than the result dtype', "build the NVMMA layout with element_bitwidth equal to the result dtype's width", _support_layout_dtype),
    ('shape.pow2_lead', 'Triton 3.8 aborts on, and 3.9 rejects, a shared view whose leading dim is not a power of 2 unless that dim lies outside the layout', 'pad the leading dim to a power of 2, or pass a layout of one rank less so that the leading dim is a buffer dim', _support_shape_pow2_lead),
    ('base.align16', 'Triton 3.6 assumes every shared-memory view starts 16-byte aligned and may access it with ldmatrix/stmatrix or 16-byte vectors; a view starting elsewhere faulted on an H200 (misaligned address) even where its elements were aligned', 'choose alias_offset_bytes so that the alias starts on a 16-byte boundary', _support_base_align16),
    ('source.subview', 'Triton 3.6 aborts the process when it folds the offset of a subslice whose parent has a non-power-of-2 dim or a leading buffer dim outside its layout', 'alias the parent descriptor (or an index of it) and fold the slice position into alias_offset_bytes', _support_source_subview),
    ('source.model', "the source is a subslice that cuts a swizzled or NVMMA-tiled dim; Triton places its bytes where the spec's dense byte model does not expect them, so no check can vouch for the alias", 'alias the parent descriptor (or a slice along its leading dim) and fold the slice position into alias_offset_bytes', _support_source_model),
)
RECIPES = (
    ('view', 'src._reinterpret(D, S, L)', _recipe_view),
    ('index', 'src._reinterpret(D, [M, *S], L).index(off // B)._reinterpret(D, S, L)', _recipe_index),
    ('granule', 'src._reinterpret(int8, [K, g], L1).index(off // g)._reinterpret(D, S, L)', _recipe_granule),
)


def unsupported(f: Mapping[str, int | bool]) -> list[tuple[str, str, str, dict]]:
    """(check, reason, fix, values) for every condition the installed Triton lacks."""
    out = []
    for check, reason, fix, fn in SUPPORT:
        values = fn(f)
        if values is not None:
            out.append((check, reason, fix, values))
    return out


def choose(f: Mapping[str, int | bool]) -> str | None:
    """The first recipe whose predicate holds, or None."""
    for name, _, fn in RECIPES:
        if fn(f):
            return name
    return None
