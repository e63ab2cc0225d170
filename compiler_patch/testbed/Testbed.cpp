// The testbed's dialects: registration, the textual forms of the memdesc type and the shared
// layouts (as Triton prints them), and MemDescAliasOp::verify, which calls the generated
// verifier (../verifier/MemDescAliasOpVerify.cpp) exactly as FlagTree's op would.

#include "Testbed.h"

#include "MemDescAliasOpVerify.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::triton;

// The generated verifier is compiled twice (see CMakeLists.txt): as is, for FlagTree's
// rules, and with the safe profile under another namespace.
namespace tle_alias_safe {
mlir::LogicalResult verifyMemDescAlias(mlir::Operation *op, mlir::Value src,
                                       mlir::Type resultType, mlir::IntegerAttr offsetBytes);
}  // namespace tle_alias_safe

namespace {
llvm::cl::opt<std::string> profileOption(
    "tle-alias-profile", llvm::cl::desc("rules tle.memdesc_alias is verified by: flagtree|safe"),
    llvm::cl::init("flagtree"));
}  // namespace

bool tle_testbed::safeProfile() { return profileOption == "safe"; }

#include "TestbedTLEDialect.cpp.inc"
#include "TestbedTTDialect.cpp.inc"
#include "TestbedTTGDialect.cpp.inc"
#include "TestbedTTNGDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TestbedTTGAttrs.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "TestbedTTNGAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "TestbedTypes.cpp.inc"

#define GET_OP_CLASSES
#include "TestbedTTOps.cpp.inc"
#define GET_OP_CLASSES
#include "TestbedTTGOps.cpp.inc"
#define GET_OP_CLASSES
#include "TestbedTLEOps.cpp.inc"

void TTDialect::initialize() { addOperations<FuncOp, ReturnOp>(); }

void gpu::TTGDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TestbedTTGAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "TestbedTypes.cpp.inc"
      >();
  addOperations<gpu::MemDescSubsliceOp>();
}

void nvidia_gpu::TTNGDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TestbedTTNGAttrs.cpp.inc"
      >();
}

Attribute nvidia_gpu::TTNGDialect::parseAttribute(DialectAsmParser &parser, Type) const {
  if (succeeded(parser.parseOptionalKeyword("tensor_memory")))
    return nvidia_gpu::TensorMemorySpaceAttr::get(getContext());
  parser.emitError(parser.getNameLoc(), "unknown ttng attribute");
  return {};
}

void nvidia_gpu::TTNGDialect::printAttribute(Attribute attr, DialectAsmPrinter &printer) const {
  if (isa<nvidia_gpu::TensorMemorySpaceAttr>(attr)) printer << "tensor_memory";
}

void tle::TLEDialect::initialize() { addOperations<tle::MemDescAliasOp>(); }

LogicalResult tle::MemDescAliasOp::verify() {
  // The call FlagTree's MemDescAliasOp::verify() makes (see ../README.md).
  if (tle_testbed::safeProfile())
    return tle_alias_safe::verifyMemDescAlias(getOperation(), getSrc(), getType(),
                                              getOffsetBytesAttr());
  return tle_alias::verifyMemDescAlias(getOperation(), getSrc(), getType(), getOffsetBytesAttr());
}

// --- tt.func: `@name(%arg: type, ...) { ... }` ------------------------------------------------

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<OpAsmParser::Argument> arguments;
  if (parser.parseSymbolName(name, "sym_name", result.attributes) ||
      parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren, /*allowType=*/true) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), arguments);
}

void FuncOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printSymbolName((*this)->getAttrOfType<StringAttr>("sym_name").getValue());
  printer << "(";
  llvm::interleaveComma(getBody().getArguments(), printer,
                        [&](BlockArgument arg) { printer.printRegionArgument(arg); });
  printer << ")";
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"sym_name"});
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

// --- layouts: `<{key = value, ...}>` ---------------------------------------------------------

namespace {

// The layout's dictionary; keys are looked up by name, so their order and any key the
// verifier does not read do not matter.
FailureOr<DictionaryAttr> parseLayoutDict(AsmParser &parser) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater()) return failure();
  return dict;
}

// An unsigned integer entry (`dflt` when absent); false (with an error) when it is no integer.
bool readUnsigned(AsmParser &parser, DictionaryAttr dict, StringRef key, unsigned dflt,
                  unsigned &out) {
  out = dflt;
  Attribute attr = dict.get(key);
  if (!attr) return true;
  auto integer = llvm::dyn_cast<IntegerAttr>(attr);
  if (!integer || integer.getValue().isNegative() || integer.getValue().getActiveBits() > 32) {
    parser.emitError(parser.getNameLoc(), "expected an unsigned 32-bit integer for ") << key;
    return false;
  }
  out = static_cast<unsigned>(integer.getValue().getZExtValue());
  return true;
}

}  // namespace

Attribute gpu::SwizzledSharedEncodingAttr::parse(AsmParser &parser, Type) {
  FailureOr<DictionaryAttr> dict = parseLayoutDict(parser);
  if (failed(dict)) return {};
  unsigned vec, perPhase, maxPhase;
  if (!readUnsigned(parser, *dict, "vec", 1, vec) ||
      !readUnsigned(parser, *dict, "perPhase", 1, perPhase) ||
      !readUnsigned(parser, *dict, "maxPhase", 1, maxPhase))
    return {};
  SmallVector<unsigned> order;
  if (Attribute attr = dict->get("order")) {
    auto list = llvm::dyn_cast<ArrayAttr>(attr);
    if (!list) {
      parser.emitError(parser.getNameLoc(), "expected a list of integers for order");
      return {};
    }
    for (Attribute item : list) {
      auto integer = llvm::dyn_cast<IntegerAttr>(item);
      if (!integer || integer.getValue().isNegative() || integer.getValue().getActiveBits() > 32) {
        parser.emitError(parser.getNameLoc(), "expected unsigned integers in order");
        return {};
      }
      order.push_back(static_cast<unsigned>(integer.getValue().getZExtValue()));
    }
  }
  return get(parser.getContext(), vec, perPhase, maxPhase, order);
}

void gpu::SwizzledSharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{vec = " << getVec() << ", perPhase = " << getPerPhase()
          << ", maxPhase = " << getMaxPhase() << ", order = [";
  llvm::interleaveComma(getOrder(), printer);
  printer << "]}>";
}

Attribute gpu::NVMMASharedEncodingAttr::parse(AsmParser &parser, Type) {
  FailureOr<DictionaryAttr> dict = parseLayoutDict(parser);
  if (failed(dict)) return {};
  unsigned swizzle, bits;
  if (!readUnsigned(parser, *dict, "swizzlingByteWidth", 0, swizzle) ||
      !readUnsigned(parser, *dict, "elementBitWidth", 0, bits))
    return {};
  bool transposed = false;
  if (Attribute attr = dict->get("transposed")) {
    auto flag = llvm::dyn_cast<BoolAttr>(attr);
    if (!flag) {
      parser.emitError(parser.getNameLoc(), "expected true or false for transposed");
      return {};
    }
    transposed = flag.getValue();
  }
  return get(parser.getContext(), swizzle, transposed, bits);
}

void gpu::NVMMASharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{swizzlingByteWidth = " << getSwizzlingByteWidth()
          << ", transposed = " << (getTransposed() ? "true" : "false")
          << ", elementBitWidth = " << getElementBitWidth() << "}>";
}

// --- the memdesc type: `<DIMSxELEM, ENCODING, SPACE[, mutable][, ALLOC_DIMS]>` ----------------

Type gpu::MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding, memorySpace;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elementType) || parser.parseComma() || parser.parseAttribute(encoding) ||
      parser.parseComma() || parser.parseAttribute(memorySpace))
    return {};
  bool mutableMemory = false;
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      mutableMemory = true;
      continue;
    }
    if (parser.parseDimensionList(allocShape, /*allowDynamic=*/false, /*withTrailingX=*/false))
      return {};
  }
  if (parser.parseGreater()) return {};
  if (allocShape.empty()) allocShape.assign(shape.begin(), shape.end());  // a root view
  return get(parser.getContext(), shape, elementType, encoding, memorySpace, mutableMemory,
             allocShape);
}

void gpu::MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) {
    if (ShapedType::isDynamic(d))
      printer << "?";
    else
      printer << d;
    printer << "x";
  }
  printer << getElementType() << ", " << getEncoding() << ", " << getMemorySpace();
  if (getMutableMemory()) printer << ", mutable";
  if (getAllocShape() != getShape()) {
    printer << ", ";
    llvm::interleave(getAllocShape(), printer, "x");
  }
  printer << ">";
}
