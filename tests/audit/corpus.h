#pragma once
// The kernel corpus under tests/audit/corpus: each .cu file says in leading
// comments which rules it must trigger and which audit options it needs:
//   // expect: RULE-ID          (repeatable; bad kernels only)
//   // contract: {JSON}         the kernel contract
//   // dynamic-smem: BYTES      the launch plan's dynamic shared memory
//   // ptxas-log: FILE          a ptxas -v log next to the kernel
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "audit/audit.h"

namespace cusched::audit::testing {

struct CorpusKernel {
  std::string path;
  std::string name;  // file name
  std::string source;
  std::set<std::string> expected_rules;
  AuditOptions options;
};

std::string read_text(const std::filesystem::path& p);
std::string corpus_dir();
AuditOptions device_library_options();  // headers: the stand-in cusched_device.cuh
CorpusKernel load_corpus_kernel(const std::filesystem::path& p);
std::vector<std::string> corpus_files(const std::string& subdir);  // sorted .cu paths

}  // namespace cusched::audit::testing
