// Stands in for the real header of this name (see mlir_standin.h).
#include "mlir_standin.h"
