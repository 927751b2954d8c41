#include "search/file_proposer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::search {

namespace fs = std::filesystem;

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

FileProposer::FileProposer(const std::vector<std::string>& sources) {
  for (const auto& s : sources) read_source(s);
}

FileProposer::FileProposer(std::istream& in, const std::string& name) { read_lines(in, name); }

void FileProposer::read_source(const std::string& source) {
  if (source == "-") {
    read_lines(std::cin, "stdin");
    return;
  }
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(source, ec)) {
      std::string p = e.path().string();
      if (e.is_regular_file() && (ends_with(p, ".json") || ends_with(p, ".jsonl"))) files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) pending_events_.push_back({"bad-line", source + ": the folder holds no .json or .jsonl files."});
    for (const auto& f : files) read_source(f);
    return;
  }
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    pending_events_.push_back({"bad-line", source + ": the file cannot be read."});
    return;
  }
  if (ends_with(source, ".jsonl")) {
    read_lines(in, source);
    return;
  }
  try {
    add_value(read_bounded(in, kMaxJsonBytes, "The proposal file '" + source + "'"), source);
  } catch (const UserError& e) {
    pending_events_.push_back({"bad-line", source + ": " + e.error().code + ": " + e.error().message});
  }
}

void FileProposer::read_lines(std::istream& in, const std::string& name) {
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    add_value(line, name + ":" + std::to_string(n));
  }
}

void FileProposer::add_value(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = parse_json_input(text, "The proposal", "Write one schedule (a JSON array of steps) per line or file.");
  } catch (const UserError& e) {
    pending_events_.push_back({"bad-line", where + ": " + e.error().code + ": " + valid_utf8(e.error().message)});
    return;
  }
  Proposal p;
  if (j.is_array()) {
    p.schedule = j;
    p.idea = "schedule from " + where;
  } else if (j.is_object() && j.contains("schedule") && j["schedule"].is_array()) {
    p.schedule = j["schedule"];
    p.idea = j.contains("idea") && j["idea"].is_string() ? j["idea"].get<std::string>() : "schedule from " + where;
    if (j.contains("parent")) {
      if (!j["parent"].is_number_integer()) {
        pending_events_.push_back({"bad-line", where + ": \"parent\" must be a candidate id (an integer)."});
        return;
      }
      p.parent = j["parent"].get<int64_t>();
    }
  } else {
    pending_events_.push_back({"bad-line", where + ": expected a schedule (a JSON array of steps) or an object "
                                                   "{\"idea\": ..., \"schedule\": [...]}."});
    return;
  }
  queue_.push_back(std::move(p));
}

RoundProposals FileProposer::propose(const ProposalContext&, int ideas, int per_idea) {
  RoundProposals out;
  out.events = std::move(pending_events_);
  pending_events_.clear();
  const size_t want = static_cast<size_t>(std::max(ideas, 0)) * static_cast<size_t>(std::max(per_idea, 0));
  while (!queue_.empty() && out.proposals.size() < want) {
    Proposal p = std::move(queue_.front());
    queue_.pop_front();
    if (std::find(out.ideas.begin(), out.ideas.end(), p.idea) == out.ideas.end()) out.ideas.push_back(p.idea);
    out.proposals.push_back(std::move(p));
  }
  if (queue_.empty() && out.proposals.empty())
    out.events.push_back({"exhausted", "Every schedule from the files has been proposed."});
  return out;
}

}  // namespace cusched::search
