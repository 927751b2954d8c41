#pragma once
// An on-disk cache of compiled CUBIN keyed by a hash of everything that
// determines the compiler's output. Safe under concurrent use: entries are
// written to a temporary file and renamed into place.
#include <optional>
#include <string>
#include <vector>

namespace cusched::runtime {

// A 128-bit hex digest of `parts` (lengths included, so part boundaries matter).
std::string content_hash(const std::vector<std::string>& parts);

struct CachedCompile {
  std::string cubin;
  std::string log;
  std::string ptx;
};

class CompileCache {
 public:
  explicit CompileCache(std::string dir);
  // $CUSCHED_CACHE_DIR, else ~/.cache/cusched/cubin.
  static std::string default_dir();

  const std::string& dir() const { return dir_; }
  std::optional<CachedCompile> load(const std::string& key) const;
  // Best effort: a cache that cannot be written is skipped, never an error.
  void store(const std::string& key, const CachedCompile& entry) const;

 private:
  std::string dir_;
};

}  // namespace cusched::runtime
