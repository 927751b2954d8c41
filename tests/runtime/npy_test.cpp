#include "runtime/npy.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dsl/error.h"

namespace cusched::runtime {
namespace {

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("cusched-npy-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_raw(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  // A version-1.0 file with `header` padded as NumPy pads it, followed by `data`.
  std::string v1(std::string header, const std::string& data) const {
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
  }
  std::string error_code_of(const std::string& name) const {
    try {
      read_npy(path(name));
    } catch (const UserError& e) {
      return e.error().code + ": " + e.error().message;
    }
    return "no error";
  }
  std::filesystem::path dir_;
};

TEST_F(NpyTest, RoundTripsEveryDtype) {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::boolean}) {
    NpyArray a{t, {2, 3}, {}};
    a.data.resize(6 * static_cast<size_t>(dtype_bytes(t)));
    for (size_t i = 0; i < a.data.size(); ++i)
      a.data[i] = static_cast<uint8_t>(t == DType::boolean ? i % 2 : i * 7 + 1);
    write_npy(path("a.npy"), a);
    NpyArray b = read_npy(path("a.npy"));
    EXPECT_EQ(b.dtype, t) << dtype_name(t);
    EXPECT_EQ(b.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(b.data, a.data) << dtype_name(t);
  }
}

TEST_F(NpyTest, WritesAHeaderNumpyCanRead) {
  NpyArray a{DType::f32, {4}, std::vector<uint8_t>(16, 0)};
  write_npy(path("h.npy"), a);
  std::ifstream in(path("h.npy"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);  // data starts 64-byte aligned
  std::string header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(header.find("'shape': (4,"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 16);
}

TEST_F(NpyTest, ReadsAHandWrittenFileAndAScalar) {
  float values[3] = {1.5f, -2.0f, 0.25f};
  write_raw("v.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                        std::string(reinterpret_cast<char*>(values), sizeof values)));
  NpyArray a = read_npy(path("v.npy"));
  ASSERT_EQ(a.shape, std::vector<int64_t>{3});
  float back[3];
  std::memcpy(back, a.data.data(), sizeof back);
  EXPECT_EQ(back[1], -2.0f);

  double one = 1.0;
  write_raw("s.npy", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                        std::string(reinterpret_cast<char*>(&one), 8)));
  NpyArray s = read_npy(path("s.npy"));
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.elements(), 1);
}

TEST_F(NpyTest, ReadsVersion2Header) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  header.append((64 - (12 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file("\x93NUMPY\x02\x00", 8);
  uint32_t len = static_cast<uint32_t>(header.size());
  file.append(reinterpret_cast<char*>(&len), 4);
  int32_t data[2] = {7, -9};
  file += header + std::string(reinterpret_cast<char*>(data), 8);
  write_raw("v2.npy", file);
  NpyArray a = read_npy(path("v2.npy"));
  EXPECT_EQ(a.dtype, DType::i32);
  int32_t back[2];
  std::memcpy(back, a.data.data(), 8);
  EXPECT_EQ(back[1], -9);
}

TEST_F(NpyTest, BadFilesGiveClearErrors) {
  EXPECT_NE(error_code_of("missing.npy").find("could not be opened"), std::string::npos);
  write_raw("magic.npy", "PK\x03\x04 not numpy at all");
  EXPECT_NE(error_code_of("magic.npy").find("magic"), std::string::npos);
  write_raw("fortran.npy", v1("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0')));
  EXPECT_NE(error_code_of("fortran.npy").find("Fortran"), std::string::npos);
  write_raw("big.npy", v1("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')));
  EXPECT_NE(error_code_of("big.npy").find("big-endian"), std::string::npos);
  write_raw("complex.npy", v1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')));
  EXPECT_NE(error_code_of("complex.npy").find("'<c8' is not supported"), std::string::npos);
  write_raw("short.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(8, '\0')));
  EXPECT_NE(error_code_of("short.npy").find("needs 16"), std::string::npos);
  write_raw("version.npy", std::string("\x93NUMPY\x09\x00\x00\x00", 10));
  EXPECT_NE(error_code_of("version.npy").find("version 9"), std::string::npos);
  for (const char* f : {"missing.npy", "magic.npy", "fortran.npy", "big.npy", "complex.npy", "short.npy"})
    EXPECT_EQ(error_code_of(f).substr(0, 7), "bad-npy") << f;
}

// The header is read in one linear pass: inputs that made a regular expression recurse
// once per character, or overflowed the element count, are structured errors.
TEST_F(NpyTest, HostileHeadersAreStructuredErrors) {
  std::string dims = "(";
  for (int i = 0; i < 100000; ++i) dims += "1,";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + dims + "), }";
  std::string file("\x93NUMPY\x02\x00", 8);
  uint32_t len = static_cast<uint32_t>(header.size());
  file.append(reinterpret_cast<char*>(&len), 4);
  write_raw("many_dims.npy", file + header);
  EXPECT_NE(error_code_of("many_dims.npy").find("more than 32 dimensions"), std::string::npos)
      << error_code_of("many_dims.npy");
  write_raw("overflow.npy",
            v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", ""));
  EXPECT_NE(error_code_of("overflow.npy").find("more elements than cusched reads"), std::string::npos)
      << error_code_of("overflow.npy");
  write_raw("extra.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }", std::string(4, '\0')));
  EXPECT_NE(error_code_of("extra.npy").find("unknown key 'x'"), std::string::npos);
  write_raw("spaces.npy", v1("{" + std::string(60000, ' ') + "}", ""));
  EXPECT_NE(error_code_of("spaces.npy").find("no 'descr'"), std::string::npos);
  for (const char* f : {"many_dims.npy", "overflow.npy", "extra.npy", "spaces.npy"})
    EXPECT_EQ(error_code_of(f).substr(0, 7), "bad-npy") << f;
  write_raw("double_quotes.npy",
            v1("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}", std::string(4, '\0')));
  EXPECT_EQ(read_npy(path("double_quotes.npy")).shape, std::vector<int64_t>{1});
}

TEST_F(NpyTest, WriteRejectsDataThatDoesNotMatchTheShape) {
  NpyArray a{DType::f32, {3}, std::vector<uint8_t>(8)};
  try {
    write_npy(path("x.npy"), a);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "npy-write-failed");
  }
}

}  // namespace
}  // namespace cusched::runtime
