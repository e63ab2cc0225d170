// The testbed's dialects (tt, ttg, ttng, tle stand-ins; see Testbed.td), as C++.

#ifndef TLE_ALIAS_TESTBED_H
#define TLE_ALIAS_TESTBED_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::OpTrait {
// Marks an op whose result is a view of its source's bytes (FlagTree's trait of that name);
// nothing here reads it.
template <typename ConcreteType>
class MemDescViewTrait : public TraitBase<ConcreteType, MemDescViewTrait> {};
}  // namespace mlir::OpTrait

#include "TestbedTTDialect.h.inc"
#include "TestbedTTGDialect.h.inc"
#include "TestbedTTNGDialect.h.inc"
#include "TestbedTLEDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TestbedTTGAttrs.h.inc"
#define GET_ATTRDEF_CLASSES
#include "TestbedTTNGAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "TestbedTypes.h.inc"

#define GET_OP_CLASSES
#include "TestbedTTOps.h.inc"
#define GET_OP_CLASSES
#include "TestbedTTGOps.h.inc"
#define GET_OP_CLASSES
#include "TestbedTLEOps.h.inc"

namespace tle_testbed {
// Which of the two builds of the generated verifier MemDescAliasOp::verify runs: FlagTree's
// rules, or the safe profile (the driver's --tle-alias-profile).
bool safeProfile();
}  // namespace tle_testbed

#endif  // TLE_ALIAS_TESTBED_H
