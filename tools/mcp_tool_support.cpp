#include "tools/mcp_tool_support.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "tools/command.h"
#include "tools/mcp_subprocess.h"

namespace cusched::tools::mcp {
namespace {

std::string tail(const std::string& s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

std::string command_line(const std::vector<std::string>& args) {
  std::string out = "cusched";
  for (const auto& a : args) {
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"$\\`*?;&|<>()") == std::string::npos;
    out += " " + (plain ? a : "'" + a + "'");
  }
  return out;
}

}  // namespace

ToolResult tool_error(const std::string& code, const std::string& message, const std::string& hint) {
  ToolResult r;
  r.is_error = true;
  r.structured = {{"ok", false}, {"error", {{"code", code}, {"message", message}, {"hint", hint}}}};
  return r;
}

bool has_command(const std::string& name) {
  for (const auto& c : commands())
    if (c.name == name) return true;
  return false;
}

ToolResult missing_command(const std::string& name) {
  return tool_error(
      "command-not-available", "This cusched has no `" + name + "` command, which this tool runs.",
      "Build a cusched that includes `cusched " + name + "` (run `cusched --help` for the commands this one has).");
}

ToolResult run_cli(ToolEnv& env, const std::vector<std::string>& args, double timeout_s) {
  auto last_report = std::chrono::steady_clock::now();
  auto tick = [&](double elapsed, const std::string& last_line) {
    if (!env.progress) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::seconds(2)) return;
    last_report = now;
    env.progress(elapsed, last_line.empty() ? "running for " + std::to_string(static_cast<int>(elapsed)) + " s"
                                            : last_line.substr(0, 300));
  };
  ChildResult c = run_child(env.exe, args, timeout_s, env.cancelled, tick);
  ToolResult r;
  if (c.timed_out)
    return tool_error("tool-timeout",
                      "`" + command_line(args) + "` ran past its limit of " +
                          std::to_string(static_cast<int>(timeout_s)) + " s and was stopped.",
                      "Pass a larger timeout_s, a smaller size (size \"small\"), or fewer rounds.");
  if (env.cancelled && env.cancelled->load())
    return tool_error("tool-cancelled", "The call was cancelled.", "Call the tool again to rerun it.");
  if (c.signal)
    return tool_error("tool-crashed",
                      "`" + command_line(args) + "` was ended by signal " + std::to_string(c.signal) +
                          ". Its stderr ends: " + tail(c.err, 2000),
                      "Run the same command in a terminal to see the crash report; the server itself is unaffected.");
  nlohmann::json parsed = nlohmann::json::parse(c.out, nullptr, false);
  if (!parsed.is_discarded() && !c.out_truncated) {
    r.structured = parsed.is_object() ? parsed : nlohmann::json{{"result", parsed}};
  } else {
    r.structured = {{"output", tail(c.out, 200000)}};
  }
  r.structured["command"] = command_line(args);
  r.is_error = c.exit_code != 0;
  if (r.is_error) {
    r.structured["exit_code"] = c.exit_code;
    if (!c.err.empty()) r.structured["stderr"] = tail(c.err, 4000);
  }
  return r;
}

std::string scratch_file(ToolEnv& env, const std::string& stem, const std::string& ext, const std::string& text) {
  static std::atomic<int> counter{0};
  std::filesystem::create_directories(env.scratch_dir);
  std::string path = env.scratch_dir + "/" + stem + "-" + std::to_string(++counter) + "." + ext;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string schedule_argument(ToolEnv& env, const nlohmann::json& schedule) {
  if (schedule.is_string()) {
    const std::string& s = schedule.get_ref<const std::string&>();
    size_t first = s.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (s[first] == '[' || s[first] == '{'))
      return scratch_file(env, "schedule", "json", s);
    return s;
  }
  return scratch_file(env, "schedule", "json", schedule.dump(2));
}

std::string problem_argument(ToolEnv& env, const nlohmann::json& problem) {
  if (problem.is_string()) return problem.get<std::string>();
  return scratch_file(env, "problem", "json", problem.dump(2));
}

void append_flags(std::vector<std::string>& argv, const nlohmann::json& arguments,
                  const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (!arguments.contains(name) || arguments[name].is_null()) continue;
    std::string flag = "--" + name;
    for (char& ch : flag)
      if (ch == '_') ch = '-';
    const auto& v = arguments[name];
    if (v.is_boolean()) {
      if (v.get<bool>()) argv.push_back(flag);
    } else if (v.is_string()) {
      argv.insert(argv.end(), {flag, v.get<std::string>()});
    } else {
      argv.insert(argv.end(), {flag, v.dump()});
    }
  }
}

}  // namespace cusched::tools::mcp
