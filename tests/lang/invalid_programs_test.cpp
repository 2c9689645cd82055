// Every file in tests/data/invalid/ is a program with exactly the diagnostics listed in its
// "# expect: SEVERITY LINE:COL-END_LINE:END_COL MESSAGE" header lines: same severity, same
// message, same range. See tests/data/invalid/README.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "lang/Frontend.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

struct Expected {
  std::string severity;
  int line, column, end_line, end_column;
  std::string message;
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Expected> expectations(const std::string& text) {
  static const std::regex re(R"(^# expect: (error|warning) (\d+):(\d+)-(\d+):(\d+) (.*)$)");
  std::vector<Expected> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, re))
      out.push_back({m[1], std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]), m[6]});
  }
  return out;
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(TCS_TEST_DATA_DIR) / "invalid"))
    if (e.path().extension() == ".tc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

class InvalidProgram : public ::testing::TestWithParam<fs::path> {};

TEST_P(InvalidProgram, GetsExactlyItsDiagnostics) {
  std::string text = read(GetParam());
  std::vector<Expected> want = expectations(text);
  ASSERT_FALSE(want.empty()) << GetParam() << " has no '# expect:' line";
  auto checked = check_source(GetParam().filename().string(), text);
  EXPECT_TRUE(checked->has_errors());
  const auto& got = checked->diagnostics;
  ASSERT_EQ(got.size(), want.size()) << diagnostics_format(checked->file, got);
  for (size_t i = 0; i < want.size(); ++i) {
    LineColumn b = checked->file.line_column(got[i].range.begin);
    LineColumn e = checked->file.line_column(got[i].range.end);
    EXPECT_EQ(severity_name(got[i].severity), want[i].severity);
    EXPECT_EQ(got[i].message, want[i].message);
    EXPECT_EQ(b.line, want[i].line) << got[i].message;
    EXPECT_EQ(b.column, want[i].column) << got[i].message;
    EXPECT_EQ(e.line, want[i].end_line) << got[i].message;
    EXPECT_EQ(e.column, want[i].end_column) << got[i].message;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidProgram, ::testing::ValuesIn(corpus()),
                         [](const auto& info) {
                           std::string n = info.param.stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(InvalidCorpus, IsLargeEnough) { EXPECT_GE(corpus().size(), 60u); }

}  // namespace
}  // namespace tcs
