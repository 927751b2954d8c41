#include "cheat_corpus.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "problems/problem.h"
#include "search/candidate_evaluation.h"

namespace cusched::cheats {

namespace {

std::array<int64_t, 3> dims(const std::string& text) {
  std::array<int64_t, 3> d{1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  for (int i = 0; i < 3 && std::getline(ss, part, ','); ++i) d[i] = std::stoll(part);
  return d;
}

}  // namespace

std::vector<CorpusEntry> corpus_entries(const std::string& dir) {
  std::ifstream in(dir + "/manifest.json");
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<CorpusEntry> out;
  for (const auto& k : j.at("kernels")) {
    CorpusEntry e;
    e.file = k.at("file");
    e.problem = k.at("problem");
    e.size = k.at("size");
    e.precision = k.value("precision", "f32");
    e.kind = k.at("class");
    for (const auto& v : k.at("expect")) e.expect.insert(v.get<std::string>());
    for (const auto& v : k.value("expect_no_audit", nlohmann::json::array())) e.expect_no_audit.insert(v.get<std::string>());
    e.sanitize_expect = k.value("sanitize_expect", "");
    out.push_back(e);
  }
  return out;
}

KernelBundle corpus_bundle(const std::string& dir, const CorpusEntry& e) {
  std::ifstream in(dir + "/kernels/" + e.file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string source = ss.str();
  std::smatch m;
  std::regex launch("// cusched-launch size=" + e.size + " grid=([0-9,]+) block=([0-9,]+)");
  if (!std::regex_search(source, m, launch)) throw std::runtime_error(e.file + " has no launch line for size " + e.size);
  return search::handwritten_bundle(find_problem(e.problem), source, e.size, parse_precision(e.precision), dims(m[1]),
                                    dims(m[2]), 0);
}

}  // namespace cusched::cheats
