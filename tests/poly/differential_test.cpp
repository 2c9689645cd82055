// Differential tests: every example, compiled for the CPU under random valid mapping
// options at two size sets, must give what the reference interpreter gives (within the
// per-type bound of runtime/Compare.h), and parallel runs must equal serial ones.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/Examples.h"

#include <filesystem>
#include <random>

#include "Compiler.h"
#include "options/OptionsSchema.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"
#include "runtime/ThreadPool.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> examples() { return testing_support::example_files(); }

// The header's sizes, and a second set that differs from them.
std::vector<SizeMap> size_sets(const SemaDef& def, const SizeMap& header) {
  std::vector<SizeMap> sets = {header};
  for (int64_t delta : {1, 3, -1}) {
    SizeMap s = header;
    for (auto& [n, v] : s) v = std::max<int64_t>(1, v + delta);
    if (shapes_evaluate(def, s)) {
      sets.push_back(s);
      break;
    }
  }
  return sets;
}

class Differential : public ::testing::TestWithParam<fs::path> {};

TEST_P(Differential, MatchesTheInterpreterUnderRandomOptions) {
  auto loaded = check_file(GetParam().string());
  ASSERT_TRUE(loaded) << loaded.error();
  std::shared_ptr<const CheckedFile> file = std::move(*loaded);
  const CheckedFile& c = *file;
  ASSERT_FALSE(c.has_errors());
  SizeMap header = sizes_from_header(c.file.text());
  std::mt19937_64 rng(std::hash<std::string>{}(GetParam().filename().string()));
  for (const SemaDef& def : c.defs) {
    std::vector<SizeMap> sets = size_sets(def, header);
    ASSERT_EQ(sets.size(), 2u) << "no second size set for " << def.name;
    for (const SizeMap& sizes : sets) {
      auto shapes = shapes_evaluate(def, sizes);
      ASSERT_TRUE(shapes) << shapes.error();
      auto inputs = random_inputs(def, *shapes, 1, {});
      ASSERT_TRUE(inputs) << inputs.error();
      auto want = interpret(def, *shapes, *inputs);
      ASSERT_TRUE(want) << want.error();
      int tried = 0;
      for (int trial = 0; tried < 20 && trial < 200; ++trial) {
        MappingOptions o = trial == 0 ? *mapping_preset("default", def) : random_mapping_options(rng, def);
        EXPECT_TRUE(mapping_options_validate(o)) << mapping_options_to_json(o);  // random options are valid by construction
        KernelSetup setup{file, &def, header, *shapes};
        auto compiled = compile_kernel(setup, o, CodegenChoice{"cpu", {"c"}, true});
        // A pack request the kernel refuses (cpu.pack names what cannot be packed, here
        // or in a statement's own options) is skipped.
        bool packs = !o.cpu.pack.empty() ||
                     std::any_of(o.statements.begin(), o.statements.end(), [](const StatementOptions& s) { return s.fields.count("cpu.pack") > 0; });
        if (!compiled && packs && compiled.error_kind() == ErrorKind::Options) continue;
        ASSERT_TRUE(compiled) << def.name << " " << sizes_describe(def, sizes) << ": " << compiled.error() << "\n"
                              << mapping_options_to_json(o);
        ++tried;
        compiled->kernel->set_threads(2);
        auto got = compiled->kernel->run(*inputs);
        ASSERT_TRUE(got) << got.error();
        for (const auto& [name, t] : *want) {
          TensorComparison cmp = compare_tensors(name, got->at(name), t);
          ASSERT_TRUE(cmp.ok) << def.name << " " << sizes_describe(def, sizes) << ": " << cmp.problem << "\n"
                              << mapping_options_to_json(o) << loop_nest_to_string(compiled->lowering.nest);
        }
        if (trial == 0) {  // the same kernel without threads gives the same bits
          compiled->kernel->set_threads(1);
          auto serial = compiled->kernel->run(*inputs);
          ASSERT_TRUE(serial) << serial.error();
          for (const auto& [name, t] : *serial) EXPECT_EQ(t.data, got->at(name).data) << def.name << " " << name;
        }
      }
      EXPECT_EQ(tried, 20) << def.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Differential, ::testing::ValuesIn(examples()),
                         [](const auto& info) { return info.param.stem().string(); });

}  // namespace
}  // namespace tcs
