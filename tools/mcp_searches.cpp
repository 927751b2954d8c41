#include "tools/mcp_searches.h"

#include <chrono>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/mcp_subprocess.h"

namespace cusched::tools::mcp {
namespace {

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The last `n` lines of a text file (at most the last 64 KiB of it).
std::vector<std::string> tail_lines(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff from = size > 65536 ? size - 65536 : 0;
  in.seekg(from);
  std::deque<std::string> lines;
  std::string line;
  if (from > 0) std::getline(in, line);  // a partial first line
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  return {lines.begin(), lines.end()};
}

nlohmann::json error_object(const std::string& code, const std::string& message, const std::string& hint) {
  return {{"ok", false}, {"error", {{"code", code}, {"message", message}, {"hint", hint}}}};
}

}  // namespace

std::string search_exit_meaning(int code) {
  switch (code) {
    case 0:
      return "finished with a verified best candidate";
    case 1:
      return "ended without a verified candidate";
    case 2:
      return "refused its flags or inputs (see the log)";
    case 3:
      return "needs a GPU that is not present";
    case 4:
      return "stopped on an internal error (see the log)";
    default:
      return "exited with code " + std::to_string(code) + " (`cusched search --help` lists the codes)";
  }
}

nlohmann::json SearchProcesses::start(const std::string& exe, const std::string& store,
                                      const std::vector<std::string>& args) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_store_.find(store);
  if (it != by_store_.end()) {
    reap(it->second);
    if (!it->second.exit_code && it->second.signal == 0)
      return error_object(
          "search-already-running",
          "A search on the store '" + store + "' is running (process " + std::to_string(it->second.pid) + ").",
          "Poll it with search_status, stop it with stop_search, or pick another store.");
  }
  SearchProcess p;
  p.store = store;
  p.log = store + ".log";
  p.summary = store + ".summary.json";
  p.args = {"search"};
  p.args.insert(p.args.end(), args.begin(), args.end());
  p.args.insert(p.args.end(), {"--db", store, "--json"});
  p.started = now_utc();
  std::string error;
  p.pid = spawn_detached(exe, p.args, p.summary, p.log, error);
  if (p.pid < 0) return error_object("search-not-started", error, "Check that the store's folder is writable.");
  nlohmann::json out = {{"ok", true},           {"store", store},       {"pid", p.pid},     {"log", p.log},
                        {"summary", p.summary}, {"started", p.started}, {"command", p.args}};
  by_store_[store] = std::move(p);
  return out;
}

void SearchProcesses::reap(SearchProcess& p) {
  if (p.exit_code || p.signal || p.pid <= 0) return;
  int status = 0;
  pid_t r = waitpid(p.pid, &status, WNOHANG);
  if (r != p.pid) return;
  if (WIFEXITED(status)) p.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) p.signal = WTERMSIG(status);
}

nlohmann::json SearchProcesses::state(const std::string& store) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_store_.find(store);
  if (it == by_store_.end())
    return {{"store", store},
            {"state", "unknown"},
            {"note", "This server did not start a search on this store; the store's own status is below."}};
  SearchProcess& p = it->second;
  reap(p);
  nlohmann::json out = {{"store", store}, {"pid", p.pid}, {"started", p.started}, {"log", p.log}};
  if (!p.exit_code && !p.signal) {
    out["state"] = "running";
  } else if (p.stop_requested) {
    out["state"] = "stopped";
  } else if (p.signal) {
    out["state"] = "failed";
    out["signal"] = p.signal;
  } else {
    out["state"] = *p.exit_code == 0 ? "finished" : "failed";
  }
  if (p.exit_code) {
    out["exit_code"] = *p.exit_code;
    out["exit_meaning"] = search_exit_meaning(*p.exit_code);
  }
  out["log_tail"] = tail_lines(p.log, 30);
  if (p.exit_code || p.signal) {
    std::ifstream in(p.summary);
    nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
    if (!summary.is_discarded()) out["summary"] = summary;
  }
  return out;
}

nlohmann::json SearchProcesses::stop(const std::string& store, double grace_s) {
  pid_t pid = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_store_.find(store);
    if (it == by_store_.end())
      return error_object("no-such-search", "This server started no search on the store '" + store + "'.",
                          "Pass the store that start_search returned.");
    reap(it->second);
    if (!it->second.exit_code && !it->second.signal) {
      it->second.stop_requested = true;
      pid = it->second.pid;
    }
  }
  if (pid < 0) return state(store);  // it had ended already
  kill(-pid, SIGTERM);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      SearchProcess& p = by_store_[store];
      reap(p);
      if (p.exit_code || p.signal) break;
    }
    if (std::chrono::steady_clock::now() >= until) {
      kill(-pid, SIGKILL);
      until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  nlohmann::json out = state(store);
  out["ok"] = true;
  out["note"] = "The search was stopped; `cusched search --resume --db " + store +
                "` continues it where it stopped, losing no finished evaluation.";
  return out;
}

void SearchProcesses::stop_all() {
  std::vector<std::string> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [store, p] : by_store_) {
      reap(p);
      if (!p.exit_code && !p.signal) running.push_back(store);
    }
  }
  for (const auto& s : running) stop(s, 2);
}

}  // namespace cusched::tools::mcp
