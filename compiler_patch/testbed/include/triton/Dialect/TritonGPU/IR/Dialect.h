// Adaptor: the generated verifier includes Triton's TritonGPU dialect header; in the testbed
// the ttg stand-ins (memdesc type, shared layouts and memory space, memdesc_subslice) are
// declared by Testbed.h under Triton's C++ names.
#include "Testbed.h"
