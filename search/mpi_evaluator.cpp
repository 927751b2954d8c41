#include "search/mpi_evaluator.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <mpi.h>

#include "search/monotonic_seconds.h"
#include "search/mpi_protocol.h"
#include "search/mpi_task_codec.h"

namespace cusched::search {

// One evaluator rank and the task it is working on.
struct MpiEvaluator::Rank {
  RankInfo info;
  bool alive = true;
  bool busy = false;
  size_t index = 0;       // the batch index of its task
  int64_t task = 0;       // the id of its task
  double deadline = 0;    // steady-clock seconds
  double last_heard = 0;  // steady-clock seconds of its task's send or its latest heartbeat
  std::string sent;       // the task text, kept until the send completes
  MPI_Request send = MPI_REQUEST_NULL;
  std::string received;
  MPI_Request recv = MPI_REQUEST_NULL;  // not null while a result is arriving
  bool receiving() const { return recv != MPI_REQUEST_NULL; }
};

MpiEvaluator::MpiEvaluator(std::vector<RankInfo> ranks, std::shared_ptr<Evaluator> fallback, double timeout_s,
                           double silence_s, std::ostream& log)
    : fallback_(std::move(fallback)), timeout_s_(timeout_s), silence_s_(silence_s), log_(log) {
  for (auto& info : ranks) {
    auto r = std::make_unique<Rank>();
    r->info = std::move(info);
    ranks_.push_back(std::move(r));
  }
}

MpiEvaluator::~MpiEvaluator() = default;

int MpiEvaluator::alive() const {
  int n = 0;
  for (const auto& r : ranks_) n += r->alive;
  return n;
}

std::string MpiEvaluator::status() const {
  std::string s = "MPI evaluators alive " + std::to_string(alive()) + "/" + std::to_string(total());
  if (alive() == 0) s += fallback_ ? " (rank 0 evaluates)" : " (none left)";
  return s;
}

void MpiEvaluator::lose(Rank& r, const std::string& why, std::deque<size_t>& queue) {
  r.alive = false;
  const bool had_task = r.busy;
  if (had_task) queue.push_front(r.index);
  r.busy = false;
  log_ << "rank " << r.info.rank << " (" << r.info.host << ") " << why << ": dropped"
       << (had_task ? ", its candidate goes back to the queue" : "") << "; " << status() << std::endl;
}

void MpiEvaluator::run(const Problem& problem, const EvalConfig& cfg, std::vector<CandidateOutcome>& batch,
                       const std::function<void(size_t)>& finished) {
  using namespace mpi_protocol;
  std::deque<size_t> queue;
  for (size_t i = 0; i < batch.size(); ++i) queue.push_back(i);
  size_t left = batch.size();
  while (left > 0) {
    if (alive() == 0) {
      // No rank left: rank 0 evaluates what is still queued.
      if (!fallback_)
        fail("no-evaluators-left",
             "Every MPI evaluator rank was lost and rank 0 cannot evaluate on this backend itself.",
             "Resume the search (cusched search --resume) with ranks that have GPUs, or give rank 0 a GPU.");
      std::vector<size_t> rest(queue.begin(), queue.end());
      std::sort(rest.begin(), rest.end());
      std::vector<CandidateOutcome> sub;
      for (size_t i : rest) sub.push_back(std::move(batch[i]));
      fallback_->evaluate(problem, cfg, sub, [&](size_t k, CandidateOutcome& o) {
        batch[rest[k]] = std::move(o);
        finished(rest[k]);
      });
      return;
    }
    bool progressed = false;
    for (auto& rp : ranks_) {
      Rank& r = *rp;
      if (!r.alive) continue;
      if (!r.busy) {
        if (queue.empty()) continue;
        r.index = queue.front();
        queue.pop_front();
        r.task = next_task_++;
        r.sent = encode_task(r.task, problem, cfg, batch[r.index]);
        r.busy = true;
        r.deadline = monotonic_seconds() + timeout_s_;
        r.last_heard = monotonic_seconds();
        if (MPI_Isend(r.sent.data(), static_cast<int>(r.sent.size()), MPI_CHAR, r.info.rank, kTagTask, MPI_COMM_WORLD,
                      &r.send) != MPI_SUCCESS) {
          lose(r, "could not be sent a task", queue);
          continue;
        }
        progressed = true;
      }
      if (r.send != MPI_REQUEST_NULL) {
        int done = 0;
        if (MPI_Test(&r.send, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
          lose(r, "failed while taking a task", queue);
          continue;
        }
      }
      // Heartbeats of the rank's task (empty messages).
      bool failed = false;
      for (;;) {
        int arrived = 0;
        MPI_Message message;
        if (MPI_Improbe(r.info.rank, kTagAlive, MPI_COMM_WORLD, &arrived, &message, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            (arrived && MPI_Mrecv(nullptr, 0, MPI_CHAR, &message, MPI_STATUS_IGNORE) != MPI_SUCCESS)) {
          failed = true;
          break;
        }
        if (!arrived) break;
        r.last_heard = monotonic_seconds();
      }
      if (failed) {
        lose(r, "failed while sending a heartbeat", queue);
        continue;
      }
      if (!r.receiving()) {
        int arrived = 0;
        MPI_Message message;
        MPI_Status status;
        if (MPI_Improbe(r.info.rank, kTagResult, MPI_COMM_WORLD, &arrived, &message, &status) != MPI_SUCCESS) {
          lose(r, "failed while answering", queue);
          continue;
        }
        if (arrived) {
          int bytes = 0;
          MPI_Get_count(&status, MPI_CHAR, &bytes);
          r.received.assign(static_cast<size_t>(bytes), '\0');
          if (MPI_Imrecv(r.received.data(), bytes, MPI_CHAR, &message, &r.recv) != MPI_SUCCESS) {
            lose(r, "failed while sending its result", queue);
            continue;
          }
          progressed = true;
        }
      }
      if (r.receiving()) {
        int done = 0;
        if (MPI_Test(&r.recv, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
          lose(r, "failed while sending its result", queue);
          continue;
        }
        if (done) {
          CandidateOutcome verified;
          int64_t task = 0;
          try {
            task = decode_result(r.received, verified);
          } catch (const UserError& e) {
            lose(r, "sent a result that cannot be read (" + e.error().message + ")", queue);
            continue;
          }
          if (task != r.task) {
            lose(r, "answered a task it was not given", queue);
            continue;
          }
          batch[r.index] = std::move(verified);
          r.busy = false;
          --left;
          finished(r.index);
          progressed = true;
          continue;
        }
      }
      if (monotonic_seconds() - r.last_heard > silence_s_)
        lose(r, "sent no heartbeat for " + std::to_string(static_cast<int>(silence_s_)) + " s (the rank is gone)",
             queue);
      else if (monotonic_seconds() > r.deadline)
        lose(r, "did not answer within " + std::to_string(static_cast<int>(timeout_s_)) + " s", queue);
    }
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(kPollMicroseconds));
  }
}

}  // namespace cusched::search
