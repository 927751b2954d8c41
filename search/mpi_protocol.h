#pragma once
// The message tags between MPI rank 0 and its evaluator ranks, how long a rank
// waits between polls (ranks poll with a short sleep instead of spinning in a
// blocking receive, so oversubscribed ranks leave the CPU to the search), and how
// often a rank that is evaluating tells rank 0 that it is alive.
namespace cusched::search::mpi_protocol {

constexpr int kTagTask = 11;    // rank 0 -> rank: one task (mpi_task_codec.h)
constexpr int kTagResult = 12;  // rank -> rank 0: the result of that task
constexpr int kTagStop = 13;    // rank 0 -> rank: no more work; finalize and exit
constexpr int kTagAlive = 14;   // rank -> rank 0: an empty heartbeat while a task runs
constexpr int kPollMicroseconds = 2000;
constexpr int kHeartbeatMilliseconds = 500;

}  // namespace cusched::search::mpi_protocol
