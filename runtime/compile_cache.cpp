#include "runtime/compile_cache.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "dsl/fnv_hash.h"

namespace cusched::runtime {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `data` to a unique temporary file beside `target` and renames it over `target`.
bool write_atomically(const fs::path& target, const std::string& data) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return false;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

}  // namespace

std::string content_hash(const std::vector<std::string>& parts) {
  uint64_t a = kFnv1aOffsetBasis;
  uint64_t b = 0x84222325cbf29ce4ULL;
  for (const auto& part : parts) {
    uint64_t n = part.size();
    a = fnv1a(a, &n, sizeof n);
    a = fnv1a(a, part.data(), part.size());
    b = fnv1a(b, part.data(), part.size());
    b = fnv1a(b, &n, sizeof n);
  }
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

CompileCache::CompileCache(std::string dir) : dir_(std::move(dir)) {}

std::string CompileCache::default_dir() {
  if (const char* d = std::getenv("CUSCHED_CACHE_DIR"); d && *d) return d;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/cusched/cubin";
  return "/tmp/cusched-cubin";
}

std::optional<CachedCompile> CompileCache::load(const std::string& key) const {
  auto cubin = read_whole(fs::path(dir_) / (key + ".cubin"));
  if (!cubin || cubin->empty()) return std::nullopt;
  auto log = read_whole(fs::path(dir_) / (key + ".log"));
  auto ptx = read_whole(fs::path(dir_) / (key + ".ptx"));
  if (!ptx || ptx->empty()) return std::nullopt;  // an entry without its PTX is compiled again
  return CachedCompile{std::move(*cubin), log ? std::move(*log) : std::string(), std::move(*ptx)};
}

void CompileCache::store(const std::string& key, const CachedCompile& entry) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return;
  // The log and the PTX go first: a visible .cubin means they are already in place.
  if (!write_atomically(fs::path(dir_) / (key + ".log"), entry.log)) return;
  if (!write_atomically(fs::path(dir_) / (key + ".ptx"), entry.ptx)) return;
  write_atomically(fs::path(dir_) / (key + ".cubin"), entry.cubin);
}

}  // namespace cusched::runtime
