// Loading the kernel corpus and its per-file audit options.
#include "corpus.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cusched::audit::testing {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string corpus_dir() { return CUSCHED_AUDIT_CORPUS; }

AuditOptions device_library_options() {
  AuditOptions o;
  o.headers["cusched_device.cuh"] = read_text(corpus_dir() + "/cusched_device.cuh");
  return o;
}

CorpusKernel load_corpus_kernel(const std::filesystem::path& p) {
  CorpusKernel k;
  k.path = p.string();
  k.name = p.filename().string();
  k.source = read_text(p);
  k.options = device_library_options();
  std::istringstream in(k.source);
  std::string line;
  auto value_of = [&](const std::string& key) -> std::string {
    std::string prefix = "// " + key + ":";
    if (line.rfind(prefix, 0) != 0) return "";
    std::string v = line.substr(prefix.size());
    v.erase(0, v.find_first_not_of(' '));
    return v;
  };
  while (std::getline(in, line) && line.rfind("//", 0) == 0) {
    if (auto v = value_of("expect"); !v.empty()) k.expected_rules.insert(v);
    if (auto v = value_of("contract"); !v.empty())
      k.options.contract = KernelContract::from_json(nlohmann::json::parse(v));
    if (auto v = value_of("dynamic-smem"); !v.empty()) k.options.planned_dynamic_smem = std::stoll(v);
    if (auto v = value_of("ptxas-log"); !v.empty()) k.options.ptxas_log = read_text(p.parent_path() / v);
  }
  return k;
}

std::vector<std::string> corpus_files(const std::string& subdir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir() + "/" + subdir))
    if (e.path().extension() == ".cu") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cusched::audit::testing
