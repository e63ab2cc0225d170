// Adaptor: the generated verifier includes Triton's TritonNvidiaGPU dialect header for the
// tensor memory space; in the testbed Testbed.h declares it under Triton's C++ name.
#include "Testbed.h"
