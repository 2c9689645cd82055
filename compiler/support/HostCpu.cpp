#include "support/HostCpu.h"

namespace tcs {

int host_vector_bytes() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 64;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 32;
#endif
  return 16;
}

}  // namespace tcs
