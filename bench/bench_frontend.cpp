// How long `tcstudio-cli check` spends in the front end. Target (issue 2): a 200-line file
// in under 20 ms. The file is built from the bundled examples, renamed so every def is
// distinct, and padded with comments to exactly 200 lines.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "lang/Frontend.h"

namespace {

std::string two_hundred_lines() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(TCS_EXAMPLES_DIR))
    if (e.path().extension() == ".tc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string out;
  int lines = 0, copy = 0;
  const std::regex def_name(R"(def (\w+))");
  while (lines < 200) {
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line, block;
      int n = 0;
      while (std::getline(in, line)) {
        block += std::regex_replace(line, def_name, "def $1_" + std::to_string(copy)) + "\n";
        ++n;
      }
      if (lines + n > 200) break;
      out += block;
      lines += n;
    }
    ++copy;
    if (lines >= 190) break;
  }
  while (lines < 200) out += "# padding\n", ++lines;
  return out;
}

void BM_Check200Lines(benchmark::State& state) {
  std::string text = two_hundred_lines();
  auto once = tcs::check_source("bench.tc", text);
  if (once->has_errors()) {
    state.SkipWithError(tcs::diagnostics_format(once->file, once->diagnostics).c_str());
    return;
  }
  for (auto _ : state) {
    auto c = tcs::check_source("bench.tc", text);
    benchmark::DoNotOptimize(c);
  }
  state.counters["lines"] = 200;
  state.counters["defs"] = double(once->defs.size());
}
BENCHMARK(BM_Check200Lines)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
