#include "dsl/fnv_hash.h"

#include <cstdio>

namespace cusched {

uint64_t fnv1a(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t fnv1a(std::string_view text) { return fnv1a(kFnv1aOffsetBasis, text.data(), text.size()); }

std::string fnv1a_hex(std::string_view text, uint64_t basis) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(basis, text.data(), text.size())));
  return buf;
}

}  // namespace cusched
