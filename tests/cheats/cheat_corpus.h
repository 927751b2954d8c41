#pragma once
// The cheating-kernel corpus under tests/cheats: kernels/*.cu and manifest.json,
// read into bundles the way `cusched check` builds them (launch from the file's
// `// cusched-launch` comment for the entry's size).
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "codegen/kernel_bundle.h"

namespace cusched::cheats {

struct CorpusEntry {
  std::string file, problem, size, precision = "f32", kind;
  std::set<std::string> expect;           // verdicts allowed with the audit
  std::set<std::string> expect_no_audit;  // verdicts allowed without it; empty: not run without it
  std::string sanitize_expect;            // the compute-sanitizer tool that must report it, or ""
};

// Test names print the file only.
inline void PrintTo(const CorpusEntry& e, std::ostream* os) { *os << e.file; }

std::vector<CorpusEntry> corpus_entries(const std::string& dir);
KernelBundle corpus_bundle(const std::string& dir, const CorpusEntry& e);

}  // namespace cusched::cheats
