#pragma once
// What the machine running the compiler offers generated code: the widest vector
// register and the data caches. Presets size vector loops and register tiles from the
// first; the tiling explorer draws tile footprints against the second. The JIT targets
// the same host, so the two agree.
#include <cstdint>
#include <string>

namespace tcs {

// Bytes in the widest vector register the host CPU supports: 64 (AVX-512), 32 (AVX2),
// 16 otherwise.
int host_vector_bytes();

struct HostCaches {
  int64_t l1_bytes = 0, l2_bytes = 0;  // per core, data (L1d) and unified (L2); 0: unknown
  int64_t l3_bytes = 0;                // the last level, shared by the cores; 0: unknown
  std::string source;                  // where they were read: "sysfs", "sysconf" or "unknown"
};

// Read from /sys/devices/system/cpu/cpu0/cache (what the kernel reports), else from the C
// library's sysconf (which asks the CPU itself); a container may hide the first.
HostCaches host_caches();

}  // namespace tcs
