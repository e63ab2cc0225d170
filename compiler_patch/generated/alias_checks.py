# Generated from the tle-alias-spec rule catalogue by `alias-spec gen`.
# Do not edit: change alias_spec/catalogue.py and regenerate.

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


FACTS = ('src_buffered', 'init_given', 'scope', 'src_space', 'res_space', 'src_mutable', 'res_mutable', 'off_int', 'off', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems', 'src_start', 'src_base', 'run', 'p0', 'c0', 'p1', 'c1', 'p2', 'c2', 'align', 'swz')


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
    if not (True):
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
    if f['src_static'] and f['res_static'] and f['src_elems'] * ((f['src_bits'] + 7) // 8) <= 9223372036854775807 and f['res_elems'] * ((f['res_bits'] + 7) // 8) <= 9223372036854775807:
        return None
    return {'src_static': f['src_static'], 'res_static': f['res_static'], 'src_bytes': f['src_elems'] * ((f['src_bits'] + 7) // 8), 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8)}


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
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) == 0 or f['run'] * ((f['src_bits'] + 7) // 8) >= f['res_elems'] * ((f['res_bits'] + 7) // 8) and f['off'] // (f['p0'] * ((f['src_bits'] + 7) // 8)) < f['c0'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) // (f['p1'] * ((f['src_bits'] + 7) // 8)) < f['c1'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) % (f['p1'] * ((f['src_bits'] + 7) // 8)) // (f['p2'] * ((f['src_bits'] + 7) // 8)) < f['c2'] and f['off'] % (f['p0'] * ((f['src_bits'] + 7) // 8)) % (f['p1'] * ((f['src_bits'] + 7) // 8)) % (f['p2'] * ((f['src_bits'] + 7) // 8)) + f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['run'] * ((f['src_bits'] + 7) // 8):
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
    if f['swz'] == 0 or (f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off']) % f['swz'] == 0 and f['align'] % f['swz'] == 0:
        return None
    return {'abs_off': f['src_base'] + f['src_start'] * ((f['src_bits'] + 7) // 8) + f['off'], 'swz': f['swz'], 'align': f['align']}


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
)
PROFILES = {
    'flagtree': frozenset(('alias.source.kind', 'alias.init_value', 'alias.scope.smem', 'alias.space.match', 'alias.mutability', 'alias.offset.constexpr', 'alias.offset.nonneg', 'alias.offset.i32', 'alias.dtype.addressable', 'alias.offset.aligned', 'alias.size.static', 'alias.range.fits')),
    'safe': frozenset(('alias.source.kind', 'alias.init_value', 'alias.scope.smem', 'alias.space.match', 'alias.mutability', 'alias.offset.constexpr', 'alias.offset.nonneg', 'alias.offset.i32', 'alias.dtype.addressable', 'alias.offset.aligned', 'alias.size.static', 'alias.range.fits', 'alias.range.physical', 'alias.address.aligned', 'alias.address.i32', 'alias.base.aligned')),
}


def check(f: Mapping[str, int | bool], profile: str = 'safe') -> list[Violation]:
    """Every violated rule of the profile, in catalogue order."""
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
