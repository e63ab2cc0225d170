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
  TritonOpStock = 16,
  TritonTypeRank = 17,
  TritonTypeLayoutRank = 18,
  TritonTypeAllocRank = 19,
  TritonTypeAllocFits = 20,
  TritonTypePow2Tail = 21,
  TritonTypeNonzero = 22,
  TritonTypePow2 = 23,
  TritonTypeAllocPow2 = 24,
  TritonTypeNvmmaWidth = 25,
  TritonTypeByteElems = 26,
  TritonReinterpretSpace = 27,
  TritonReinterpretMutability = 28,
  TritonReinterpretNoSubview = 29,
  TritonReinterpretSameSize = 30,
  TritonReinterpretLayout = 31,
  TritonReinterpretResultSubview = 32,
  TritonReinterpretFits = 33,
  TritonReinterpretOwned = 34,
  TritonIndexElem = 35,
  TritonIndexRank = 36,
  TritonIndexOfIndex = 37,
  TritonIndexShape = 38,
  TritonIndexSubview = 39,
  TritonIndexPrefix = 40,
  TritonIndexResultAlloc = 41,
  TritonIndexEncoding = 42,
  TritonSubsliceElem = 43,
  TritonSubsliceOffsets = 44,
  TritonSubsliceRank = 45,
  TritonSubsliceEncoding = 46,
  TritonSubsliceAllocShape = 47,
  TritonSubsliceBounds = 48,
  TritonSubsliceStart = 49,
  TritonSubsliceUnsplit = 50,
  TritonSubsliceTile = 51,
  TritonSubsliceSwizzle = 52,
  TritonSubsliceLayout = 53,
  TritonSubsliceNvmmaRows = 54,
  TritonReinterpretNvmmaRows = 55,
};

inline constexpr std::size_t kNumRules = 56;

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
    "triton.op.stock",
    "triton.type.rank",
    "triton.type.layout_rank",
    "triton.type.alloc_rank",
    "triton.type.alloc_fits",
    "triton.type.pow2_tail",
    "triton.type.nonzero",
    "triton.type.pow2",
    "triton.type.alloc_pow2",
    "triton.type.nvmma_width",
    "triton.type.byte_elems",
    "triton.reinterpret.space",
    "triton.reinterpret.mutability",
    "triton.reinterpret.no_subview",
    "triton.reinterpret.same_size",
    "triton.reinterpret.layout",
    "triton.reinterpret.result_subview",
    "triton.reinterpret.fits",
    "triton.reinterpret.owned",
    "triton.index.elem",
    "triton.index.rank",
    "triton.index.of_index",
    "triton.index.shape",
    "triton.index.subview",
    "triton.index.prefix",
    "triton.index.result_alloc",
    "triton.index.encoding",
    "triton.subslice.elem",
    "triton.subslice.offsets",
    "triton.subslice.rank",
    "triton.subslice.encoding",
    "triton.subslice.alloc_shape",
    "triton.subslice.bounds",
    "triton.subslice.start",
    "triton.subslice.unsplit",
    "triton.subslice.tile",
    "triton.subslice.swizzle",
    "triton.subslice.layout",
    "triton.subslice.nvmma_rows",
    "triton.reinterpret.nvmma_rows",
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
    "tle.memdesc_alias is not a stock Triton op",
    "rank 0 memdesc is not allowed",
    "rank must be equal to or one less than the shape size",
    "alloc shape must have at least as many dimensions as shape",
    "shape must be less than or equal to allocShape",
    "shape must have power-of-2 and non-zero dimensions",
    "shape has 0 dimension",
    "shape must have power-of-2 and non-zero dimensions",
    "alloc shape must have power-of-2 and non-zero dimensions",
    "block shape along the contiguous dimension is too small for the swizzle byte width",
    "shared-memory element type bit width must be a multiple of 8",
    "source and result must have the same memory space",
    "source and result must have the same mutability",
    "source and result must not be subviews; reinterpret the parent descriptor and then take a subview",
    "source and result must have the same logical storage size",
    "Triton 3.8 aborts on this reinterpret (layout conversion assert)",
    "result must not be a subview",
    "result shared-memory footprint exceeds the source view",
    "result shared-memory footprint includes offsets not owned by the source subview",
    "result element type must match desc element type",
    "result rank must be input rank - 1",
    "We don't allow taking memdesc_index of a memdesc_index",
    "result shape must equal to srcShape[1:]",
    "We don't support memdesc_index of a subview",
    "We only support memdesc_index of a multibuffer-prefix subview",
    "alloc shape must match shape for the result",
    "src and result must have the same encoding",
    "result element type must match desc element type",
    "offsets must have the same rank as input",
    "result rank must equal to input rank",
    "src and result must have the same encoding",
    "source and result must have the same allocation shape",
    "The split offset may not exceed the source shape",
    "The split offset may not exceed the source shape",
    "A non zero offset found in a dimension that is not being split",
    "The split offset may not touch the tile",
    "We don't support splitting along the swizzling pattern",
    "Triton aborts on this subslice (layout conversion assert)",
    "Triton aborts on this subslice (NVMMA layout shorter than its swizzle pattern)",
    "Triton aborts on this reinterpret (NVMMA layout shorter than its swizzle pattern)",
};

enum class Profile : int {
  Flagtree = 0,
  Safe = 1,
  Triton_3_6 = 2,
  Triton_3_7 = 3,
  Triton_3_8 = 4,
  Triton_3_9 = 5,
};

inline constexpr std::size_t kNumProfiles = 6;

inline constexpr const char *kProfileNames[kNumProfiles] = {
    "flagtree",
    "safe",
    "triton-3.6",
    "triton-3.7",
    "triton-3.8",
    "triton-3.9",
};

// Bit i set: the profile enforces rule i.
inline constexpr std::uint64_t kProfileMasks[kNumProfiles] = {
    0xfffu,  // flagtree
    0xffffu,  // safe
    0x3c3af8003f0000u,  // triton-3.6
    0x3c3af8027f0000u,  // triton-3.7
    0x3e7ef8fa7f0000u,  // triton-3.8
    0xddff7f1fdf0000u,  // triton-3.9
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
  if (!(I(f.op) == I(0))) return false;
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
  return !f.src_static || !f.res_static || I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8)) > I(INT64_C(9223372036854775807)) || I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(INT64_C(9223372036854775807)) || I(f.src_bits) < I(1);
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

// triton.op.stock: The op exists in stock Triton.
inline bool fires_triton_op_stock(const Facts &f) {
  using namespace detail;
  return I(f.op) == I(0);
}

// triton.type.rank: A memdesc has rank >= 1.
inline bool fires_triton_type_rank(const Facts &f) {
  using namespace detail;
  return I(f.src_rank) < I(1) || I(f.res_rank) < I(1);
}

// triton.type.layout_rank: The layout rank is the shape rank or one less.
inline bool fires_triton_type_layout_rank(const Facts &f) {
  using namespace detail;
  return I(f.src_rank) - I(f.src_lay_rank) < I(0) || I(f.src_rank) - I(f.src_lay_rank) > I(1) || I(f.res_rank) - I(f.res_lay_rank) < I(0) || I(f.res_rank) - I(f.res_lay_rank) > I(1);
}

// triton.type.alloc_rank: The alloc shape has at least the shape's rank.
inline bool fires_triton_type_alloc_rank(const Facts &f) {
  using namespace detail;
  return I(f.src_alloc_rank) < I(f.src_rank) || I(f.res_alloc_rank) < I(f.res_rank);
}

// triton.type.alloc_fits: The shape fits in the alloc shape.
inline bool fires_triton_type_alloc_fits(const Facts &f) {
  return !f.src_alloc_fits || !f.res_alloc_fits;
}

// triton.type.pow2_tail: Every dim after the first is a power of 2.
inline bool fires_triton_type_pow2_tail(const Facts &f) {
  return !f.src_tail_pow2 || !f.res_tail_pow2;
}

// triton.type.nonzero: No zero dim.
inline bool fires_triton_type_nonzero(const Facts &f) {
  return !f.src_nonzero || !f.res_nonzero;
}

// triton.type.pow2: Every dim the layout covers is a power of 2.
inline bool fires_triton_type_pow2(const Facts &f) {
  using namespace detail;
  return !f.src_tail_pow2 || !f.res_tail_pow2 || ((I(f.src_lay_rank) < I(f.src_rank) ? false : !f.src_d0_pow2)) || ((I(f.res_lay_rank) < I(f.res_rank) ? false : !f.res_d0_pow2));
}

// triton.type.alloc_pow2: Every alloc-shape dim after the first is a power of 2.
inline bool fires_triton_type_alloc_pow2(const Facts &f) {
  return !f.src_alloc_tail_pow2 || !f.res_alloc_tail_pow2;
}

// triton.type.nvmma_width: An NVMMA layout's contiguous dim spans a swizzle row.
inline bool fires_triton_type_nvmma_width(const Facts &f) {
  return !f.src_nvmma_fits || !f.res_nvmma_fits;
}

// triton.type.byte_elems: Shared-memory elements are whole bytes.
inline bool fires_triton_type_byte_elems(const Facts &f) {
  using namespace detail;
  return I(f.src_bits) < I(8) || I(f.res_bits) < I(8) || I(f.src_bits) % I(8) != I(0) || I(f.res_bits) % I(8) != I(0);
}

// triton.reinterpret.space: Reinterpret keeps the memory space.
inline bool fires_triton_reinterpret_space(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return I(f.src_space) != I(f.res_space);
}

// triton.reinterpret.mutability: Reinterpret keeps mutability.
inline bool fires_triton_reinterpret_mutability(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return f.src_mutable != f.res_mutable;
}

// triton.reinterpret.no_subview: 3.8: neither side is a subview.
inline bool fires_triton_reinterpret_no_subview(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return f.src_subview || f.res_subview;
}

// triton.reinterpret.same_size: 3.8: the logical storage size is unchanged.
inline bool fires_triton_reinterpret_same_size(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1) && f.src_static && f.res_static)) return false;
  return I(f.src_elems) * I(f.src_bits) != I(f.res_elems) * I(f.res_bits);
}

// triton.reinterpret.layout: 3.8 aborts on some reinterprets.
inline bool fires_triton_reinterpret_layout(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return (!f.src_d0_pow2 && I(f.src_lay_rank) >= I(f.src_rank)) || (!f.res_d0_pow2 && I(f.res_lay_rank) >= I(f.res_rank)) || !f.src_nvmma_rows || !f.res_nvmma_rows;
}

// triton.reinterpret.result_subview: 3.9: the result is not a subview.
inline bool fires_triton_reinterpret_result_subview(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return f.res_subview;
}

// triton.reinterpret.fits: 3.9: the result fits in the source view.
inline bool fires_triton_reinterpret_fits(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1) && f.src_static && f.res_static)) return false;
  return I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(f.src_elems) * ((I(f.src_bits) + I(7)) / I(8));
}

// triton.reinterpret.owned: 3.9: a subview source owns the result's bytes.
inline bool fires_triton_reinterpret_owned(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1) && f.src_static && f.res_static && f.src_subview)) return false;
  return I(f.res_elems) * ((I(f.res_bits) + I(7)) / I(8)) > I(f.run) * ((I(f.src_bits) + I(7)) / I(8));
}

// triton.index.elem: Index keeps the element type.
inline bool fires_triton_index_elem(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return !f.same_elem;
}

// triton.index.rank: Index drops exactly one dim.
inline bool fires_triton_index_rank(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return I(f.res_rank) + I(1) != I(f.src_rank);
}

// triton.index.of_index: No index of a view with a longer alloc shape.
inline bool fires_triton_index_of_index(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return I(f.src_alloc_rank) != I(f.src_rank);
}

// triton.index.shape: The result shape is the source shape without its first dim.
inline bool fires_triton_index_shape(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return !f.idx_shape_ok;
}

// triton.index.subview: 3.6/3.8: no index of a subview.
inline bool fires_triton_index_subview(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return f.src_subview;
}

// triton.index.prefix: 3.9: only a leading-dim subview can be indexed.
inline bool fires_triton_index_prefix(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return f.src_subview && !f.src_prefix_sub;
}

// triton.index.result_alloc: The index result is a root-shaped view.
inline bool fires_triton_index_result_alloc(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return f.res_subview;
}

// triton.index.encoding: 3.8+: index keeps the layout.
inline bool fires_triton_index_encoding(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(3))) return false;
  return !f.same_enc;
}

// triton.subslice.elem: Subslice keeps the element type.
inline bool fires_triton_subslice_elem(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2))) return false;
  return !f.same_elem;
}

// triton.subslice.offsets: One offset per source dim.
inline bool fires_triton_subslice_offsets(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2))) return false;
  return !f.sub_rank_ok;
}

// triton.subslice.rank: Subslice keeps the rank.
inline bool fires_triton_subslice_rank(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2))) return false;
  return I(f.src_rank) != I(f.res_rank);
}

// triton.subslice.encoding: 3.8+: subslice keeps the layout.
inline bool fires_triton_subslice_encoding(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2))) return false;
  return !f.same_enc;
}

// triton.subslice.alloc_shape: 3.9: subslice keeps the alloc shape.
inline bool fires_triton_subslice_alloc_shape(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2))) return false;
  return !f.same_alloc;
}

// triton.subslice.bounds: 3.9: the subslice lies inside the source.
inline bool fires_triton_subslice_bounds(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_rank_ok)) return false;
  return !f.sub_in_bounds;
}

// triton.subslice.start: 3.8: every offset is below the source size.
inline bool fires_triton_subslice_start(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split && f.sub_rank_ok)) return false;
  return !f.sub_off_lt;
}

// triton.subslice.unsplit: Dims that are not split have offset 0.
inline bool fires_triton_subslice_unsplit(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split && f.sub_rank_ok)) return false;
  return !f.sub_zero_ok;
}

// triton.subslice.tile: A split offset is a multiple of the result size.
inline bool fires_triton_subslice_tile(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split && f.sub_rank_ok)) return false;
  return !f.sub_tile_ok;
}

// triton.subslice.swizzle: A split does not cut the swizzle pattern.
inline bool fires_triton_subslice_swizzle(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split && f.sub_rank_ok)) return false;
  return !f.sub_swz_ok;
}

// triton.subslice.layout: 3.6/3.8 abort on a split of some sources.
inline bool fires_triton_subslice_layout(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split)) return false;
  return I(f.src_lay_rank) != I(f.src_rank) || !f.src_d0_pow2 || !f.src_nvmma_fits || !f.src_nvmma_rows;
}

// triton.subslice.nvmma_rows: 3.9 aborts on a split of a short NVMMA source.
inline bool fires_triton_subslice_nvmma_rows(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(2) && f.sub_split)) return false;
  return !f.src_nvmma_rows;
}

// triton.reinterpret.nvmma_rows: 3.9 aborts on a reinterpret of a short NVMMA view.
inline bool fires_triton_reinterpret_nvmma_rows(const Facts &f) {
  using namespace detail;
  if (!(I(f.op) == I(1))) return false;
  return !f.src_nvmma_rows || !f.res_nvmma_rows;
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
    case RuleId::TritonOpStock: return fires_triton_op_stock(f);
    case RuleId::TritonTypeRank: return fires_triton_type_rank(f);
    case RuleId::TritonTypeLayoutRank: return fires_triton_type_layout_rank(f);
    case RuleId::TritonTypeAllocRank: return fires_triton_type_alloc_rank(f);
    case RuleId::TritonTypeAllocFits: return fires_triton_type_alloc_fits(f);
    case RuleId::TritonTypePow2Tail: return fires_triton_type_pow2_tail(f);
    case RuleId::TritonTypeNonzero: return fires_triton_type_nonzero(f);
    case RuleId::TritonTypePow2: return fires_triton_type_pow2(f);
    case RuleId::TritonTypeAllocPow2: return fires_triton_type_alloc_pow2(f);
    case RuleId::TritonTypeNvmmaWidth: return fires_triton_type_nvmma_width(f);
    case RuleId::TritonTypeByteElems: return fires_triton_type_byte_elems(f);
    case RuleId::TritonReinterpretSpace: return fires_triton_reinterpret_space(f);
    case RuleId::TritonReinterpretMutability: return fires_triton_reinterpret_mutability(f);
    case RuleId::TritonReinterpretNoSubview: return fires_triton_reinterpret_no_subview(f);
    case RuleId::TritonReinterpretSameSize: return fires_triton_reinterpret_same_size(f);
    case RuleId::TritonReinterpretLayout: return fires_triton_reinterpret_layout(f);
    case RuleId::TritonReinterpretResultSubview: return fires_triton_reinterpret_result_subview(f);
    case RuleId::TritonReinterpretFits: return fires_triton_reinterpret_fits(f);
    case RuleId::TritonReinterpretOwned: return fires_triton_reinterpret_owned(f);
    case RuleId::TritonIndexElem: return fires_triton_index_elem(f);
    case RuleId::TritonIndexRank: return fires_triton_index_rank(f);
    case RuleId::TritonIndexOfIndex: return fires_triton_index_of_index(f);
    case RuleId::TritonIndexShape: return fires_triton_index_shape(f);
    case RuleId::TritonIndexSubview: return fires_triton_index_subview(f);
    case RuleId::TritonIndexPrefix: return fires_triton_index_prefix(f);
    case RuleId::TritonIndexResultAlloc: return fires_triton_index_result_alloc(f);
    case RuleId::TritonIndexEncoding: return fires_triton_index_encoding(f);
    case RuleId::TritonSubsliceElem: return fires_triton_subslice_elem(f);
    case RuleId::TritonSubsliceOffsets: return fires_triton_subslice_offsets(f);
    case RuleId::TritonSubsliceRank: return fires_triton_subslice_rank(f);
    case RuleId::TritonSubsliceEncoding: return fires_triton_subslice_encoding(f);
    case RuleId::TritonSubsliceAllocShape: return fires_triton_subslice_alloc_shape(f);
    case RuleId::TritonSubsliceBounds: return fires_triton_subslice_bounds(f);
    case RuleId::TritonSubsliceStart: return fires_triton_subslice_start(f);
    case RuleId::TritonSubsliceUnsplit: return fires_triton_subslice_unsplit(f);
    case RuleId::TritonSubsliceTile: return fires_triton_subslice_tile(f);
    case RuleId::TritonSubsliceSwizzle: return fires_triton_subslice_swizzle(f);
    case RuleId::TritonSubsliceLayout: return fires_triton_subslice_layout(f);
    case RuleId::TritonSubsliceNvmmaRows: return fires_triton_subslice_nvmma_rows(f);
    case RuleId::TritonReinterpretNvmmaRows: return fires_triton_reinterpret_nvmma_rows(f);
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
