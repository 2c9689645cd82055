// Reading .tc files: the whole file, or a refusal naming the first byte that makes it
// something other than comprehension text. The IDE's "open" and the CLI share this, so a
// file is never shown (and later saved) in part.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "lang/Frontend.h"
#include "lang/ReadSource.h"

namespace tcs {
namespace {

namespace fs = std::filesystem;

class ReadSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tcs_read_source_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

const std::string kDef = "def copy(float(N) A) -> (B) {\n    B(i) = A(i)\n}\n";

TEST_F(ReadSource, ReadsTheWholeFileWithMultiByteCharacters) {
  std::string text = "# \xC3\xA9t\xC3\xA9 \xE2\x88\x91 \xF0\x9F\x99\x82\n" + kDef;
  auto got = read_source_file(write("ok.tc", text));
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(*got, text);
}

TEST_F(ReadSource, RefusesANulByteWithItsPosition) {
  std::string text = kDef.substr(0, 40) + std::string(1, '\0') + kDef.substr(40);
  std::string path = write("nul.tc", text);
  auto got = read_source_file(path);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error_kind(), ErrorKind::InputFile);
  EXPECT_NE(got.error().find("NUL byte (at byte 40)"), std::string::npos) << got.error();
  EXPECT_NE(got.error().find("nul.tc:2:"), std::string::npos) << got.error();
  // The CLI's path refuses it the same way instead of checking the text before the NUL.
  auto checked = check_file(path);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error(), got.error());
}

TEST_F(ReadSource, RefusesBytesThatAreNotUtf8) {
  for (const std::string& bad : {std::string("\xFF"), std::string("\xC0\x80"), std::string("\xED\xA0\x80"),
                                 std::string("\xE2\x82"), std::string("\xF4\x90\x80\x80"), std::string("caf\xE9")}) {
    auto got = read_source_file(write("latin1.tc", "# " + bad + "\n" + kDef));
    ASSERT_FALSE(got) << "accepted bytes " << bad.size();
    EXPECT_EQ(got.error_kind(), ErrorKind::InputFile);
    EXPECT_NE(got.error().find("not UTF-8"), std::string::npos) << got.error();
    EXPECT_NE(got.error().find("latin1.tc:1:"), std::string::npos) << got.error();
  }
}

TEST_F(ReadSource, RefusesAFileTooLargeForAComprehension) {
  std::string path = (dir_ / "huge.tc").string();
  { std::ofstream(path) << kDef; }
  fs::resize_file(path, uint64_t(kMaxSourceBytes) + 1);  // sparse: nothing is written
  auto got = read_source_file(path);
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().find("MiB a comprehension may have"), std::string::npos) << got.error();
}

TEST_F(ReadSource, NamesAFileThatCannotBeOpened) {
  auto got = read_source_file((dir_ / "missing.tc").string());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error_kind(), ErrorKind::InputFile);
  EXPECT_NE(got.error().find("missing.tc"), std::string::npos);
}

}  // namespace
}  // namespace tcs
