// Which includes a kernel source may have: the device library in quotes, system
// headers in angle brackets; everything that could read another file is refused.
#include "codegen/include_policy.h"

#include <gtest/gtest.h>

namespace cusched {
namespace {

const std::set<std::string> kLibrary = {"cusched_device.cuh"};

bool refused(const std::string& source) {
  auto e = include_error(source, kLibrary);
  if (e) {
    EXPECT_EQ(e->code, "include-outside-library");
  }
  return e.has_value();
}

TEST(IncludePolicy, LibraryAndSystemHeadersPass) {
  EXPECT_FALSE(
      refused("#include \"cusched_device.cuh\"\n#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n__global__ void "
              "k() {}\n"));
  EXPECT_FALSE(refused("// #include \"/etc/passwd\" in a comment\nconst char* s = \"#include </etc/passwd>\";\n"));
  EXPECT_FALSE(refused("/* #include \"/etc/passwd\"\n   still a comment */\n"));
  EXPECT_FALSE(refused(""));
}

TEST(IncludePolicy, OtherFilesAreRefused) {
  for (const char* s : {"#include \"/etc/passwd\"\n", "#include </etc/passwd>\n", "#include \"../secret.h\"\n",
                        "#include <../../x>\n", "#include \"local.h\"\n", "#define F \"/etc/passwd\"\n#include F\n",
                        "#embed \"/etc/passwd\"\n", "#/**/include \"/etc/passwd\"\n", "#inc\\\nlude \"/etc/passwd\"\n",
                        "  #  include_next </etc/x>\n", "#import \"/etc/passwd\"\n", "#include \"/etc/passwd\n"})
    EXPECT_TRUE(refused(s)) << s;
  auto e = include_error("int a;\n\n#include \"/etc/passwd\"\n", kLibrary);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("Line 3"), std::string::npos) << e->message;
  EXPECT_FALSE(e->hint.empty());
}

}  // namespace
}  // namespace cusched
