// `cusched report --size/--shape` and `cusched export --size`: the stored schedule
// lowered again at another size for what is shown or exported, errors as JSON.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "cusched_run.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cli_test::cusched;
using cli_test::Output;
using cli_test::read_file;

std::string dims(const json& d) {
  return "(" + std::to_string(d[0].get<int64_t>()) + ", " + std::to_string(d[1].get<int64_t>()) + ", " +
         std::to_string(d[2].get<int64_t>()) + ")";
}

// An interp search of relu whose one candidate is the baseline schedule.
class ReportSize : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cusched_report_size_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "none.jsonl") << "";
    db_ = (dir_ / "run.db").string();
    Output o = cusched("search -p relu --backend interp --no-audit --proposer file --proposals '" +
                       (dir_ / "none.jsonl").string() + "' --rounds 1 --stall-rounds 0 --db '" + db_ + "'");
    ASSERT_EQ(o.exit_code, 0) << o.out;
  }
  void TearDown() override { fs::remove_all(dir_); }

  json launches_at(const std::string& size) {
    Output o = cusched("lower -p relu -s baseline --size " + size + " --emit cuda --json");
    EXPECT_EQ(o.exit_code, 0);
    return json::parse(o.out)["launches"];
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(ReportSize, ReportLowersTheSourcesAgainAtTheAskedSize) {
  json bench = launches_at("bench"), small = launches_at("small");
  ASSERT_NE(dims(bench[0]["grid"]), dims(small[0]["grid"]));
  fs::path html = dir_ / "bench.html";
  Output o = cusched("report '" + db_ + "' -o '" + html.string() + "' --size bench --json");
  ASSERT_EQ(o.exit_code, 0) << o.out;
  json j = json::parse(o.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["size"], "bench");
  std::string page = read_file(html);
  std::string row = "<tr class=\"launch-row\"><td><code>" + bench[0]["kernel"].get<std::string>() +
                    "</code></td><td class=\"num\">" + dims(bench[0]["grid"]) + "</td><td class=\"num\">" +
                    dims(bench[0]["block"]) + "</td>";
  EXPECT_NE(page.find(row), std::string::npos) << row;
  EXPECT_EQ(page.find("<td class=\"num\">" + dims(small[0]["grid"]) + "</td>"), std::string::npos);
  EXPECT_NE(page.find("CUDA source at bench"), std::string::npos);
  EXPECT_NE(page.find("lowered again at bench"), std::string::npos);

  // Without --size the stored small-size sources are shown.
  fs::path plain = dir_ / "plain.html";
  o = cusched("report '" + db_ + "' -o '" + plain.string() + "' --json");
  ASSERT_EQ(o.exit_code, 0);
  EXPECT_EQ(json::parse(o.out)["size"], "small");
  EXPECT_NE(read_file(plain).find("<td class=\"num\">" + dims(small[0]["grid"]) + "</td>"), std::string::npos);
}

TEST_F(ReportSize, ReportTakesAShape) {
  fs::path html = dir_ / "shape.html";
  Output o = cusched("report '" + db_ + "' -o '" + html.string() + "' --shape B=1,C=1,H=1,W=512 --json");
  ASSERT_EQ(o.exit_code, 0) << o.out;
  std::string size = json::parse(o.out)["size"];
  EXPECT_NE(size.find("W=512"), std::string::npos) << size;
  // 512 elements in blocks of the baseline's threads.
  json small = launches_at("small");
  int64_t threads = small[0]["block"][0];
  std::string grid = "(" + std::to_string((512 + threads - 1) / threads) + ", 1, 1)";
  EXPECT_NE(read_file(html).find("<td class=\"num\">" + grid + "</td>"), std::string::npos) << grid;
}

TEST_F(ReportSize, BadSizesAreStructuredErrors) {
  for (const std::string& args : {"report '" + db_ + "' -o '" + (dir_ / "x.html").string() + "' --size huge --json",
                                  "report '" + db_ + "' -o '" + (dir_ / "x.html").string() + "' --shape Q=3 --json",
                                  "export '" + db_ + "' -o '" + (dir_ / "x.cu").string() + "' --size huge --json"}) {
    Output o = cusched(args);
    EXPECT_EQ(o.exit_code, 2) << args;
    json j = json::parse(o.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << args << ": " << o.out;
    EXPECT_EQ(j["ok"], false);
    std::string code = j["error"]["code"], message = j["error"]["message"], hint = j["error"]["hint"];
    EXPECT_TRUE(code == "unknown-size" || code == "unknown-shape-size") << code;
    EXPECT_EQ(message.back(), '.') << message;
    EXPECT_FALSE(hint.empty());
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.html"));
}

TEST_F(ReportSize, ExportLowersAtTheAskedSize) {
  json bench = launches_at("bench");
  fs::path cu = dir_ / "bench.cu";
  Output o = cusched("export '" + db_ + "' -o '" + cu.string() + "' --size bench --json");
  ASSERT_EQ(o.exit_code, 0) << o.out;
  EXPECT_EQ(json::parse(o.out)["ok"], true);
  std::string text = read_file(cu);
  std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find("lowered at bench"), std::string::npos) << first;
  EXPECT_NE(first.find("verified at small"), std::string::npos) << first;
  const json& g = bench[0]["grid"];
  std::string launch = "dim3(" + std::to_string(g[0].get<int64_t>()) + ", " + std::to_string(g[1].get<int64_t>()) +
                       ", " + std::to_string(g[2].get<int64_t>()) + ")";
  EXPECT_NE(text.find(launch), std::string::npos) << launch;
}

}  // namespace
