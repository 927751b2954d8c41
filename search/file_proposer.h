#pragma once
// A proposer that replays schedules written by a person or a script: .json
// files (one schedule, or {"idea": ..., "schedule": [...], "parent": id}),
// folders of them, or JSON-lines streams (a .jsonl path, or "-" for stdin).
// Lines or files that do not parse become "bad-line" events.
#include <deque>
#include <istream>
#include <string>
#include <vector>

#include "search/proposer.h"

namespace cusched::search {

class FileProposer : public Proposer {
 public:
  // Each source is a .json file, a folder (its *.json and *.jsonl files, in name
  // order), a .jsonl file, or "-" (JSON lines on stdin). Read on construction.
  explicit FileProposer(const std::vector<std::string>& sources);
  // JSON lines from a stream; `name` labels its events and default idea texts.
  FileProposer(std::istream& in, const std::string& name);

  std::string name() const override { return "file"; }
  // The next ideas * per_idea proposals in reading order; an "exhausted" event
  // once nothing is left. Reading problems are reported with the first call.
  RoundProposals propose(const ProposalContext& ctx, int ideas, int per_idea) override;

  size_t remaining() const { return queue_.size(); }

 private:
  void read_source(const std::string& source);
  void read_lines(std::istream& in, const std::string& name);
  void add_value(const std::string& text, const std::string& where);
  std::deque<Proposal> queue_;
  std::vector<ProposerEvent> pending_events_;
};

}  // namespace cusched::search
