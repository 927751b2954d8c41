// The evaluation thread: a process started from one of its jobs with the worker's
// parent-death signal (PR_SET_PDEATHSIG, which the kernel sends when the starting thread
// ends) outlives that job and dies with the thread; a job's exception reaches wait(). No
// GPU needed.
#include "search/evaluation_thread.h"

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cusched::search {
namespace {

// Forks a child that asks for SIGKILL when the forking thread ends, then sleeps; returns
// once the child has asked (a thread that ends before that sends nothing).
pid_t start_child() {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(1);
    for (;;) pause();
  }
  close(ready[1]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1) pid = -1;
  close(ready[0]);
  return pid;
}

// The child's exit status once it ends within `wait`, or -1 while it still runs.
int ended_within(pid_t pid, std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

TEST(EvaluationThread, AProcessStartedInAJobOutlivesTheJobAndDiesWithTheThread) {
  pid_t child = -1;
  {
    EvaluationThread thread;
    thread.start([&] { child = start_child(); });
    thread.wait();
    ASSERT_GT(child, 0);
    EXPECT_EQ(ended_within(child, std::chrono::milliseconds(300)), -1) << "the child died when its job ended";
    thread.start([] {});  // a later job on the same thread leaves it alone too
    thread.wait();
    EXPECT_EQ(ended_within(child, std::chrono::milliseconds(100)), -1);
  }
  int status = ended_within(child, std::chrono::milliseconds(5000));
  if (status == -1) kill(child, SIGKILL);
  ASSERT_NE(status, -1) << "the child outlived the thread";
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(EvaluationThread, WaitRethrowsTheJobsExceptionOnce) {
  EvaluationThread thread;
  thread.start([] { throw std::runtime_error("the job failed"); });
  EXPECT_THROW(thread.wait(), std::runtime_error);
  EXPECT_NO_THROW(thread.wait());
  int ran = 0;
  thread.start([&] { ran = 1; });
  EXPECT_TRUE(thread.finished_within(std::chrono::milliseconds(5000)));
  thread.wait();
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace cusched::search
