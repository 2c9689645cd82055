// The options table drives everything: JSON, messages, docs and random options agree with it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "lang/Frontend.h"
#include "options/OptionsSchema.h"

namespace tcs {
namespace {

TEST(OptionsSchema, EveryFieldIsWrittenAndReadBack) {
  std::string json = mapping_options_to_json(MappingOptions{});
  for (const OptionField& f : option_fields()) {
    std::string key = f.group.empty() ? f.name : f.name.substr(f.group.size() + 1);
    EXPECT_NE(json.find("\"" + key + "\""), std::string::npos) << f.name;
    EXPECT_FALSE(f.meaning.empty()) << f.name;
  }
  auto back = mapping_options_from_json(json);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, MappingOptions{});
}

TEST(OptionsSchema, SettingAFieldChecksItsRange) {
  MappingOptions o;
  const OptionField* unroll = find_option_field("unroll");
  ASSERT_NE(unroll, nullptr);
  EXPECT_TRUE(option_set(o, *unroll, "8"));
  EXPECT_EQ(o.unroll, 8);
  auto bad = option_set(o, *unroll, "65");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_kind(), ErrorKind::Options);
  EXPECT_EQ(bad.error(), "unroll must be between 1 and 64, got 65");
  EXPECT_EQ(o.unroll, 8);  // unchanged by a refused value
  const OptionField* width = find_option_field("cpu.vectorWidth");
  ASSERT_NE(width, nullptr);
  EXPECT_EQ(width->group, "cpu");
  EXPECT_NE(option_set(o, *width, "12").error().find("power of two from 1 to 64"), std::string::npos);
  EXPECT_TRUE(option_set(o, *find_option_field("tile"), "[32, 8]"));
  EXPECT_EQ(option_get(o, *find_option_field("tile")), "[32, 8]");
  EXPECT_NE(option_set(o, *find_option_field("outerScheduleFusionStrategy"), "\"Most\"").error().find("\"Min\""),
            std::string::npos);
  EXPECT_FALSE(option_set(o, *find_option_field("tile"), "[32, "));
}

TEST(OptionsSchema, RandomOptionsAreValidAndDeterministic) {
  auto checked = check_source("k.tc", "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }\n");
  const SemaDef& def = checked->defs.at(0);
  std::mt19937_64 a(7), b(7);
  int tiled = 0, packed = 0, registers = 0;
  for (int i = 0; i < 500; ++i) {
    MappingOptions o = random_mapping_options(a, def);
    MappingOptions again = random_mapping_options(b, def);
    EXPECT_EQ(o, again);
    ASSERT_TRUE(mapping_options_validate(o)) << mapping_options_validate(o).error() << "\n" << mapping_options_to_json(o);
    tiled += !o.tile.empty();
    packed += !o.cpu.pack.empty();
    registers += !o.register_tile.empty();
  }
  // Every kind of choice is drawn now and then.
  EXPECT_GT(tiled, 100);
  EXPECT_GT(packed, 10);
  EXPECT_GT(registers, 20);
  (void)def;
}

TEST(OptionsSchema, DocsAreGeneratedFromTheTable) {
  std::ifstream in(std::string(TCS_DOCS_DIR) + "/OPTIONS.md");
  ASSERT_TRUE(in) << "docs/OPTIONS.md is missing; write it with: tcstudio-cli options --markdown > docs/OPTIONS.md";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), options_markdown())
      << "docs/OPTIONS.md is out of date; regenerate it with: tcstudio-cli options --markdown > docs/OPTIONS.md";
  for (const OptionField& f : option_fields()) EXPECT_NE(text.str().find("`" + f.name + "`"), std::string::npos);
}

}  // namespace
}  // namespace tcs
