#include "runtime/ptxas_report.h"

#include <gtest/gtest.h>

namespace cusched::runtime {
namespace {

// A log in the form ptxas -v prints, with a non-inlined device function whose
// properties block must not be counted for the entry that calls it.
const char* kLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     48 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'gemm' for 'sm_90a'\n"
    "ptxas info    : Function properties for gemm\n"
    "ptxas         .     16 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 16 bytes cumulative stack size, 33792 bytes smem, 400 bytes "
    "cmem[0]\n"
    "ptxas info    : Compile time = 17.670 ms\n"
    "ptxas info    : Compiling entry function 'relu' for 'sm_90a'\n"
    "ptxas info    : Function properties for relu\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers, 368 bytes cmem[0]\n";

TEST(PtxasReport, ParsesEachEntryFunction) {
  auto r = parse_ptxas_report(kLog);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kernel, "gemm");
  EXPECT_EQ(r[0].arch, "sm_90a");
  EXPECT_EQ(r[0].registers, 255);
  EXPECT_EQ(r[0].barriers, 1);
  EXPECT_EQ(r[0].smem_bytes, 33792);
  EXPECT_EQ(r[0].stack_bytes, 16);
  EXPECT_EQ(r[0].spill_store_bytes, 12);
  EXPECT_EQ(r[0].spill_load_bytes, 20);
  EXPECT_EQ(r[1].kernel, "relu");
  EXPECT_EQ(r[1].registers, 8);
  EXPECT_EQ(r[1].smem_bytes, 0);
  EXPECT_EQ(r[1].spill_store_bytes, 0);
}

TEST(PtxasReport, EmptyOrUnrelatedLogGivesNothing) {
  EXPECT_TRUE(parse_ptxas_report("").empty());
  EXPECT_TRUE(parse_ptxas_report("kernel.cu(3): warning: variable x was declared but never referenced\n").empty());
}

TEST(PtxasReport, ToJsonNamesEveryField) {
  auto r = parse_ptxas_report(kLog);
  nlohmann::json j = r.at(0).to_json();
  EXPECT_EQ(j["kernel"], "gemm");
  EXPECT_EQ(j["registers"], 255);
  EXPECT_EQ(j["spill_load_bytes"], 20);
}

}  // namespace
}  // namespace cusched::runtime
