// The testbed's stand-ins for what FlagTree's tree provides around tle.memdesc_alias: just
// enough of the ttg, ttng and tle dialects to parse the patch's lit tests as Triton prints
// them and to hand the generated verifier real MLIR types. Hand-written, not generated: only
// ../ods/MemDescAliasOp.td (included at the end) comes from the spec.

#ifndef TLE_ALIAS_TESTBED_TD
#define TLE_ALIAS_TESTBED_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::mlir::triton";
}

def TTG_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::triton::gpu";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

// Its one attribute is read and printed by hand (Testbed.cpp): the generated attribute parsers
// of two dialects cannot share one translation unit.
def TTNG_Dialect : Dialect {
  let name = "ttng";
  let cppNamespace = "::mlir::triton::nvidia_gpu";
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;
  }];
}

def TLE_Dialect : Dialect {
  let name = "tle";
  let cppNamespace = "::mlir::triton::tle";
}

// Memory spaces: the verifier asks only which one a type names.
def TTG_SharedMemorySpaceAttr : AttrDef<TTG_Dialect, "SharedMemorySpace"> {
  let mnemonic = "shared_memory";
}

def TTNG_TensorMemorySpaceAttr : AttrDef<TTNG_Dialect, "TensorMemorySpace"> {
  let attrName = "ttng.tensor_memory";  // no mnemonic: no generated parser (see TTNG_Dialect)
}

// Shared layouts, with the parameters the verifier reads; written as Triton writes them
// (`<{key = value, ...}>`), keys it does not read (CTA layout, fp4Padded) accepted and dropped.
def TTG_SwizzledSharedEncodingAttr : AttrDef<TTG_Dialect, "SwizzledSharedEncoding"> {
  let mnemonic = "swizzled_shared";
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
}

def TTG_NVMMASharedEncodingAttr : AttrDef<TTG_Dialect, "NVMMASharedEncoding"> {
  let mnemonic = "nvmma_shared";
  let parameters = (ins "unsigned":$swizzlingByteWidth, "bool":$transposed,
                        "unsigned":$elementBitWidth);
  let hasCustomAssemblyFormat = 1;
}

// The memdesc type, with Triton's parameters. It verifies nothing itself: every judgement
// on a view is the generated verifier's.
def TTG_MemDescType : TypeDef<TTG_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "Type":$elementType,
                        "Attribute":$encoding, "Attribute":$memorySpace,
                        "bool":$mutableMemory, ArrayRefParameter<"int64_t">:$allocShape);
  let hasCustomAssemblyFormat = 1;
}

// The names the generated op definition expects in scope (FlagTree's tree has its own).
def MemDescViewTrait : NativeOpTrait<"MemDescViewTrait">;
class TLE_Op<string mnemonic, list<Trait> traits = []> : Op<TLE_Dialect, mnemonic, traits>;

// A function whose arguments bring the source views in (as FlagTree's lit tests take them; an
// immutable buffer cannot be allocated uninitialised), and its terminator.
def TT_FuncOp : Op<TT_Dialect, "func", [IsolatedFromAbove]> {
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
}

def TT_ReturnOp : Op<TT_Dialect, "return", [Terminator, HasParent<"FuncOp">]> {
  let assemblyFormat = "attr-dict";
}

// The subslice whose offsets place a source view inside its buffer (the verifier reads them).
def TTG_MemDescSubsliceOp : Op<TTG_Dialect, "memdesc_subslice", [Pure, MemDescViewTrait]> {
  let arguments = (ins TTG_MemDescType:$src, DenseI32ArrayAttr:$offsets);
  let results = (outs TTG_MemDescType:$result);
  let assemblyFormat =
      "$src $offsets attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
}

include "MemDescAliasOp.td"

#endif  // TLE_ALIAS_TESTBED_TD
