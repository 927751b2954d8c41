#pragma once
// Searches that the MCP server started in the background: one `cusched search --json`
// child per store, its progress (stderr) in <store>.log and its summary (stdout) in
// <store>.summary.json. The server reaps them, reports their state and stops them.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cusched::tools::mcp {

struct SearchProcess {
  std::string store, log, summary;
  std::vector<std::string> args;
  int pid = -1;
  std::optional<int> exit_code;  // set once reaped
  int signal = 0;
  bool stop_requested = false;
  std::string started;  // UTC
};

class SearchProcesses {
 public:
  // Starts `exe search args... --db store --json`; fails with a structured error object.
  nlohmann::json start(const std::string& exe, const std::string& store, const std::vector<std::string>& args);
  // The state of the search on `store`: running, finished, failed, stopped, or unknown
  // (not started by this server), with the log's last lines and the summary when done.
  nlohmann::json state(const std::string& store);
  // Sends SIGTERM to the search's process group (SIGKILL after `grace_s`).
  nlohmann::json stop(const std::string& store, double grace_s = 5);
  // Stops every search still running (the server is closing).
  void stop_all();

 private:
  void reap(SearchProcess& p);
  std::mutex mu_;
  std::map<std::string, SearchProcess> by_store_;
};

// The meaning of a `cusched search` exit code, in words.
std::string search_exit_meaning(int code);

}  // namespace cusched::tools::mcp
