#pragma once
// Running the built `cusched` from the CLI tests: stdout captured, stderr dropped.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace cli_test {

struct Output {
  int exit_code = -1;
  std::string out;
};

// Runs `cusched args` in a shell.
inline Output cusched(const std::string& args) {
  std::string cmd = std::string(CUSCHED_BINARY) + " " + args + " 2>/dev/null";
  Output o;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  int status = pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace cli_test
