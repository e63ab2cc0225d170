// Driver for the generated FlagTree verifier glue (MemDescAliasOpVerify.cpp), built against
// the stand-in MLIR of mlir_standin.h by alias_spec/engines/cpp_glue.py.
//
// Reads one tle.memdesc_alias op per line on stdin, as whitespace-separated tokens:
//
//   src shape=DIMS [alloc=DIMS] elem=E enc=ENC space=S mutable=M [sub=OFFS]...
//   res shape=DIMS [alloc=DIMS] elem=E enc=ENC space=S mutable=M
//   off=VALUE:BITS
//
//   DIMS   comma-separated dims, each a decimal int64 or ? (dynamic); alloc defaults to shape
//   E      element bit width (an integer or float type), or none (another element type)
//   ENC    nvmma:W[:T:B] (NVMMA shared layout, swizzle width W bytes, transposed T 0 or 1,
//          elementBitWidth B), swizzled[:ORDER] (comma-separated order), other, or none
//   S      smem (#ttg.shared_memory), tmem (#ttng.tensor_memory), other, or none
//   M      1 (mutable) or 0
//   OFFS   comma-separated int32 offsets of one ttg.memdesc_subslice the source came from;
//          repeated sub= tokens are a chain, the op producing the source first
//   VALUE  the offset_bytes attribute, a decimal integer that fits in BITS signed bits
//          (any int64 when BITS > 64), BITS from 1 to 128
//
// Writes one line per op: the rule ids of the op errors the glue emitted, in emission order,
// separated by spaces (an error without a rule id is written as ! and its text, blanks as _).
// With --messages it writes each error's full text instead, separated by tabs. A malformed
// line is a usage error: one line on stderr naming the line and token, exit status 2.

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "mlir_standin.h"

namespace tle_alias {
mlir::LogicalResult verifyMemDescAlias(mlir::Operation *op, mlir::Value src,
                                       mlir::Type resultType, mlir::IntegerAttr offsetBytes);
}  // namespace tle_alias

namespace {

using mlir::standin::Context;
using mlir::standin::Kind;
using mlir::standin::Storage;

struct Usage {
  std::string what;
};

bool parseInt(const std::string &text, long long lo, long long hi, long long &out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

std::vector<std::int64_t> parseDims(const std::string &key, const std::string &text) {
  std::vector<std::int64_t> dims;
  for (const std::string &d : splitCommas(text)) {
    long long v = 0;
    if (d == "?") {
      dims.push_back(mlir::ShapedType::kDynamic);
    } else if (parseInt(d, std::numeric_limits<long long>::min(),
                        std::numeric_limits<long long>::max(), v)) {
      dims.push_back(v);
    } else {
      throw Usage{key + ": expected comma-separated int64 dims or ?, got '" + text + "'"};
    }
  }
  return dims;
}

struct Side {
  bool seen = false;
  std::vector<std::int64_t> shape, alloc;
  bool hasShape = false, hasAlloc = false, hasElem = false, hasEnc = false, hasSpace = false,
       hasMutable = false;
  Storage elem, enc, space;
  bool encNull = false, spaceNull = false, mutableMemory = false;
  std::vector<std::vector<std::int32_t>> subs;
};

void setOnce(bool &flag, const std::string &key) {
  if (flag) throw Usage{key + " given twice"};
  flag = true;
}

void parseKey(Side &side, bool isSource, const std::string &key, const std::string &value) {
  long long v = 0;
  if (key == "shape") {
    setOnce(side.hasShape, key);
    side.shape = parseDims(key, value);
  } else if (key == "alloc") {
    setOnce(side.hasAlloc, key);
    side.alloc = parseDims(key, value);
  } else if (key == "elem") {
    setOnce(side.hasElem, key);
    if (value == "none") {
      side.elem.kind = Kind::OtherType;
    } else if (parseInt(value, 0, 2147483648LL, v)) {
      side.elem.kind = Kind::IntOrFloat;
      side.elem.width = static_cast<unsigned>(v);
    } else {
      throw Usage{"elem: expected a bit width from 0 to 2^31 or none, got '" + value + "'"};
    }
  } else if (key == "enc") {
    setOnce(side.hasEnc, key);
    if (value == "none") {
      side.encNull = true;
    } else if (value == "swizzled" || value == "other") {
      side.enc.kind = Kind::OtherAttr;
    } else if (value.rfind("swizzled:", 0) == 0) {
      side.enc.kind = Kind::Swizzled;
      for (const std::string &o : splitCommas(value.substr(9))) {
        if (!parseInt(o, 0, 1 << 20, v))
          throw Usage{"enc: expected swizzled:ORDER (comma-separated dims), got '" + value + "'"};
        side.enc.order.push_back(static_cast<unsigned>(v));
      }
    } else if (value.rfind("nvmma:", 0) == 0) {
      std::vector<std::string> parts;
      std::string rest = value.substr(6);
      for (std::size_t at; (at = rest.find(':')) != std::string::npos; rest = rest.substr(at + 1))
        parts.push_back(rest.substr(0, at));
      parts.push_back(rest);
      long long t = 0, b = 0;
      const bool ok = (parts.size() == 1 || parts.size() == 3) &&
                      parseInt(parts[0], 0, 1 << 20, v) &&
                      (parts.size() == 1 || (parseInt(parts[1], 0, 1, t) &&
                                             parseInt(parts[2], 0, 1 << 20, b)));
      if (!ok) throw Usage{"enc: expected nvmma:W or nvmma:W:T:B, got '" + value + "'"};
      side.enc.kind = Kind::NVMMA;
      side.enc.width = static_cast<unsigned>(v);
      side.enc.transposed = t == 1;
      side.enc.value = b;
    } else {
      throw Usage{"enc: expected nvmma:W[:T:B], swizzled[:ORDER], other or none, got '" + value +
                  "'"};
    }
  } else if (key == "space") {
    setOnce(side.hasSpace, key);
    if (value == "smem") {
      side.space.kind = Kind::SharedSpace;
    } else if (value == "tmem") {
      side.space.kind = Kind::TensorSpace;
    } else if (value == "other") {
      side.space.kind = Kind::OtherAttr;
    } else if (value == "none") {
      side.spaceNull = true;
    } else {
      throw Usage{"space: expected smem, tmem, other or none, got '" + value + "'"};
    }
  } else if (key == "mutable") {
    setOnce(side.hasMutable, key);
    if (value != "0" && value != "1") throw Usage{"mutable: expected 0 or 1, got '" + value + "'"};
    side.mutableMemory = value == "1";
  } else if (key == "sub" && isSource) {
    std::vector<std::int32_t> offsets;
    for (const std::string &o : splitCommas(value)) {
      if (!parseInt(o, INT32_MIN, INT32_MAX, v))
        throw Usage{"sub: expected comma-separated int32 offsets, got '" + value + "'"};
      offsets.push_back(static_cast<std::int32_t>(v));
    }
    side.subs.push_back(offsets);
  } else {
    throw Usage{"unknown key '" + key + "' for the " + (isSource ? "source" : "result")};
  }
}

mlir::Type memdesc(Context &ctx, const Side &side, const char *who) {
  if (!side.seen) throw Usage{std::string("missing the ") + who + " section"};
  const bool has[] = {side.hasShape, side.hasElem, side.hasEnc, side.hasSpace, side.hasMutable};
  const char *names[] = {"shape", "elem", "enc", "space", "mutable"};
  for (std::size_t i = 0; i < 5; ++i)
    if (!has[i]) throw Usage{std::string(who) + ": missing " + names[i] + "="};
  Storage t;
  t.kind = Kind::MemDesc;
  t.shape = side.shape;
  t.allocShape = side.hasAlloc ? side.alloc : side.shape;
  t.elementType = ctx.make(side.elem);
  t.encoding = side.encNull ? nullptr : ctx.make(side.enc);
  t.memorySpace = side.spaceNull ? nullptr : ctx.make(side.space);
  t.mutableMemory = side.mutableMemory;
  return mlir::Type(ctx.make(t));
}

// Runs the glue on one line; returns the output line.
std::string runLine(const std::string &line, bool messages) {
  Context ctx;
  Side src, res;
  Side *cur = nullptr;
  bool hasOff = false;
  long long offValue = 0, offBits = 0;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) {
    if (tok == "src" || tok == "res") {
      cur = tok == "src" ? &src : &res;
      if (cur->seen) throw Usage{tok + " given twice"};
      cur->seen = true;
      continue;
    }
    const std::size_t eq = tok.find('=');
    if (eq == std::string::npos) throw Usage{"expected key=value, got '" + tok + "'"};
    const std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
    if (key == "off") {
      setOnce(hasOff, key);
      const std::size_t colon = value.find(':');
      if (colon == std::string::npos || !parseInt(value.substr(colon + 1), 1, 128, offBits) ||
          !parseInt(value.substr(0, colon), std::numeric_limits<long long>::min(),
                    std::numeric_limits<long long>::max(), offValue))
        throw Usage{"off: expected VALUE:BITS, got '" + value + "'"};
      if (offBits < 64) {
        const long long half = 1LL << (offBits - 1);
        if (offValue < -half || offValue >= half)
          throw Usage{"off: " + value.substr(0, colon) + " does not fit in i" +
                      std::to_string(offBits)};
      }
      continue;
    }
    if (cur == nullptr) throw Usage{"'" + tok + "' before src or res"};
    parseKey(*cur, cur == &src, key, value);
  }
  if (!hasOff) throw Usage{"missing off="};
  const mlir::Type srcType = memdesc(ctx, src, "src");
  const mlir::Type resType = memdesc(ctx, res, "res");

  // The source value: a block argument, or the result of the innermost subslice of the chain.
  mlir::Value source(srcType, nullptr);
  for (auto it = src.subs.rbegin(); it != src.subs.rend(); ++it) {
    mlir::Operation *sub = ctx.makeOp("ttg.memdesc_subslice");
    sub->operands.push_back(source);
    sub->offsets = *it;
    source = mlir::Value(srcType, sub);  // its type is not what the glue reads
  }
  Storage attr;
  attr.kind = Kind::Integer;
  attr.width = static_cast<unsigned>(offBits);
  attr.value = offValue;
  mlir::Operation *op = ctx.makeOp("tle.memdesc_alias");
  op->operands.push_back(source);
  const mlir::LogicalResult result = tle_alias::verifyMemDescAlias(
      op, source, resType, mlir::IntegerAttr(ctx.make(attr)));
  if (result.failed() != !op->errors.empty()) {
    std::cerr << "glue_main: verifier result disagrees with its errors\n";
    std::exit(3);
  }
  std::string out;
  for (std::size_t i = 0; i < op->errors.size(); ++i) {
    const std::string &e = op->errors[i];
    if (i != 0) out += messages ? '\t' : ' ';
    if (messages) {
      out += e;
      continue;
    }
    const std::size_t open = e.rfind(" [");
    if (open != std::string::npos && e.back() == ']') {
      out += e.substr(open + 2, e.size() - open - 3);
    } else {
      std::string text = "!" + e;
      for (char &c : text)
        if (std::isspace(static_cast<unsigned char>(c))) c = '_';
      out += text;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  bool messages = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--messages") == 0) {
      messages = true;
    } else {
      std::cerr << "usage: glue_main [--messages] < ops\n";
      return 2;
    }
  }
  std::ios::sync_with_stdio(false);
  std::string line, out;
  std::size_t lineNo = 0;
  while (std::getline(std::cin, line)) {
    ++lineNo;
    try {
      out += runLine(line, messages);
    } catch (const Usage &u) {
      std::cerr << "glue_main: line " << lineNo << ": " << u.what << '\n';
      return 2;
    }
    out += '\n';
  }
  std::cout << out;
  std::cout.flush();
  return std::cout ? 0 : 1;
}
