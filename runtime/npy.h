#pragma once
// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0,
// little-endian, C order). Element types: f32 '<f4', f64 '<f8', f16 '<f2',
// i32 '<i4', i64 '<i8', bool '|b1'; bf16 is stored as its raw bits, '<u2'.
#include <cstdint>
#include <string>
#include <vector>

#include "dsl/dtype.h"

namespace cusched::runtime {

struct NpyArray {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // elements in C order, little-endian
  int64_t elements() const;
};

// Largest array data read from one .npy file.
constexpr int64_t kMaxNpyBytes = int64_t{4} << 30;

// The .npy type string for `t` ("<f4", ...).
std::string npy_descr(DType t);

// Throws UserError (code "bad-npy") naming the file and what is wrong with it.
NpyArray read_npy(const std::string& path);
// Throws UserError (code "npy-write-failed") when the file cannot be written.
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace cusched::runtime
