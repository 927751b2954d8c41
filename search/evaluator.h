#pragma once
// Where a search verifies (and times) its candidates once their CPU part (validate,
// lower, emit, audit) is done: in this process's interpreter, on every GPU of this
// host, or on the ranks of an MPI job. The search loop hands an evaluator a batch
// and gets the outcomes back in batch order, whatever order they finish in.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "problems/problem.h"
#include "runtime/worker.h"
#include "search/candidate_evaluation.h"
#include "search/evaluator_timing_replay.h"

namespace cusched::search {

class Evaluator {
 public:
  using Done = std::function<void(size_t index, CandidateOutcome& outcome)>;

  virtual ~Evaluator() = default;

  // Verifies (and on the gpu backend times) every outcome of `batch`, each one
  // prepared by prepare_candidate (verdict empty). Calls `done` once per outcome,
  // in batch order, as soon as that outcome and every one before it are finished;
  // calls to `done` never overlap. Replayed timings are applied before `done`.
  void evaluate(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch, const Done& done);

  // Evaluators that can take work now, and how many there were at the start.
  virtual int alive() const = 0;
  virtual int total() const = 0;
  // One phrase for the progress line ("2/3 MPI evaluators alive"); empty when
  // there is nothing worth saying.
  virtual std::string status() const { return ""; }

  void set_replay(std::shared_ptr<const TimingReplay> replay) { replay_ = std::move(replay); }

 protected:
  // Evaluates the batch; calls `finished(i)` once per index, from any thread, in
  // any order.
  virtual void run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                   const std::function<void(size_t)>& finished) = 0;

 private:
  std::shared_ptr<const TimingReplay> replay_;
};

// Verifies one prepared outcome in this process: the interpreter (the schedule is
// rebuilt from outcome.steps) or the GPU through `worker`.
void verify_prepared(const Problem& problem, const EvalConfig& cfg, runtime::Worker* worker, CandidateOutcome& outcome);

}  // namespace cusched::search
