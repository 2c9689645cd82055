#include "support/HostCpu.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace tcs {

int host_vector_bytes() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 64;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 32;
#endif
  return 16;
}

namespace {

std::string read_word(const std::string& path) {
  std::ifstream in(path);
  std::string w;
  in >> w;
  return w;
}

// "48K", "1024K", "32M" as sysfs writes sizes.
int64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  int64_t n = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) n = n * 10 + (s[i] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) n *= 1024;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) n *= 1024 * 1024;
  return n;
}

}  // namespace

HostCaches host_caches() {
  HostCaches c;
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::string level = read_word(dir + "level"), type = read_word(dir + "type");
    if (level.empty()) break;
    int64_t size = parse_size(read_word(dir + "size"));
    if (level == "1" && type == "Data") c.l1_bytes = size;
    if (level == "2" && (type == "Unified" || type == "Data")) c.l2_bytes = size;
    if (level == "3" && type == "Unified") c.l3_bytes = size;
  }
  if (c.l1_bytes > 0 && c.l2_bytes > 0) {
    c.source = "sysfs";
    return c;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  long l3 = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  l3 = std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
  if (l1 > 0 && l2 > 0) return HostCaches{l1, l2, l3, "sysconf"};
#endif
  c.source = "unknown";
  return c;
}

}  // namespace tcs
