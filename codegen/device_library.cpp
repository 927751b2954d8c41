#include "codegen/device_library.h"

#include <cstddef>

namespace cusched {

namespace detail {
// Defined in the source that codegen/device/embed.cmake generates at build time.
extern const char* const kDeviceHeaderNames[];
extern const char* const kDeviceHeaderTexts[];
extern const std::size_t kDeviceHeaderCount;
}  // namespace detail

const std::map<std::string, std::string>& device_headers() {
  static const std::map<std::string, std::string> headers = [] {
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < detail::kDeviceHeaderCount; ++i)
      m.emplace(detail::kDeviceHeaderNames[i], detail::kDeviceHeaderTexts[i]);
    return m;
  }();
  return headers;
}

}  // namespace cusched
