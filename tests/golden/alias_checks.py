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
    'flagtree': ('off_int', 'off', 'res_bits'),
    'safe': ('off_int', 'off', 'src_bits', 'res_bits', 'src_static', 'res_static', 'src_elems', 'res_elems'),
}


def _rule_alias_offset_nonneg(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.nonneg: Offset is non-negative."""
    if not (f['off_int']):
        return None
    if f['off'] >= 0:
        return None
    return {'off': f['off']}


def _rule_alias_offset_aligned(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.offset.aligned: Offset is element-aligned."""
    if not (f['off_int'] and (f['res_bits'] + 7) // 8 >= 1):
        return None
    if f['off'] % ((f['res_bits'] + 7) // 8) == 0:
        return None
    return {'off': f['off'], 'res_eb': (f['res_bits'] + 7) // 8}


def _rule_alias_range_fits(f: Mapping[str, int | bool]) -> dict[str, int | bool] | None:
    """alias.range.fits: Result fits the source."""
    if not (f['src_static'] and f['res_static']):
        return None
    if f['res_elems'] * ((f['res_bits'] + 7) // 8) <= f['src_elems'] * ((f['src_bits'] + 7) // 8) and (f['off'] <= f['src_elems'] * ((f['src_bits'] + 7) // 8) - f['res_elems'] * ((f['res_bits'] + 7) // 8) or f['res_elems'] * ((f['res_bits'] + 7) // 8) == 0):
        return None
    return {'off': f['off'], 'src_bytes': f['src_elems'] * ((f['src_bits'] + 7) // 8), 'res_bytes': f['res_elems'] * ((f['res_bits'] + 7) // 8)}


RULES = (
    ('alias.offset.nonneg', 'expects non-negative offset_bytes', _rule_alias_offset_nonneg),
    ('alias.offset.aligned', 'expects offset_bytes aligned to the element width', _rule_alias_offset_aligned),
    ('alias.range.fits', 'result byte range must fit within the source view', _rule_alias_range_fits),
)
PROFILES = {
    'flagtree': frozenset(('alias.offset.nonneg', 'alias.offset.aligned')),
    'safe': frozenset(('alias.offset.nonneg', 'alias.offset.aligned', 'alias.range.fits')),
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
