#pragma once
// The bundled example kernels, sorted, for tests that run over all of them.
#include <algorithm>
#include <filesystem>
#include <vector>

namespace tcs::testing_support {

inline std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(TCS_EXAMPLES_DIR))
    if (e.path().extension() == ".tc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace tcs::testing_support
