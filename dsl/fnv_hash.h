#pragma once
// The 64-bit FNV-1a hash: schedule hashes and content-addressed cache keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cusched {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ULL;

// Continues the hash `h` over `n` bytes at `data`.
uint64_t fnv1a(uint64_t h, const void* data, size_t n);

// The hash of `text` from the standard offset basis.
uint64_t fnv1a(std::string_view text);

// The hash of `text` from `basis`, as 16 lower-case hex digits.
std::string fnv1a_hex(std::string_view text, uint64_t basis = kFnv1aOffsetBasis);

}  // namespace cusched
