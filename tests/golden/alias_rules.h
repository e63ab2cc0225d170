// Generated from the tle-alias-spec rule catalogue by `alias-spec gen`. Do not edit.
// Change alias_spec/model/catalogue.py and regenerate.

// Alias rules for tle.memdesc_alias / tle.gpu.alloc(alias=...): facts in, violated
// rules out. Self-contained C++17 (GCC or Clang: uses __int128).

#ifndef TLE_ALIAS_RULES_H
#define TLE_ALIAS_RULES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tle_alias {

// The primitive facts every rule is written over (see alias_spec/model/facts.py).
struct Facts {
  bool src_buffered = false;  // the alias source is a buffered tensor (a memdesc)
  bool init_given = false;  // an init_value was passed together with alias
  std::int64_t scope = 0;  // requested scope: SMEM or TMEM
  std::int64_t src_space = 0;  // memory space of the source: SMEM, TMEM or GLOBAL
  std::int64_t res_space = 0;  // memory space of the result
  bool src_mutable = false;  // the source descriptor is mutable
  bool res_mutable = false;  // the result descriptor is mutable
  bool off_int = false;  // alias_offset_bytes is a compile-time integer (not a bool)
  std::int64_t off = 0;  // alias_offset_bytes (0 when it is not an integer)
  std::int64_t src_bits = 0;  // bit width of the source element type
  std::int64_t res_bits = 0;  // bit width of the result element type
  bool src_static = false;  // every dimension of the source view is static, and its element count (multiplied dim by dim, as FlagTree does) fits in int64
  bool res_static = false;  // every dimension of the result is static, and its element count fits in int64
  std::int64_t src_elems = 0;  // elements in the source view's logical shape (0 if dynamic)
  std::int64_t res_elems = 0;  // elements in the result's logical shape (0 if dynamic)
  std::int64_t src_start = 0;  // elements from the source's base to its view start (subslice)
  std::int64_t src_base = 0;  // bytes from the allocation start to the source's base
  std::int64_t run = 0;  // elements in one contiguous run of the source view
  std::int64_t p0 = 0;  // outer stride (elements) of the source view's runs, level 0
  std::int64_t c0 = 0;  // number of runs along level 0
  std::int64_t p1 = 0;  // stride (elements) of level 1
  std::int64_t c1 = 0;  // count along level 1
  std::int64_t p2 = 0;  // stride (elements) of level 2, the innermost
  std::int64_t c2 = 0;  // count along level 2
  std::int64_t align = 0;  // guaranteed alignment (bytes) of the allocation's start
  std::int64_t swz = 0;  // swizzle repeat (bytes) of the result's NVMMA layout, 0 if none
  std::int64_t op = 0;  // the view op: OP_ALIAS, OP_REINTERPRET, OP_SUBSLICE or OP_INDEX
  std::int64_t src_rank = 0;  // rank of the source shape
  std::int64_t src_alloc_rank = 0;  // rank of the source type's alloc shape
  std::int64_t src_lay_rank = 0;  // rank of the source layout (shape rank if unknown)
  bool src_d0_pow2 = false;  // the source's first dim is a power of 2
  bool src_tail_pow2 = false;  // every source dim after the first is a power of 2
  bool src_nonzero = false;  // every source dim is non-zero
  bool src_alloc_fits = false;  // each source dim is at most the matching trailing alloc-shape dim
  bool src_alloc_tail_pow2 = false;  // every source alloc-shape dim its layout covers (the trailing layout-rank dims) is a power of 2
  bool src_subview = false;  // the source type is a subview (alloc != shape)
  bool src_nvmma_fits = false;  // the source's NVMMA layout (if any) has a contiguous dim of at least one swizzle row, counted in the layout's elementBitWidth
  bool src_nvmma_rows = false;  // the source's swizzled NVMMA layout (if any) covers at least 8 rows
  std::int64_t res_rank = 0;  // rank of the result shape
  std::int64_t res_alloc_rank = 0;  // rank of the result type's alloc shape
  std::int64_t res_lay_rank = 0;  // rank of the result layout (shape rank if unknown)
  bool res_d0_pow2 = false;  // the result's first dim is a power of 2
  bool res_tail_pow2 = false;  // every result dim after the first is a power of 2
  bool res_nonzero = false;  // every result dim is non-zero
  bool res_alloc_fits = false;  // each result dim is at most the matching trailing alloc-shape dim
  bool res_alloc_tail_pow2 = false;  // every result alloc-shape dim its layout covers (the trailing layout-rank dims) is a power of 2
  bool res_subview = false;  // the result type is a subview (alloc != shape)
  bool res_nvmma_fits = false;  // the result's NVMMA layout (if any) has a contiguous dim of at least one swizzle row, counted in the layout's elementBitWidth
  bool res_nvmma_rows = false;  // the result's swizzled NVMMA layout (if any) covers at least 8 rows
  bool same_elem = false;  // source and result element types are the same type
  bool same_enc = false;  // source and result layouts are the same attribute
  bool same_alloc = false;  // source and result alloc shapes are equal
  bool src_prefix_sub = false;  // the source is a subview that trims only its leading dim
  bool idx_static = false;  // memdesc_index: the index is a compile-time constant
  std::int64_t idx = 0;  // memdesc_index: the index (0 when it is a runtime value)
  bool idx_shape_ok = false;  // memdesc_index: the result shape is the source shape[1:]
  bool sub_rank_ok = false;  // memdesc_subslice: one offset per source dim
  bool sub_split = false;  // memdesc_subslice: some dim differs between source and result
  bool sub_zero_ok = false;  // memdesc_subslice: every dim that is not split has offset 0
  bool sub_tile_ok = false;  // memdesc_subslice: every split dim's offset has no bit below the result size (offset & (size - 1) == 0)
  bool sub_off_lt = false;  // memdesc_subslice: every offset is below the source dim
  bool sub_in_bounds = false;  // memdesc_subslice: offset + result dim <= source dim in every dim
  bool sub_swz_ok = false;  // memdesc_subslice: no split dim cuts the layout's swizzle pattern (each power-of-2 step of a split dim maps to a power-of-2 offset)
};

inline constexpr std::size_t kNumFacts = 63;

inline constexpr const char *kFactNames[kNumFacts] = {
    "src_buffered",
    "init_given",
    "scope",
    "src_space",
    "res_space",
    "src_mutable",
    "res_mutable",
    "off_int",
    "off",
    "src_bits",
    "res_bits",
    "src_static",
    "res_static",
    "src_elems",
    "res_elems",
    "src_start",
    "src_base",
    "run",
    "p0",
    "c0",
    "p1",
    "c1",
    "p2",
    "c2",
    "align",
    "swz",
    "op",
    "src_rank",
    "src_alloc_rank",
    "src_lay_rank",
    "src_d0_pow2",
    "src_tail_pow2",
    "src_nonzero",
    "src_alloc_fits",
    "src_alloc_tail_pow2",
    "src_subview",
    "src_nvmma_fits",
    "src_nvmma_rows",
    "res_rank",
    "res_alloc_rank",
    "res_lay_rank",
    "res_d0_pow2",
    "res_tail_pow2",
    "res_nonzero",
    "res_alloc_fits",
    "res_alloc_tail_pow2",
    "res_subview",
    "res_nvmma_fits",
    "res_nvmma_rows",
    "same_elem",
    "same_enc",
    "same_alloc",
    "src_prefix_sub",
    "idx_static",
    "idx",
    "idx_shape_ok",
    "sub_rank_ok",
    "sub_split",
    "sub_zero_ok",
    "sub_tile_ok",
    "sub_off_lt",
    "sub_in_bounds",
    "sub_swz_ok",
};

// Sets fact `index` (kFactNames order); bool facts take 0 or 1. False if no such fact.
inline bool set_fact(Facts &f, std::size_t index, std::int64_t value) {
  switch (index) {
    case 0: f.src_buffered = value != 0; return true;
    case 1: f.init_given = value != 0; return true;
    case 2: f.scope = value; return true;
    case 3: f.src_space = value; return true;
    case 4: f.res_space = value; return true;
    case 5: f.src_mutable = value != 0; return true;
    case 6: f.res_mutable = value != 0; return true;
    case 7: f.off_int = value != 0; return true;
    case 8: f.off = value; return true;
    case 9: f.src_bits = value; return true;
    case 10: f.res_bits = value; return true;
    case 11: f.src_static = value != 0; return true;
    case 12: f.res_static = value != 0; return true;
    case 13: f.src_elems = value; return true;
    case 14: f.res_elems = value; return true;
    case 15: f.src_start = value; return true;
    case 16: f.src_base = value; return true;
    case 17: f.run = value; return true;
    case 18: f.p0 = value; return true;
    case 19: f.c0 = value; return true;
    case 20: f.p1 = value; return true;
    case 21: f.c1 = value; return true;
    case 22: f.p2 = value; return true;
    case 23: f.c2 = value; return true;
    case 24: f.align = value; return true;
    case 25: f.swz = value; return true;
    case 26: f.op = value; return true;
    case 27: f.src_rank = value; return true;
    case 28: f.src_alloc_rank = value; return true;
    case 29: f.src_lay_rank = value; return true;
    case 30: f.src_d0_pow2 = value != 0; return true;
    case 31: f.src_tail_pow2 = value != 0; return true;
    case 32: f.src_nonzero = value != 0; return true;
    case 33: f.src_alloc_fits = value != 0; return true;
    case 34: f.src_alloc_tail_pow2 = value != 0; return true;
    case 35: f.src_subview = value != 0; return true;
    case 36: f.src_nvmma_fits = value != 0; return true;
    case 37: f.src_nvmma_rows = value != 0; return true;
    case 38: f.res_rank = value; return true;
    case 39: f.res_alloc_rank = value; return true;
    case 40: f.res_lay_rank = value; return true;
    case 41: f.res_d0_pow2 = value != 0; return true;
    case 42: f.res_tail_pow2 = value != 0; return true;
    case 43: f.res_nonzero = value != 0; return true;
    case 44: f.res_alloc_fits = value != 0; return true;
    case 45: f.res_alloc_tail_pow2 = value != 0; return true;
    case 46: f.res_subview = value != 0; return true;
    case 47: f.res_nvmma_fits = value != 0; return true;
    case 48: f.res_nvmma_rows = value != 0; return true;
    case 49: f.same_elem = value != 0; return true;
    case 50: f.same_enc = value != 0; return true;
    case 51: f.same_alloc = value != 0; return true;
    case 52: f.src_prefix_sub = value != 0; return true;
    case 53: f.idx_static = value != 0; return true;
    case 54: f.idx = value; return true;
    case 55: f.idx_shape_ok = value != 0; return true;
    case 56: f.sub_rank_ok = value != 0; return true;
    case 57: f.sub_split = value != 0; return true;
    case 58: f.sub_zero_ok = value != 0; return true;
    case 59: f.sub_tile_ok = value != 0; return true;
    case 60: f.sub_off_lt = value != 0; return true;
    case 61: f.sub_in_bounds = value != 0; return true;
    case 62: f.sub_swz_ok = value != 0; return true;
  }
  return false;
}

// Catalogue order; also the order of violations returned by check().
enum class RuleId : int {
  OffsetNonneg = 0,
  OffsetAligned = 1,
  RangeFits = 2,
};

inline constexpr std::size_t kNumRules = 3;

inline constexpr const char *kRuleIds[kNumRules] = {
    "alias.offset.nonneg",
    "alias.offset.aligned",
    "alias.range.fits",
};

inline constexpr const char *kMessages[kNumRules] = {
    "expects non-negative offset_bytes",
    "expects offset_bytes aligned to the element width",
    "result byte range must fit within the source view",
};

enum class Profile : int {
  Flagtree = 0,
  Safe = 1,
};

inline constexpr std::size_t kNumProfiles = 2;

inline constexpr const char *kProfileNames[kNumProfiles] = {
    "flagtree",
    "safe",
};

// Bit i set: the profile enforces rule i.
inline constexpr std::uint64_t kProfileMasks[kNumProfiles] = {
    0x3u,  // flagtree
    0x7u,  // safe
};

struct Violation {
  RuleId rule;
  std::string id;
  std::string message;
};

namespace detail {

__extension__ typedef __int128 i128;

// Exact integers for rule arithmetic. Facts are int64 and are widened on read; the
// catalogue's deepest terms (sums of a few int64 x ceil(int64 / 8) products) stay far below
// 2^127, so + - * never overflow.
struct Int {
  i128 v;
};

constexpr Int I(std::int64_t x) { return Int{x}; }

// Python floor division and modulo. A zero divisor gives 0: every division in the catalogue
// sits behind a guard or short-circuit that makes its divisor positive on well-formed facts,
// so this branch is unreachable there; it only keeps malformed input from trapping.
constexpr i128 floor_div(i128 a, i128 b) {
  if (b == 0) return 0;
  i128 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

constexpr i128 floor_mod(i128 a, i128 b) {
  if (b == 0) return 0;
  i128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

constexpr Int operator+(Int a, Int b) { return Int{a.v + b.v}; }
constexpr Int operator-(Int a, Int b) { return Int{a.v - b.v}; }
constexpr Int operator*(Int a, Int b) { return Int{a.v * b.v}; }
constexpr Int operator/(Int a, Int b) { return Int{floor_div(a.v, b.v)}; }
constexpr Int operator%(Int a, Int b) { return Int{floor_mod(a.v, b.v)}; }
constexpr bool operator<(Int a, Int b) { return a.v < b.v; }
constexpr bool operator<=(Int a, Int b) { return a.v <= b.v; }
constexpr bool operator>(Int a, Int b) { return a.v > b.v; }
constexpr bool operator>=(Int a, Int b) { return a.v >= b.v; }
constexpr bool operator==(Int a, Int b) { return a.v == b.v; }
constexpr bool operator!=(Int a, Int b) { return a.v != b.v; }

}  // namespace detail

// alias.offset.nonneg: Offset is non-negative.
inline bool fires_alias_offset_nonneg(const Facts &f) {
  using namespace detail;
  if (!(f.off_int)) return false;
  return I(f.off) < I(0);
}

// alias.offset.aligned: Offset is element-aligned.
inline bool fires_alias_offset_aligned(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && (I(f.res_bits) + I(7)) / I(8) >= I(1))) return false;
  return I(f.off) % ((I(f.res_bits) + I(7)) / I(8)) != I(0);
}

// alias.range.fits: Result fits the source.
inline bool fires_alias_range_fits(const Facts &f) {
  using namespace detail;
  if (!(f.src_static && f.res_static)) return false;
  return I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) || (I(f.off) > I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) - I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) && I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) != I(0));
}

// Whether one rule fires (its guard holds and its formula does not).
inline bool fires(RuleId rule, const Facts &f) {
  switch (rule) {
    case RuleId::OffsetNonneg: return fires_alias_offset_nonneg(f);
    case RuleId::OffsetAligned: return fires_alias_offset_aligned(f);
    case RuleId::RangeFits: return fires_alias_range_fits(f);
  }
  return false;
}

// Every rule of the profile that fires, in catalogue order.
inline std::vector<Violation> check(const Facts &f, Profile profile) {
  std::vector<Violation> out;
  const std::uint64_t mask = kProfileMasks[static_cast<int>(profile)];
  for (std::size_t i = 0; i < kNumRules; ++i) {
    const RuleId rule = static_cast<RuleId>(i);
    if (((mask >> i) & 1u) != 0 && fires(rule, f))
      out.push_back(Violation{rule, kRuleIds[i], kMessages[i]});
  }
  return out;
}

}  // namespace tle_alias

#endif  // TLE_ALIAS_RULES_H
