// tle-alias-opt: MLIR's mlir-opt driver with only the testbed's dialects, so that the patch's
// lit tests run with --split-input-file --verify-diagnostics against the generated verifier.

#include "Testbed.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::triton::TTDialect, mlir::triton::gpu::TTGDialect,
                  mlir::triton::nvidia_gpu::TTNGDialect, mlir::triton::tle::TLEDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tle.memdesc_alias verifier testbed\n", registry));
}
