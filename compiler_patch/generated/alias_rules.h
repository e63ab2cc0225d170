// Generated from the tle-alias-spec rule catalogue by `alias-spec gen`. Do not edit.
// Change alias_spec/catalogue.py and regenerate.

// Alias rules for tle.memdesc_alias / tle.gpu.alloc(alias=...): facts in, violated
// rules out. Self-contained C++17 (GCC or Clang: uses __int128).

#ifndef TLE_ALIAS_RULES_H
#define TLE_ALIAS_RULES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tle_alias {

// The primitive facts every rule is written over (see alias_spec/facts.py).
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
  bool src_static = false;  // every dimension of the source view is static
  bool res_static = false;  // every dimension of the result is static
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
};

inline constexpr std::size_t kNumFacts = 26;

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
  }
  return false;
}

// Catalogue order; also the order of violations returned by check().
enum class RuleId : int {
  SourceKind = 0,
  InitValue = 1,
  ScopeSmem = 2,
  SpaceMatch = 3,
  Mutability = 4,
  OffsetConstexpr = 5,
  OffsetNonneg = 6,
  OffsetI32 = 7,
  DtypeAddressable = 8,
  OffsetAligned = 9,
  SizeStatic = 10,
  RangeFits = 11,
  RangePhysical = 12,
  AddressAligned = 13,
  AddressI32 = 14,
  BaseAligned = 15,
};

inline constexpr std::size_t kNumRules = 16;

inline constexpr const char *kRuleIds[kNumRules] = {
    "alias.source.kind",
    "alias.init_value",
    "alias.scope.smem",
    "alias.space.match",
    "alias.mutability",
    "alias.offset.constexpr",
    "alias.offset.nonneg",
    "alias.offset.i32",
    "alias.dtype.addressable",
    "alias.offset.aligned",
    "alias.size.static",
    "alias.range.fits",
    "alias.range.physical",
    "alias.address.aligned",
    "alias.address.i32",
    "alias.base.aligned",
};

inline constexpr const char *kMessages[kNumRules] = {
    "alias must be a tle.buffered_tensor",
    "alloc alias mode cannot be combined with init_value",
    "alloc alias mode currently supports only smem buffers",
    "expects source and result memory spaces to match",
    "cannot create a mutable alias from an immutable source",
    "alias_offset_bytes must be a compile-time integer",
    "alias_offset_bytes must be non-negative",
    "expects offset_bytes to fit in i32 for shared memory lowering",
    "expects byte-addressable result element type",
    "expects offset_bytes to be aligned to the result element byte width",
    "expects static source and result memdesc byte sizes",
    "result byte range must fit within the source view",
    "result byte range must lie within the source view's physical footprint",
    "result start must be aligned to its element width in absolute address terms",
    "result byte range must end within 32-bit shared-memory addressing",
    "swizzled NVMMA alias must start on a multiple of its swizzle repeat",
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
    0xfffu,  // flagtree
    0xffffu,  // safe
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

// alias.source.kind: The source is a buffered tensor.
inline bool fires_alias_source_kind(const Facts &f) {
  return !f.src_buffered;
}

// alias.init_value: No init_value with alias.
inline bool fires_alias_init_value(const Facts &f) {
  return f.init_given;
}

// alias.scope.smem: Shared memory only.
inline bool fires_alias_scope_smem(const Facts &f) {
  using namespace detail;
  return I(f.scope) != I(0) || I(f.src_space) != I(0);
}

// alias.space.match: Source and result share a memory space.
inline bool fires_alias_space_match(const Facts &f) {
  using namespace detail;
  return I(f.src_space) != I(f.res_space);
}

// alias.mutability: No mutable alias of an immutable source.
inline bool fires_alias_mutability(const Facts &f) {
  return !f.src_mutable && f.res_mutable;
}

// alias.offset.constexpr: The offset is a compile-time integer.
inline bool fires_alias_offset_constexpr(const Facts &f) {
  return !f.off_int;
}

// alias.offset.nonneg: The offset is non-negative.
inline bool fires_alias_offset_nonneg(const Facts &f) {
  using namespace detail;
  if (!(f.off_int)) return false;
  return I(f.off) < I(0);
}

// alias.offset.i32: The offset fits in i32.
inline bool fires_alias_offset_i32(const Facts &f) {
  using namespace detail;
  if (!(f.off_int)) return false;
  return I(f.off) > I(2147483647);
}

// alias.dtype.addressable: The result element type is byte-addressable.
inline bool fires_alias_dtype_addressable(const Facts &f) {
  using namespace detail;
  return (I(f.res_bits) + I(7)) / I(8) < I(1);
}

// alias.offset.aligned: The offset is aligned to the result element width.
inline bool fires_alias_offset_aligned(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && (I(f.res_bits) + I(7)) / I(8) >= I(1))) return false;
  return I(f.off) % ((I(f.res_bits) + I(7)) / I(8)) != I(0);
}

// alias.size.static: Static byte sizes.
inline bool fires_alias_size_static(const Facts &f) {
  using namespace detail;
  return !f.src_static || !f.res_static || I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) > I(INT64_C(9223372036854775807)) || I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(INT64_C(9223372036854775807));
}

// alias.range.fits: The result fits in the source view (logical sizes).
inline bool fires_alias_range_fits(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && f.src_static && f.res_static)) return false;
  return I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) || I(f.off) > I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) - I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8));
}

// alias.range.physical: The result lies in the source view's physical footprint.
inline bool fires_alias_range_physical(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && f.src_static && f.res_static && I(f.off) >= I(0))) return false;
  return I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) != I(0) && (I(f.run) * ((I(f.src_bits) + I(7)) / I(8)) < I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) || I(f.off) / (I(f.p0) * ((I(f.src_bits) + I(7)) / I(8))) >= I(f.c0) || I(f.off) % (I(f.p0) * ((I(f.src_bits) + I(7)) / I(8))) / (I(f.p1) * ((I(f.src_bits) + I(7)) / I(8))) >= I(f.c1) || I(f.off) % (I(f.p0) * ((I(f.src_bits) + I(7)) / I(8))) % (I(f.p1) * ((I(f.src_bits) + I(7)) / I(8))) / (I(f.p2) * ((I(f.src_bits) + I(7)) / I(8))) >= I(f.c2) || I(f.off) % (I(f.p0) * ((I(f.src_bits) + I(7)) / I(8))) % (I(f.p1) * ((I(f.src_bits) + I(7)) / I(8))) % (I(f.p2) * ((I(f.src_bits) + I(7)) / I(8))) + I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(f.run) * ((I(f.src_bits) + I(7)) / I(8)));
}

// alias.address.aligned: The result is element-aligned in absolute address terms.
inline bool fires_alias_address_aligned(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && (I(f.res_bits) + I(7)) / I(8) >= I(1) && f.src_static)) return false;
  return (I(f.src_base) + I(f.src_start) * ((I(f.src_bits) + I(7)) / I(8)) + I(f.off)) % ((I(f.res_bits) + I(7)) / I(8)) != I(0) || I(f.align) % ((I(f.res_bits) + I(7)) / I(8)) != I(0);
}

// alias.address.i32: The result is 32-bit addressable from its allocation.
inline bool fires_alias_address_i32(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && f.src_static && f.res_static && I(f.off) <= I(2147483647))) return false;
  return I(f.src_base) + I(f.src_start) * ((I(f.src_bits) + I(7)) / I(8)) + I(f.off) + I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(2147483647);
}

// alias.base.aligned: A swizzled NVMMA result starts on a swizzle repeat.
inline bool fires_alias_base_aligned(const Facts &f) {
  using namespace detail;
  if (!(f.off_int && f.src_static)) return false;
  return I(f.swz) != I(0) && ((I(f.src_base) + I(f.src_start) * ((I(f.src_bits) + I(7)) / I(8)) + I(f.off)) % I(f.swz) != I(0) || I(f.align) % I(f.swz) != I(0));
}

// Whether one rule fires (its guard holds and its formula does not).
inline bool fires(RuleId rule, const Facts &f) {
  switch (rule) {
    case RuleId::SourceKind: return fires_alias_source_kind(f);
    case RuleId::InitValue: return fires_alias_init_value(f);
    case RuleId::ScopeSmem: return fires_alias_scope_smem(f);
    case RuleId::SpaceMatch: return fires_alias_space_match(f);
    case RuleId::Mutability: return fires_alias_mutability(f);
    case RuleId::OffsetConstexpr: return fires_alias_offset_constexpr(f);
    case RuleId::OffsetNonneg: return fires_alias_offset_nonneg(f);
    case RuleId::OffsetI32: return fires_alias_offset_i32(f);
    case RuleId::DtypeAddressable: return fires_alias_dtype_addressable(f);
    case RuleId::OffsetAligned: return fires_alias_offset_aligned(f);
    case RuleId::SizeStatic: return fires_alias_size_static(f);
    case RuleId::RangeFits: return fires_alias_range_fits(f);
    case RuleId::RangePhysical: return fires_alias_range_physical(f);
    case RuleId::AddressAligned: return fires_alias_address_aligned(f);
    case RuleId::AddressI32: return fires_alias_address_i32(f);
    case RuleId::BaseAligned: return fires_alias_base_aligned(f);
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
