#pragma once
// A bundled example's text, for tests that compile the examples as a user would.
#include <fstream>
#include <sstream>
#include <string>

namespace tcs::testing_support {

inline std::string example(const std::string& name) {
  std::ifstream in(std::string(TCS_EXAMPLES_DIR) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace tcs::testing_support
