"""Generator: verifier glue for FlagTree's ``tle.memdesc_alias`` (``MemDescAliasOp``).

The generated ``MemDescAliasOpVerify.cpp`` defines ``tle_alias::verifyMemDescAlias``, the
whole body of ``MemDescAliasOp::verify()``: it reads the rule facts from the source and result
``triton::gpu::MemDescType``s and the ``offset_bytes`` attribute, runs ``tle_alias::check``
from ``alias_rules.h`` and reports each violated rule as an op error. The C++ around the fact
table is fixed text here; the fact table, the messages and the constants come from the spec,
so a new fact or rule cannot be forgotten (the generator fails until it is mapped).
"""

from __future__ import annotations

import re

from alias_spec.backends.syntax import CPP_HEADER as HEADER
from alias_spec.backends.syntax import cstr
from alias_spec.model.catalogue import Rule, Spec, spec
from alias_spec.model.facts import CONSTANTS, FACTS

# C++ expression for every fact, over the locals of verifyMemDescAlias.
FACT_EXPR: dict[str, str] = {
    # Frontend-only rules: the op exists only after the frontend accepted a buffered source,
    # no init_value and the smem scope, so those facts pass here.
    "src_buffered": "true",
    "init_given": "false",
    "scope": "kSmem",
    "src_space": "spaceOf(srcTy)",
    "res_space": "spaceOf(resTy)",
    "src_mutable": "srcTy.getMutableMemory()",
    "res_mutable": "resTy.getMutableMemory()",
    "off_int": "true",  # an i64 attribute is always an integer
    "off": "offsetBytes.getValue().getSExtValue()",
    "src_bits": "bitsOf(srcTy.getElementType())",
    "res_bits": "bitsOf(resTy.getElementType())",
    "src_static": "srcStatic",
    "res_static": "resStatic",
    "src_elems": "srcElems",
    "res_elems": "resElems",
    "src_start": "geo.start",
    "src_base": "0",  # the type does not say where a memdesc_index view starts
    "run": "geo.run",
    "p0": "geo.p[0]",
    "c0": "geo.c[0]",
    "p1": "geo.p[1]",
    "c1": "geo.c[1]",
    "p2": "geo.p[2]",
    "c2": "geo.c[2]",
    "align": "allocAlignment(srcTy)",
    "swz": "swizzleRepeat(resTy.getEncoding())",
    "op": "0",  # this verifier is tle.memdesc_alias's own: OP_ALIAS
}

_VERIFIER_TEXT = re.compile(r"MemDescAliasOp::verify \(C\+\+\) \('([^']+)'\)")


# The order in which FlagTree's MemDescAliasOp::verify runs its checks (it stops at the first
# that fails). The catalogue lists alias.scope.smem, also a frontend check, before
# alias.space.match; FlagTree checks the spaces match first.
VERIFIER_ORDER: tuple[str, ...] = (
    "alias.space.match",
    "alias.scope.smem",
    "alias.mutability",
    "alias.offset.nonneg",
    "alias.offset.i32",
    "alias.dtype.addressable",
    "alias.offset.aligned",
    "alias.size.static",
    "alias.range.fits",
)


def verifier_rank(
    sp: Spec | None = None, verifier_order: tuple[str, ...] = VERIFIER_ORDER
) -> list[int]:
    """Per rule (catalogue order), its place in ``verifier_order``; the rules FlagTree's
    verifier does not check follow, in catalogue order."""
    ids = [r.id for r in (sp or spec()).rules]
    unknown = [i for i in verifier_order if i not in ids]
    if unknown:
        raise ValueError(f"gen_mlir.VERIFIER_ORDER names unknown rules {unknown}")
    rest = [i for i in ids if i not in verifier_order]
    order = [*verifier_order, *rest]
    return [order.index(i) for i in ids]


def verifier_message(rule: Rule) -> str:
    """FlagTree's C++ verifier text where it differs from the frontend's, else the rule's."""
    m = _VERIFIER_TEXT.search(rule.provenance)
    return m.group(1) if m else rule.message


_PRELUDE = """\
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "alias_rules.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "triton/Dialect/TritonGPU/IR/Dialect.h"
#include "triton/Dialect/TritonNvidiaGPU/IR/Dialect.h"

namespace tle_alias {
namespace {

namespace ttg = mlir::triton::gpu;
namespace ttng = mlir::triton::nvidia_gpu;

__extension__ typedef __int128 Wide;
constexpr Wide kInt64Max = std::numeric_limits<std::int64_t>::max();

// FlagTree's shipped rules by default; build with -DTLE_ALIAS_PROFILE_SAFE for the rules
// FEP-0065 promises (physical containment, absolute alignment).
#ifdef TLE_ALIAS_PROFILE_SAFE
constexpr Profile kProfile = Profile::Safe;
#else
constexpr Profile kProfile = Profile::Flagtree;
#endif
"""

_HELPERS = """\
std::int64_t spaceOf(ttg::MemDescType ty) {
  mlir::Attribute space = ty.getMemorySpace();
  if (mlir::isa_and_nonnull<ttg::SharedMemorySpaceAttr>(space)) return kSmem;
  if (mlir::isa_and_nonnull<ttng::TensorMemorySpaceAttr>(space)) return kTmem;
  return kGlobal;  // any other space: not a shared-memory buffer
}

// Bits per element; 0 (not byte-addressable) for element types without a bit width.
std::int64_t bitsOf(mlir::Type elem) {
  return elem.isIntOrFloat() ? static_cast<std::int64_t>(elem.getIntOrFloatBitWidth()) : 0;
}

// Bytes after which an NVMMA swizzle pattern repeats (8 rows of the swizzle width); 0 if
// the layout is not a swizzled NVMMA one.
std::int64_t swizzleRepeat(mlir::Attribute enc) {
  if (auto nvmma = mlir::dyn_cast_or_null<ttg::NVMMASharedEncodingAttr>(enc))
    return 8 * static_cast<std::int64_t>(nvmma.getSwizzlingByteWidth());
  return 0;
}

// What the allocation's own layout guarantees for its start: 16 bytes, or the swizzle
// repeat of an NVMMA layout when larger.
std::int64_t allocAlignment(ttg::MemDescType src) {
  std::int64_t repeat = swizzleRepeat(src.getEncoding());
  return repeat > 16 ? repeat : 16;
}

// Element count of a shape, as FlagTree's verifier counts it: dims multiplied in order, each
// product checked against int64 before it is formed; false for a dynamic or negative dim or
// a count past int64. A zero dim ends the growth, so dims after it cannot overflow, but a
// count that overflowed before it stays an error. (The byte size, count x element bytes,
// is judged by alias.size.static.)
bool staticElems(llvm::ArrayRef<std::int64_t> shape, std::int64_t &elems) {
  std::int64_t n = 1;
  elems = 0;
  for (std::int64_t d : shape) {
    if (mlir::ShapedType::isDynamic(d) || d < 0) return false;
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return false;
    n *= d;
  }
  elems = n;
  return true;
}

// Which elements of its allocation a static view covers: runs of `run` contiguous elements,
// repeated along at most three strided levels (outermost first), padded with single-count
// levels that span everything inside. Same model as alias_spec/model/physical.py, except that a
// view with more than three levels keeps its three innermost (a subset of what it covers,
// so containment checked against it stays sound).
struct Geometry {
  std::int64_t start = 0;
  std::int64_t run = 0;
  std::int64_t p[3] = {0, 0, 0};
  std::int64_t c[3] = {1, 1, 1};
};

bool footprint(llvm::ArrayRef<std::int64_t> shape, llvm::ArrayRef<std::int64_t> alloc,
               llvm::ArrayRef<std::int64_t> offsets, Geometry &g) {
  g = Geometry();
  const std::size_t n = alloc.size();
  if (shape.size() > n || offsets.size() != n) return false;
  std::vector<Wide> s(n, 1), stride(n, 1);
  for (std::size_t i = 0; i < shape.size(); ++i) s[n - shape.size() + i] = shape[i];
  // A view must lie inside its allocation (Triton's type and subslice verifiers see to it);
  // checking here keeps every product below bounded by the allocation's strides.
  for (std::size_t i = 0; i < n; ++i) {
    if (alloc[i] < 0 || s[i] < 0 || offsets[i] < 0 || offsets[i] + s[i] > alloc[i]) return false;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (s[i] == 0) return true;  // an empty view covers nothing
  for (std::size_t i = n - 1; i > 0; --i) {
    stride[i - 1] = stride[i] * alloc[i];
    if (stride[i - 1] > kInt64Max) return false;
  }
  Wide start = 0;
  for (std::size_t i = 0; i < n; ++i) start += offsets[i] * stride[i];
  std::size_t inner = n - 1;
  while (inner > 0 && s[inner] == alloc[inner]) --inner;
  const Wide run = s[inner] * stride[inner];
  std::vector<Wide> lp, lc;  // levels, outermost first
  for (std::size_t i = 0; i < inner; ++i) {
    if (s[i] == 1) continue;
    if (!lp.empty() && lp.back() == s[i] * stride[i]) {
      lp.back() = stride[i];  // the outer level steps exactly over this one: merge
      lc.back() *= s[i];
    } else {
      lp.push_back(stride[i]);
      lc.push_back(s[i]);
    }
  }
  if (lp.size() > 3) {
    lp.erase(lp.begin(), lp.end() - 3);
    lc.erase(lc.begin(), lc.end() - 3);
  }
  Wide extent = run;
  for (std::size_t k = lp.size(); k-- > 0;) extent += (lc[k] - 1) * lp[k];
  if (start > kInt64Max || run > kInt64Max || extent > kInt64Max) return false;
  const std::size_t pad = 3 - lp.size();
  for (std::size_t k = 0; k < 3; ++k) {
    g.p[k] = static_cast<std::int64_t>(k < pad ? extent : lp[k - pad]);
    g.c[k] = static_cast<std::int64_t>(k < pad ? 1 : lc[k - pad]);
  }
  g.start = static_cast<std::int64_t>(start);
  g.run = static_cast<std::int64_t>(run);
  return true;
}

// One axis of the allocation's linear order: the digit (x / unit) % count of an element's
// coordinate x along alloc dim `dim` (alias_spec/model/physical.py's Axis).
struct Axis {
  std::size_t dim;
  std::int64_t unit, count;
};

// Where the source's layout puts its allocation: its axes, slowest first (layouts.axes_of).
// A swizzled layout orders the dims it covers by its order (fastest first); an NVMMA layout
// makes its contiguous dim (the second-to-last when transposed) fastest, cut into blocks of one
// swizzle row that lie after every row of the block before. Dims a layout leaves out are
// slowest, and so are an NVMMA allocation's dims before the view's (buffers it was indexed out
// of). Empty: row-major (no layout, another one, or an order that is no permutation).
std::vector<Axis> axesOf(mlir::Attribute enc, llvm::ArrayRef<std::int64_t> alloc,
                         std::int64_t bits, std::size_t viewRank) {
  std::vector<Axis> axes;
  const std::size_t n = alloc.size();
  if (auto sw = mlir::dyn_cast_or_null<ttg::SwizzledSharedEncodingAttr>(enc)) {
    llvm::ArrayRef<unsigned> order = sw.getOrder();
    const std::size_t rank = order.size();
    if (rank == 0 || rank > n) return axes;
    std::vector<bool> seen(rank, false);
    for (unsigned d : order) {
      if (d >= rank || seen[d]) return axes;
      seen[d] = true;
    }
    const std::size_t pad = n - rank;
    for (std::size_t d = 0; d < pad; ++d) axes.push_back({d, 1, alloc[d]});
    for (std::size_t k = rank; k-- > 0;) axes.push_back({order[k] + pad, 1, alloc[order[k] + pad]});
    return axes;
  }
  auto nvmma = mlir::dyn_cast_or_null<ttg::NVMMASharedEncodingAttr>(enc);
  if (!nvmma || std::min(n, viewRank) < 2) return axes;
  const std::size_t fast = nvmma.getTransposed() ? n - 2 : n - 1;
  const std::size_t rows = nvmma.getTransposed() ? n - 1 : n - 2;
  for (std::size_t d = 0; d < n; ++d)
    if (d != fast && d != rows) axes.push_back({d, 1, alloc[d]});
  const std::int64_t width = alloc[fast];
  const std::int64_t elemBits = nvmma.getElementBitWidth() ? nvmma.getElementBitWidth() : bits;
  const std::int64_t elemBytes = (elemBits + 7) / 8;
  const std::int64_t swizzle = nvmma.getSwizzlingByteWidth();
  const std::int64_t block = swizzle && elemBytes > 0 ? swizzle / elemBytes : 0;
  // With one row the blocks lie end to end: the dim is dense.
  if (block > 0 && block < width && width % block == 0 && alloc[rows] > 1) {
    axes.push_back({fast, block, width / block});
    axes.push_back({rows, 1, alloc[rows]});
    axes.push_back({fast, 1, block});
  } else {
    axes.push_back({rows, 1, alloc[rows]});
    axes.push_back({fast, 1, width});
  }
  return axes;
}

// The view on the axes (physical.view_on_axes): each axis's size, the view's extent and its
// offset there. False for a view outside its allocation or one that cuts a block unevenly
// (across a block boundary, or part of a block with another): not modelled.
bool viewOnAxes(const std::vector<Axis> &axes, llvm::ArrayRef<std::int64_t> shape,
                llvm::ArrayRef<std::int64_t> alloc, llvm::ArrayRef<std::int64_t> offsets,
                std::vector<std::int64_t> &sizes, std::vector<std::int64_t> &ext,
                std::vector<std::int64_t> &off) {
  const std::size_t n = alloc.size();
  if (shape.size() > n || offsets.size() != n) return false;
  std::vector<std::int64_t> s(n, 1);
  for (std::size_t i = 0; i < shape.size(); ++i) s[n - shape.size() + i] = shape[i];
  for (std::size_t i = 0; i < n; ++i)
    if (alloc[i] < 0 || s[i] < 0 || offsets[i] < 0 || offsets[i] > alloc[i] - s[i]) return false;
  for (const Axis &a : axes) {
    const std::int64_t o = offsets[a.dim], t = s[a.dim];
    sizes.push_back(a.count);
    if (a.unit == 1 && a.count == alloc[a.dim]) {
      ext.push_back(t);
      off.push_back(o);
    } else if (a.unit == 1 && o % a.count + t <= a.count) {  // inside one block
      ext.push_back(t);
      off.push_back(o % a.count);
    } else if (a.unit == 1 && o % a.count == 0 && t % a.count == 0) {  // whole blocks
      ext.push_back(a.count);
      off.push_back(0);
    } else if (a.unit > 1 && (o % a.unit + t <= a.unit || (o % a.unit == 0 && t % a.unit == 0))) {
      ext.push_back(t / a.unit > 1 ? t / a.unit : 1);  // the block digit
      off.push_back(o / a.unit % a.count);
    } else {
      return false;
    }
  }
  return true;
}

// Element offsets of the source view inside its allocation, per allocation dim, summed over
// the memdesc_subslice ops that produced it. Other producers (memdesc_index with a runtime
// index, block arguments) contribute nothing known: the FlagTree profile never reads them.
std::vector<std::int64_t> viewOffsets(mlir::Value src, std::size_t allocRank) {
  std::vector<std::int64_t> offsets(allocRank, 0);
  while (auto sub = src.getDefiningOp<ttg::MemDescSubsliceOp>()) {
    llvm::ArrayRef<std::int32_t> o = sub.getOffsets();
    if (o.size() > allocRank) break;
    for (std::size_t i = 0; i < o.size(); ++i) offsets[allocRank - o.size() + i] += o[i];
    src = sub.getSrc();
  }
  return offsets;
}

}  // namespace

// The body of MemDescAliasOp::verify(): every rule of the profile that the op violates is
// reported as one op error, FlagTree's verifier text first, then the rule id.
mlir::LogicalResult verifyMemDescAlias(mlir::Operation *op, mlir::Value src,
                                       mlir::Type resultType, mlir::IntegerAttr offsetBytes) {
  auto srcTy = mlir::dyn_cast<ttg::MemDescType>(src.getType());
  auto resTy = mlir::dyn_cast<ttg::MemDescType>(resultType);
  if (!srcTy || !resTy) return op->emitOpError("expects memdesc source and result");
  if (!offsetBytes || offsetBytes.getValue().getBitWidth() > 64)
    return op->emitOpError("expects an i64 offset_bytes attribute");

  std::int64_t srcElems = 0, resElems = 0;
  const bool srcStatic = staticElems(srcTy.getShape(), srcElems);
  const bool resStatic = staticElems(resTy.getShape(), resElems);
  Geometry geo;
  if (srcStatic) {
    llvm::ArrayRef<std::int64_t> alloc = srcTy.getAllocShape();
    if (alloc.empty()) alloc = srcTy.getShape();
    const std::vector<std::int64_t> offsets = viewOffsets(src, alloc.size());
    // The layout's order and NVMMA blocks decide which bytes a subview covers.
    const std::vector<Axis> axes =
        axesOf(srcTy.getEncoding(), alloc, bitsOf(srcTy.getElementType()), srcTy.getShape().size());
    std::vector<std::int64_t> sizes, ext, off;
    const bool ok = axes.empty()
                        ? footprint(srcTy.getShape(), alloc, offsets, geo)
                        : viewOnAxes(axes, srcTy.getShape(), alloc, offsets, sizes, ext, off) &&
                              footprint(ext, sizes, off, geo);
    if (!ok) geo = Geometry();
  }
"""

_TAIL = """
  const std::vector<Violation> violations = check(f, kProfile);
#ifdef TLE_ALIAS_FIRST_ERROR_ONLY
  // FlagTree's own verifier stops at its first error, in the order it checks.
  const Violation *first = nullptr;
  for (const Violation &v : violations)
    if (!first || kVerifierRank[static_cast<std::size_t>(v.rule)] <
                      kVerifierRank[static_cast<std::size_t>(first->rule)])
      first = &v;
  if (first) {
    const auto index = static_cast<std::size_t>(first->rule);
    op->emitOpError(kVerifierMessages[index]) << " [" << kRuleIds[index] << "]";
  }
#else
  for (const Violation &v : violations) {
    const auto index = static_cast<std::size_t>(v.rule);
    op->emitOpError(kVerifierMessages[index]) << " [" << kRuleIds[index] << "]";
  }
#endif
  return violations.empty() ? mlir::success() : mlir::failure();
}

}  // namespace tle_alias
"""


def _alias_facts(sp: Spec) -> set[str]:
    """Facts the alias profiles read; the rest describe stock Triton view ops only."""
    from alias_spec.model import dsl

    names: set[str] = set()
    for profile in ("flagtree", "safe"):
        for r in sp.rules_for(profile):
            guard, formula = sp.compiled(r)
            names |= dsl.free_vars(guard) | dsl.free_vars(formula)
    return names


def _fact_exprs(sp: Spec) -> dict[str, str]:
    """FACT_EXPR, with neutral values for facts no alias rule reads (this op is an alias:
    OP_ALIAS is 0, and the Triton view facts are off)."""
    out = dict(FACT_EXPR)
    used = _alias_facts(sp)
    for f in FACTS:
        if f.name not in out and f.name not in used:
            out[f.name] = "false" if f.sort == "bool" else "0"
    return out


def generate(sp: Spec | None = None, verifier_order: tuple[str, ...] = VERIFIER_ORDER) -> str:
    """The verifier glue of ``sp`` (default: the catalogue), its errors ranked by
    ``verifier_order`` (FlagTree's own order of checks)."""
    sp = sp or spec()
    exprs = _fact_exprs(sp)
    missing = [f.name for f in FACTS if f.name not in exprs]
    extra = sorted(set(exprs) - {f.name for f in FACTS})
    if missing or extra:
        raise ValueError(f"gen_mlir.FACT_EXPR out of date: missing {missing}, unknown {extra}")
    out = [HEADER]
    out += [
        "// Verifier glue for FlagTree's tle.memdesc_alias (MemDescAliasOp): the whole body of",
        "// MemDescAliasOp::verify(). It reads the rule facts from the source and result",
        "// triton::gpu::MemDescType and the offset_bytes attribute, runs tle_alias::check",
        "// (alias_rules.h) and reports every violated rule as an op error.",
        "//",
        "// Call site, the op's verify():",
        "//   return tle_alias::verifyMemDescAlias(getOperation(), getSrc(), getType(),",
        "//                                        getOffsetBytesAttr());",
        "//",
        "// This file belongs under third_party/tle/, which is built only with TLE, so it needs",
        "// no #ifdef __TLE__ guard (that guard is for TLE changes inside core Triton files).",
        "//",
        "// Diagnostics it can emit (profile: rule id: text):",
    ]
    for r in sp.rules:
        out.append(f"//   {'/'.join(r.profiles)}: {r.id}: {verifier_message(r)}")
        if verifier_message(r) != r.message:
            out.append(f"//     (frontend text: {r.message})")
    out += ["", _PRELUDE]
    for name, value in CONSTANTS.items():
        if name in ("SMEM", "TMEM", "GLOBAL"):
            out.append(f"constexpr std::int64_t k{name.capitalize()} = {value};")
    out += [
        "",
        "// FlagTree's verifier text per rule (catalogue order).",
        "constexpr const char *kVerifierMessages[kNumRules] = {",
    ]
    out += [f"    {cstr(verifier_message(r))}," for r in sp.rules]
    out += [
        "};",
        "",
        "// Per rule (catalogue order), its place in the order FlagTree's verifier checks in;",
        "// TLE_ALIAS_FIRST_ERROR_ONLY reports the violation that comes first there.",
        "[[maybe_unused]] constexpr std::size_t kVerifierRank[kNumRules] = {",
    ]
    out += [
        f"    {rank},  // {r.id}"
        for r, rank in zip(sp.rules, verifier_rank(sp, verifier_order), strict=True)
    ]
    out += ["};", "", _HELPERS]
    out.append("  Facts f;")
    out += [f"  f.{fact.name} = {exprs[fact.name]};" for fact in FACTS]
    out.append(_TAIL)
    return "\n".join(out)
