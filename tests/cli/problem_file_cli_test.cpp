// Problem files from the command line alone: each file in tests/problems/data (operations
// that are not built in) validates, lowers, verifies in the interpreter, is searched on
// the interpreter backend, reported and exported; then the file is deleted and the
// report, the export and a resumed search still work from the store's copy of the
// definition. Also: --shape on built-in and file problems, refused shapes, and
// `problems --export / --describe`.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

class ProblemFileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cusched_problem_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CommandResult run(const std::string& args) {
    fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    std::string cmd = "cd '" + dir_.string() + "' && '" + std::string(CUSCHED_BINARY) + "' " + args + " > '" +
                      out.string() + "' 2> '" + err.string() + "' < /dev/null";
    int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  std::string error_code(const std::string& args) {
    CommandResult r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    try {
      return json::parse(r.out).at("error").at("code");
    } catch (const std::exception&) {
      ADD_FAILURE() << args << ": no structured error in " << r.out << r.err;
      return "";
    }
  }

  fs::path copy_data(const std::string& name) {
    fs::path to = dir_ / name;
    fs::copy_file(fs::path(CUSCHED_DATA_DIR) / name, to, fs::copy_options::overwrite_existing);
    return to;
  }

  fs::path dir_;
};

class EveryDataFile : public ProblemFileCli, public ::testing::WithParamInterface<std::string> {};

TEST_P(EveryDataFile, FromTheCommandLineAloneAndAfterTheFileIsGone) {
  fs::path file = copy_data(GetParam() + ".json");
  std::string p = "-p '" + file.string() + "'";
  CommandResult v = run("validate " + p + " -s baseline --size small");
  ASSERT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_TRUE(json::parse(v.out)["ok"].get<bool>());
  CommandResult l = run("lower " + p + " --emit cuda");
  ASSERT_EQ(l.exit_code, 0) << l.out << l.err;
  EXPECT_NE(l.out.find("__global__"), std::string::npos);
  CommandResult r = run("run " + p + " -s baseline --backend interp --no-audit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "ok");
  CommandResult d = run("problems --describe '" + file.string() + "'");
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("baseline schedule"), std::string::npos) << d.out;

  std::string db = (dir_ / "run.db").string();
  CommandResult s =
      run("search " + p + " --backend interp --rounds 2 --ideas 2 --per-idea 2 --no-audit --db '" + db + "'");
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  auto report_and_export = [&](const std::string& when) {
    CommandResult rep = run("report '" + db + "' -o report.html");
    EXPECT_EQ(rep.exit_code, 0) << when << rep.out << rep.err;
    EXPECT_TRUE(fs::exists(dir_ / "report.html")) << when;
    CommandResult ex = run("export '" + db + "' -o kernel.cu");
    EXPECT_EQ(ex.exit_code, 0) << when << ex.out << ex.err;
    std::string cu = read_file(dir_ / "kernel.cu");
    EXPECT_NE(cu.find("__global__"), std::string::npos) << when;
    fs::remove(dir_ / "report.html");
    fs::remove(dir_ / "kernel.cu");
  };
  report_and_export("with the file");
  fs::remove(file);
  report_and_export("after the file is deleted");
  // The best schedule lowered again at another shape, from the stored definition.
  std::string shape = GetParam() == "contract3" ? "I=33" : "R=33";
  CommandResult shaped = run("export '" + db + "' -o shaped.cu --shape " + shape);
  ASSERT_EQ(shaped.exit_code, 0) << shaped.out << shaped.err;
  EXPECT_NE(read_file(dir_ / "shaped.cu").find("not at this shape"), std::string::npos);
  CommandResult resumed = run("search " + p + " --resume --rounds 3 --no-audit --db '" + db + "'");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  CommandResult gone = run("validate " + p + " -s baseline");
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_EQ(json::parse(gone.out)["error"]["code"], "unreadable-problem-file");
}

INSTANTIATE_TEST_SUITE_P(Data, EveryDataFile,
                         ::testing::Values("mish", "row_absmax", "row_l2norm", "contract3", "elementwise_math",
                                           "logsumexp_rows"));

TEST_F(ProblemFileCli, ReductionsInsideAStageAreSplitIntoNamedStages) {
  fs::path file = copy_data("logsumexp_rows.json");
  std::string p = "-p '" + file.string() + "'";
  CommandResult d = run("problems --describe '" + file.string() + "' --json");
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  json j = json::parse(d.out);
  std::vector<std::string> names;
  for (const auto& s : j["stages"]) names.push_back(s["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Y_maximum0", "Y_sum0_maximum0", "Y_sum0", "Y"}));
  EXPECT_EQ(j["stages"][2]["definition"], "Y_sum0(i in R) = sum(k in D: exp(X(i, k) - Y_sum0_maximum0(i)))");
  EXPECT_EQ(j["stages"][3]["definition"], "Y(i in R) = Y_maximum0(i) + log(Y_sum0(i))");
  CommandResult text = run("problems --describe '" + file.string() + "'");
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("Y_sum0(i in R) = sum(k in D:"), std::string::npos) << text.out;
  CommandResult v = run("validate " + p + " -s baseline --size small");
  ASSERT_EQ(v.exit_code, 0) << v.out << v.err;
  CommandResult r = run("run " + p + " --backend interp --size small --no-audit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "ok");
  // A schedule names the derived stages: Y_sum0 is found, and it is a reduction.
  std::ofstream(dir_ / "steps.json") << R"([{"op": "compute_inline", "stage": "Y_sum0"}])";
  EXPECT_EQ(error_code("validate " + p + " -s '" + (dir_ / "steps.json").string() + "' --size small"),
            "inline-reduction");
}

TEST_F(ProblemFileCli, ShapeSpecialisesTheKernel) {
  CommandResult a = run("lower -p softmax --shape R=3,D=77 --emit cuda");
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  CommandResult b = run("lower -p softmax --shape R=3,D=78 --emit cuda");
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  EXPECT_NE(a.out, b.out);
  EXPECT_NE(a.out.find("77"), std::string::npos);
  fs::path file = copy_data("row_absmax.json");
  CommandResult r =
      run("run -p '" + file.string() + "' -s baseline --backend interp --no-audit --shape R=3,D=131 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "ok");
}

TEST_F(ProblemFileCli, UntiledShapesVerifyThroughGuards) {
  // The baselines split by 64 and 256; these shapes leave partial tiles.
  for (const std::string& args :
       {std::string("-p softmax --shape R=5,D=301"), std::string("-p layernorm --shape B=1,C=3,H=5,W=7"),
        std::string("-p matmul --shape M=17,N=9,K=5")}) {
    CommandResult r = run("run " + args + " -s baseline --backend interp --no-audit --json");
    ASSERT_EQ(r.exit_code, 0) << args << r.out << r.err;
    EXPECT_EQ(json::parse(r.out)["verdict"], "ok") << args;
  }
}

TEST_F(ProblemFileCli, ShapesASchedulesCannotTakeAreRefusedByItsLegality) {
  // layernorm's best splits the channels into 8 parts: three channels cannot take it.
  CommandResult r = run("run -p layernorm -s best --shape B=2,C=3,H=5,W=8 --backend interp --no-audit --json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "invalid_schedule");
  EXPECT_EQ(j["error"]["code"], "bad-parts");
  // Its best schedule still verifies at a shape that it does tile, odd widths included.
  CommandResult ok = run("run -p matmul -s best --shape M=17,N=9,K=5 --backend interp --no-audit --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(json::parse(ok.out)["verdict"], "ok");
}

TEST_F(ProblemFileCli, AbsurdShapesAreStructuredErrors) {
  EXPECT_EQ(error_code("lower -p softmax --shape R=0"), "bad-shape");
  EXPECT_EQ(error_code("lower -p softmax --shape R=-4"), "bad-shape");
  EXPECT_EQ(error_code("lower -p softmax --shape R=abc"), "bad-shape");
  EXPECT_EQ(error_code("lower -p softmax --shape R"), "bad-shape");
  EXPECT_EQ(error_code("lower -p softmax --shape Q=4"), "unknown-shape-size");
  EXPECT_EQ(error_code("lower -p softmax --shape R=4294967296,D=4294967296"), "shape-overflow");
  EXPECT_EQ(error_code("lower -p softmax --shape R=99999999999999999999"), "shape-overflow");
  EXPECT_EQ(error_code("validate -p conv2d -s baseline --shape H=1"), "bad-shape");
  EXPECT_EQ(error_code("validate -p softmax -s baseline --size huge"), "unknown-size");
  EXPECT_EQ(error_code("validate -p no_such_problem -s baseline"), "unknown-problem");
  EXPECT_EQ(error_code("validate -p missing/problem.json -s baseline"), "unreadable-problem-file");
}

TEST_F(ProblemFileCli, ExportWritesEveryBuiltinAndTheyLoadBack) {
  CommandResult e = run("problems --export exported");
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir_ / "exported")) {
    ++files;
    std::string name = f.path().stem().string();
    CommandResult from_file = run("lower -p '" + f.path().string() + "' -s baseline --size small --emit cuda");
    CommandResult builtin = run("lower -p " + name + " -s baseline --size small --emit cuda");
    ASSERT_EQ(from_file.exit_code, 0) << name << from_file.out << from_file.err;
    EXPECT_EQ(from_file.out, builtin.out) << name;
  }
  EXPECT_GE(files, 24);
}

TEST_F(ProblemFileCli, DescribeNamesStagesLoopsAndContract) {
  CommandResult d = run("problems --describe softmax --json");
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  json j = json::parse(d.out);
  ASSERT_EQ(j["stages"].size(), 3u);
  EXPECT_EQ(j["stages"][0]["definition"], "M(i in R) = maximum(k in D: X(i, k))");
  EXPECT_EQ(j["stages"][0]["loops"][1]["name"], "k");
  EXPECT_EQ(j["stages"][0]["loops"][1]["at"]["small"], 300);
  EXPECT_EQ(j["contract"]["kernel_name"], "softmax_kernel");
  EXPECT_NE(j["baseline_text"].get<std::string>().find("split stage=M loop=i factor=64"), std::string::npos);
  CommandResult t = run("problems --describe softmax");
  EXPECT_NE(t.out.find("loop k (reduction) over D"), std::string::npos) << t.out;
}

TEST_F(ProblemFileCli, DescribeShowsTheBenchmarkSource) {
  json j = json::parse(read_file(fs::path(CUSCHED_DATA_DIR) / "mish.json"));
  j["source"] = {{"benchmark", "KernelBench"},
                 {"file", "level1/19_ReLU.py"},
                 {"commit", std::string(40, 'a')},
                 {"forward_args", json::array({j["inputs"][0]["name"]})},
                 {"init_args", json::array()}};
  fs::path file = dir_ / "with_source.json";
  std::ofstream(file) << j.dump(2);
  CommandResult d = run("problems --describe '" + file.string() + "' --json");
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  json described = json::parse(d.out);
  EXPECT_EQ(described["source"]["file"], "level1/19_ReLU.py");
  EXPECT_EQ(described["source"]["forward_args"], j["source"]["forward_args"]);
  CommandResult t = run("problems --describe '" + file.string() + "'");
  EXPECT_NE(t.out.find("source      KernelBench level1/19_ReLU.py at " + std::string(40, 'a')), std::string::npos)
      << t.out;
  j["source"]["commit"] = "abc";
  std::ofstream(file) << j.dump(2);
  EXPECT_EQ(error_code("problems --describe '" + file.string() + "' --json"), "bad-source");
}

}  // namespace
