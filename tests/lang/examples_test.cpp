// Every bundled example checks without errors or warnings (the embedding lookup's one
// documented warning aside), declares default sizes for all its size parameters in its
// "# sizes:" header, and runs in the interpreter on seeded random inputs without NaN.
#include <gtest/gtest.h>

#include "common/Examples.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lang/Frontend.h"
#include "lang/Shapes.h"
#include "runtime/Interpreter.h"
#include "runtime/RandomInputs.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> examples() { return testing_support::example_files(); }

class Example : public ::testing::TestWithParam<fs::path> {};

TEST_P(Example, ChecksCleanAndRuns) {
  auto loaded = check_file(GetParam().string());
  ASSERT_TRUE(loaded) << loaded.error();
  const CheckedFile& c = **loaded;
  ASSERT_FALSE(c.has_errors()) << diagnostics_format(c.file, c.diagnostics);
  for (const Diagnostic& d : c.diagnostics)
    EXPECT_NE(d.message.find("reads data"), std::string::npos) << "unexpected warning: " << diagnostic_format(c.file, d);
  SizeMap header = sizes_from_header(c.file.text());
  ASSERT_FALSE(c.defs.empty());
  for (const SemaDef& def : c.defs) {
    SizeMap sizes;
    for (const std::string& p : def.size_params) {
      ASSERT_TRUE(header.count(p)) << def.name << ": '# sizes:' lacks " << p;
      sizes[p] = header[p];
    }
    auto bound = sizes_bind(def, sizes, {});
    ASSERT_TRUE(bound) << bound.error();
    auto shapes = shapes_evaluate(def, *bound);
    ASSERT_TRUE(shapes) << shapes.error();
    auto inputs = random_inputs(def, *shapes, 42);
    ASSERT_TRUE(inputs) << inputs.error();
    auto outputs = interpret(def, *shapes, *inputs);
    ASSERT_TRUE(outputs) << def.name << ": " << outputs.error();
    for (const auto& [name, t] : *outputs) {
      EXPECT_GT(t.numel(), 0);
      for (int64_t i = 0; i < t.numel(); ++i)
        ASSERT_FALSE(std::isnan(t.get_as_double(i))) << def.name << ": " << name << "[" << i << "] is NaN";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, Example, ::testing::ValuesIn(examples()), [](const auto& info) {
  std::string n = info.param.stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

TEST(Examples, AtLeastTwentyFive) { EXPECT_GE(examples().size(), 25u); }

}  // namespace
}  // namespace tcs
