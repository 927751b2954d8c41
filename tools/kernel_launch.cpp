#include "tools/kernel_launch.h"

#include <map>
#include <sstream>

#include "dsl/error.h"
#include "dsl/input_limits.h"

namespace cusched::tools {

std::array<int64_t, 3> parse_dim(const std::string& text, const std::string& what) {
  std::array<int64_t, 3> d{1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i >= 3)
      fail("bad-launch", "The " + what + " '" + valid_utf8(text.substr(0, 80)) + "' has more than three entries.",
           "Write it as X,Y,Z, e.g. 4096,1,1.");
    if (part.empty() || part.size() > 10 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(part) < 1 || std::stoll(part) > (int64_t{1} << 31) - 1)
      fail("bad-launch",
           "The " + what + " '" + valid_utf8(text.substr(0, 80)) + "' is not a list of up to three positive integers.",
           "Write it as X,Y,Z, e.g. 4096,1,1, each from 1 to 2147483647.");
    d[i++] = std::stoll(part);
  }
  if (i == 0) fail("bad-launch", "The " + what + " is empty.", "Write it as X,Y,Z, e.g. 4096,1,1.");
  return d;
}

void read_launch_comment(const std::string& src, const std::string& size, std::string& grid, std::string& block,
                         int64_t& dynamic_smem) {
  auto digits_and_commas = [](const std::string& v) {
    return !v.empty() && v.size() <= 64 && v.find_first_not_of("0123456789,") == std::string::npos;
  };
  std::istringstream lines(src);
  std::string line;
  while (std::getline(lines, line)) {
    size_t at = line.find("//");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 2));
    std::string word;
    if (!(words >> word) || word != "cusched-launch") continue;
    std::map<std::string, std::string> fields;
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos) break;
      fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (fields["size"] != size) continue;
    if (!digits_and_commas(fields["grid"]) || !digits_and_commas(fields["block"]))
      fail("bad-launch",
           "The cusched-launch comment for size " + size + " has no grid=X,Y,Z and block=X,Y,Z of digits.",
           "Write it as `// cusched-launch size=" + size + " grid=X,Y,Z block=X,Y,Z [smem=N]`.");
    if (grid.empty()) grid = fields["grid"];
    if (block.empty()) block = fields["block"];
    if (dynamic_smem < 0 && fields.count("smem")) {
      const std::string& smem = fields["smem"];
      if (smem.empty() || smem.size() > 10 || smem.find_first_not_of("0123456789") != std::string::npos)
        fail("bad-launch",
             "The cusched-launch comment's smem='" + valid_utf8(smem.substr(0, 40)) + "' is not a byte count.",
             "Write smem=N with N the dynamic shared memory in bytes.");
      dynamic_smem = std::stoll(smem);
    }
  }
}

}  // namespace cusched::tools
