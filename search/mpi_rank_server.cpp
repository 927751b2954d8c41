#include "search/mpi_rank_server.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <mpi.h>
#include <signal.h>

#include "problems/problem.h"
#include "problems/problem_file.h"
#include "runtime/worker.h"
#include "search/evaluation_thread.h"
#include "search/evaluator.h"
#include "search/mpi_protocol.h"
#include "search/mpi_task_codec.h"

namespace cusched::search {
namespace {

// The value a test hook (an environment variable "RANK:VALUE") gives this rank, if it
// names this rank.
std::optional<std::string> test_hook_value(const char* variable, int rank) {
  const char* v = std::getenv(variable);
  if (!v) return std::nullopt;
  std::string s = v;
  auto colon = s.find(':');
  if (colon == std::string::npos || std::atoi(s.substr(0, colon).c_str()) != rank) return std::nullopt;
  return s.substr(colon + 1);
}

}  // namespace

int serve_rank(MpiSession& session, std::ostream& log) {
  using namespace mpi_protocol;
  // Test hooks: the rank kills itself when a task arrives after it has answered N, and
  // each of its evaluations takes S seconds longer.
  std::optional<int> dies_after;
  if (auto v = test_hook_value("CUSCHED_TEST_MPI_RANK_DIES", session.rank())) dies_after = std::atoi(v->c_str());
  const auto slow = test_hook_value("CUSCHED_TEST_MPI_RANK_SLOW", session.rank());
  const double delay = slow ? std::atof(slow->c_str()) : 0;
  const bool trace = std::getenv("CUSCHED_MPI_TRACE") != nullptr;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::unique_ptr<runtime::Worker> worker;  // used and restarted only on `evaluator`'s thread
  std::shared_ptr<Problem> problem;         // the last definition received, read on `evaluator`'s thread
  nlohmann::json problem_definition;
  EvaluationThread evaluator;
  int answered = 0;
  for (;;) {
    MPI_Status status;
    int arrived = 0;
    if (MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status) != MPI_SUCCESS) {
      log << "rank " << session.rank() << ": lost contact with rank 0; exiting" << std::endl;
      return 1;
    }
    if (!arrived) {
      std::this_thread::sleep_for(std::chrono::microseconds(kPollMicroseconds));
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string text(static_cast<size_t>(bytes), '\0');
    if (MPI_Recv(text.data(), bytes, MPI_CHAR, 0, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      log << "rank " << session.rank() << ": a message from rank 0 did not arrive; exiting" << std::endl;
      return 1;
    }
    if (status.MPI_TAG == kTagStop) return 0;
    if (status.MPI_TAG != kTagTask) continue;
    if (dies_after && answered >= *dies_after) raise(SIGKILL);

    int64_t id = 0;
    CandidateOutcome outcome;
    const double began = seconds();
    // The evaluation runs on the evaluation thread while this one (the only one that
    // calls MPI) sends rank 0 a heartbeat every kHeartbeatMilliseconds.
    evaluator.start([&] {
      try {
        EvaluationTask task = decode_task(text);
        id = task.id;
        outcome = std::move(task.prepared);
        if (delay > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay));
        if (task.config.backend != "interp" && !worker && session.self().device >= 0)
          worker = std::make_unique<runtime::Worker>(session.self().device);
        if (task.config.backend != "interp" && !worker)
          fail("no-gpu-on-rank", "Rank " + std::to_string(session.rank()) + " was sent a GPU task but has no GPU.",
               "Give every evaluator rank a GPU, or search with --backend interp.");
        // The definition rank 0 sent, read once per problem: a problem file exists only there.
        if (task.definition.is_null()) {
          verify_prepared(find_problem(task.problem), task.config, worker.get(), outcome);
        } else {
          if (task.definition != problem_definition) {
            problem = std::make_shared<Problem>(problem_from_json(task.definition, "the task from rank 0"));
            problem_definition = task.definition;
          }
          verify_prepared(*problem, task.config, worker.get(), outcome);
        }
      } catch (const UserError& e) {
        outcome.verdict = runtime::Verdict::internal_error;
        outcome.error = e.error();
        outcome.reason =
            "Rank " + std::to_string(session.rank()) + " could not evaluate the candidate: " + e.error().to_string();
      } catch (const std::exception& e) {
        outcome.verdict = runtime::Verdict::internal_error;
        outcome.reason = "Rank " + std::to_string(session.rank()) + " could not evaluate the candidate: " + e.what();
      }
    });
    while (!evaluator.finished_within(std::chrono::milliseconds(kHeartbeatMilliseconds)))
      if (MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagAlive, MPI_COMM_WORLD) != MPI_SUCCESS) {
        log << "rank " << session.rank() << ": could not send a heartbeat to rank 0; exiting" << std::endl;
        std::_Exit(1);  // the evaluation thread cannot be joined cleanly from here
      }
    if (trace)
      log << "rank " << session.rank() << " [" << began << " s]: task " << id << " " << outcome.verdict_text() << " in "
          << seconds() - began << " s" << std::endl;
    std::string reply = encode_result(id, outcome);
    if (MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
      log << "rank " << session.rank() << ": could not send a result to rank 0; exiting" << std::endl;
      return 1;
    }
    ++answered;
  }
}

}  // namespace cusched::search
