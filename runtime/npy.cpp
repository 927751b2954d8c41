#include "runtime/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::runtime {

int64_t NpyArray::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string npy_descr(DType t) {
  switch (t) {
    case DType::f32:
      return "<f4";
    case DType::f64:
      return "<f8";
    case DType::f16:
      return "<f2";
    case DType::bf16:
      return "<u2";
    case DType::i32:
      return "<i4";
    case DType::i64:
      return "<i8";
    case DType::boolean:
      return "|b1";
  }
  return "?";
}

namespace {

const char kMagic[] = "\x93NUMPY";
const std::string kSupported =
    "Save it with numpy.save from a C-ordered little-endian array of float32, float64, "
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

// The header dictionary, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), },
// read in one left-to-right pass: keys and string values in single or double quotes,
// True/False, and a tuple of non-negative integers.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false, has_descr = false, has_order = false, has_shape = false;
  std::vector<int64_t> shape;
};

class HeaderReader {
 public:
  HeaderReader(const std::string& path, const std::string& text) : path_(path), t_(text) {}

  NpyHeader read() {
    NpyHeader h;
    expect('{');
    while (true) {
      space();
      if (peek() == '}') break;
      std::string key = quoted();
      space();
      expect(':');
      space();
      if (key == "descr") {
        h.descr = quoted();
        h.has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        h.has_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        h.has_shape = true;
      } else {
        bad(path_, "its header has the unknown key '" + valid_utf8(key.substr(0, 40)) + "'");
      }
      space();
      if (peek() == ',')
        ++i_;
      else if (peek() != '}')
        bad(path_, "its header dictionary is malformed at byte " + std::to_string(i_));
    }
    if (!h.has_descr) bad(path_, "its header has no 'descr'");
    if (!h.has_order) bad(path_, "its header has no 'fortran_order'");
    if (!h.has_shape) bad(path_, "its header has no 'shape'");
    return h;
  }

 private:
  char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    space();
    if (peek() != c)
      bad(path_, std::string("its header dictionary is malformed: expected '") + c + "' at byte " + std::to_string(i_));
    ++i_;
  }
  std::string quoted() {
    char q = peek();
    if (q != '\'' && q != '"')
      bad(path_, "its header dictionary is malformed: expected a quoted key or value at byte " + std::to_string(i_));
    size_t end = t_.find(q, i_ + 1);
    if (end == std::string::npos || end - i_ > 64) bad(path_, "its header has an unterminated or overlong string");
    std::string out = t_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    if (t_.compare(i_, 4, "True") == 0) return i_ += 4, true;
    if (t_.compare(i_, 5, "False") == 0) return i_ += 5, false;
    bad(path_, "its 'fortran_order' is neither True nor False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      space();
      if (peek() == ')') break;
      size_t start = i_;
      int64_t v = 0;
      while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') {
        if (v > (int64_t{1} << 40)) bad(path_, "its shape has an entry too large to read");
        v = v * 10 + (t_[i_++] - '0');
      }
      if (i_ == start)
        bad(path_, "its shape entry at byte " + std::to_string(start) + " is not a non-negative integer");
      if (peek() == 'L') ++i_;
      if (dims.size() >= 32) bad(path_, "its shape has more than 32 dimensions");
      dims.push_back(v);
      space();
      if (peek() == ',')
        ++i_;
      else if (peek() != ')')
        bad(path_, "its shape is not a tuple of integers");
    }
    ++i_;
    return dims;
  }

  const std::string& path_;
  const std::string& t_;
  size_t i_ = 0;
};

NpyHeader parse_npy_header(const std::string& path, const std::string& header) {
  return HeaderReader(path, header).read();
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  if (!std::ifstream(path, std::ios::binary))
    fail("bad-npy", "The file " + path + " could not be opened.", "Check the path and its permissions.");
  std::string bytes;
  try {
    bytes = read_file_bounded(path, kMaxNpyBytes + 65536 + 12, "The .npy file");
  } catch (const UserError& e) {
    fail("bad-npy", e.error().message, e.error().hint);
  }
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
  if (header_len > (size_t{1} << 20)) bad(path, "its header is longer than 1 MiB");
  if (header_start + header_len > bytes.size()) bad(path, "its header is truncated");
  std::string header = bytes.substr(header_start, header_len);

  NpyArray a;
  const NpyHeader h = parse_npy_header(path, header);
  a.dtype = dtype_from_descr(path, h.descr);
  if (h.fortran_order) bad(path, "it is in Fortran (column-major) order");
  a.shape = h.shape;
  int64_t elements = 1;
  for (int64_t d : a.shape) {
    if (d != 0 && elements > kMaxNpyBytes / d)
      bad(path, "its shape has more elements than cusched reads (" + std::to_string(kMaxNpyBytes) + " bytes at most)");
    elements *= d;
  }
  if (elements * dtype_bytes(a.dtype) > kMaxNpyBytes)
    bad(path, "its data would be larger than the " + std::to_string(kMaxNpyBytes) + " bytes cusched reads");
  size_t need = static_cast<size_t>(elements) * static_cast<size_t>(dtype_bytes(a.dtype));
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
    fail("npy-write-failed",
         "The array for " + path + " holds " + std::to_string(array.data.size()) + " bytes but its shape needs " +
             std::to_string(need) + ".",
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
  if (header.size() > 65535)
    fail("npy-write-failed", "The array for " + path + " has too many dimensions to save.",
         "Save arrays of fewer dimensions.");
  std::ofstream out(path, std::ios::binary);
  if (!out)
    fail("npy-write-failed", "The file " + path + " could not be created.",
         "Check that its folder exists and is writable.");
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
