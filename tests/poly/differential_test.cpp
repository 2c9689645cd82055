// Differential tests: every example, compiled for the CPU under random valid mapping
// options at two size sets, must give what the reference interpreter gives (within the
// per-type bound of runtime/Compare.h), and parallel runs must equal serial ones.
#include <gtest/gtest.h>

#include "common/Examples.h"

#include <filesystem>
#include <random>

#include "Compiler.h"
#include "codegen/CpuKernel.h"
#include "lang/Frontend.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"
#include "runtime/ThreadPool.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> examples() { return testing_support::example_files(); }

// A random valid option set: every field drawn, then validated; the tuner's search space
// will be built the same way.
MappingOptions random_options(std::mt19937_64& rng, const SemaDef& def) {
  auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
  MappingOptions o;
  const FusionStrategy fusions[] = {FusionStrategy::Max, FusionStrategy::Preserve3Coincident, FusionStrategy::Min};
  o.outer_fusion = fusions[pick(3)];
  o.intra_tile_fusion = fusions[pick(3)];
  o.fix_parameters_before_scheduling = pick(4) != 0;
  const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 32};
  int levels = pick(4);
  for (int i = 0; i < levels; ++i) o.tile.push_back(sizes[pick(9)]);
  if (!o.tile.empty() && pick(2)) {
    int reg = 1 + pick(int(std::min<size_t>(2, o.tile.size())));
    for (int i = 0; i < reg; ++i)
      o.register_tile.push_back(1 + int64_t(rng() % uint64_t(std::min<int64_t>(8, o.tile[size_t(i)]))));
    o.cpu.register_accumulate = pick(2);
  }
  o.tile_imperfectly_nested = pick(2);
  o.unroll = 1 << pick(3);
  o.cpu.parallel = pick(2);
  o.cpu.vectorize = pick(2);
  o.cpu.vector_width = 1 << pick(5);
  if (pick(3) == 0) {  // pack an input; requests that do not fit the kernel are refused
    const SemaTensor& t = def.tensors[size_t(pick(int(def.tensors.size())))];
    if (t.role == TensorRole::Input) o.cpu.pack.push_back({t.name, pick(int(o.tile.size()) + 1)});
  }
  return o;
}

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
        MappingOptions o = trial == 0 ? *mapping_preset("default", def) : random_options(rng, def);
        if (!mapping_options_validate(o)) continue;
        KernelSetup setup{file, &def, header, *shapes};
        auto compiled = compile_kernel(setup, o, CodegenChoice{"cpu", {"c"}, true});
        // A pack request the kernel refuses (cpu.pack names what cannot be packed) is skipped.
        if (!compiled && !o.cpu.pack.empty() && compiled.error_kind() == ErrorKind::Options) continue;
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
