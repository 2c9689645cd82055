// The registry: one line per target.
#include "targets/Target.h"
#include "targets/cpu/CpuTarget.h"

namespace tcs {

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {cpu_target()};
  return all;
}

const Target* find_target(std::string_view name) {
  for (const Target& t : targets())
    if (t.name == name) return &t;
  return nullptr;
}

std::string target_names() {
  std::string s;
  for (const Target& t : targets()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

}  // namespace tcs
