#include "runtime/npy.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "dsl/error.h"

namespace cusched::runtime {

int64_t NpyArray::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string npy_descr(DType t) {
  switch (t) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::f16: return "<f2";
    case DType::bf16: return "<u2";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::boolean: return "|b1";
  }
  return "?";
}

namespace {

const char kMagic[] = "\x93NUMPY";
const std::string kSupported = "Save it with numpy.save from a C-ordered little-endian array of float32, float64, "
                               "float16, int32, int64, bool, or uint16 holding bfloat16 bits.";

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  fail("bad-npy", "The file " + path + " is not a usable .npy array: " + what + ".", kSupported);
}

DType dtype_from_descr(const std::string& path, const std::string& descr) {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::boolean})
    if (npy_descr(t) == descr) return t;
  if (descr == "<b1" || descr == "=b1") return DType::boolean;
  if (!descr.empty() && descr[0] == '>') bad(path, "its elements are big-endian ('" + descr + "')");
  bad(path, "its element type '" + descr + "' is not supported");
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("bad-npy", "The file " + path + " could not be opened.", "Check the path and its permissions.");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) bad(path, "it does not start with the .npy magic");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(path, "its header is truncated");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    bad(path, "its format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (header_start + header_len > bytes.size()) bad(path, "its header is truncated");
  std::string header = bytes.substr(header_start, header_len);

  static const std::regex descr_re(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex order_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m;
  if (!std::regex_search(header, m, descr_re)) bad(path, "its header has no 'descr'");
  NpyArray a;
  a.dtype = dtype_from_descr(path, m[1].str());
  if (!std::regex_search(header, m, order_re)) bad(path, "its header has no 'fortran_order'");
  if (m[1].str() == "True") bad(path, "it is in Fortran (column-major) order");
  if (!std::regex_search(header, m, shape_re)) bad(path, "its header has no 'shape'");
  std::stringstream dims(m[1].str());
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    size_t b = dim.find_first_not_of(" \t"), e = dim.find_last_not_of(" \tL");
    if (b == std::string::npos) continue;
    dim = dim.substr(b, e - b + 1);
    if (dim.empty() || dim.find_first_not_of("0123456789") != std::string::npos)
      bad(path, "its shape entry '" + dim + "' is not a non-negative integer");
    a.shape.push_back(std::stoll(dim));
  }
  size_t need = static_cast<size_t>(a.elements()) * static_cast<size_t>(dtype_bytes(a.dtype));
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < need)
    bad(path, "it holds " + std::to_string(bytes.size() - data_start) + " data bytes but its shape needs " +
                  std::to_string(need));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start),
                bytes.begin() + static_cast<std::ptrdiff_t>(data_start + need));
  return a;
}

void write_npy(const std::string& path, const NpyArray& array) {
  size_t need = static_cast<size_t>(array.elements()) * static_cast<size_t>(dtype_bytes(array.dtype));
  if (array.data.size() != need)
    fail("npy-write-failed", "The array for " + path + " holds " + std::to_string(array.data.size()) +
                                 " bytes but its shape needs " + std::to_string(need) + ".",
         "Give write_npy data that matches its shape and dtype.");
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += std::to_string(array.shape[i]) + (array.shape.size() == 1 || i + 1 < array.shape.size() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(array.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 1.0: the magic, version and length (10 bytes) plus the header pad to a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535) fail("npy-write-failed", "The array for " + path + " has too many dimensions to save.", "Save arrays of fewer dimensions.");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("npy-write-failed", "The file " + path + " could not be created.", "Check that its folder exists and is writable.");
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(array.data.data()), static_cast<std::streamsize>(array.data.size()));
  if (!out) fail("npy-write-failed", "Writing " + path + " failed.", "Check the free space on its disk.");
}

}  // namespace cusched::runtime
