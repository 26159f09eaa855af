// The split backend (backend/split_backend.hpp, the multi-GPU context's engine) without GPUs:
// FASTCONN_SPLIT_CPU=k makes a CPU context a split over k CPU backends. Every call on such a
// context must give exactly the bits of a plain CPU context: odd sizes, T = 2, constant series,
// FP32 and FP64, a memory limit; progress reaches its total monotonically; a cancel from the
// callback mid-split returns FC_ERR_ABORTED and the context then works.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "every_call.hpp"
#include "reference.hpp"
#include "scoped_env.hpp"
#include "split_context.hpp"

namespace {

using namespace fctest;

struct Case {
  int64_t n, t;
  fc_precision precision;
  int64_t memory_limit;
  std::vector<int64_t> constant;  // series made constant
};

std::string name_of(const Case& c) {
  return "N=" + std::to_string(c.n) + " T=" + std::to_string(c.t) + (c.precision == FC_PRECISION_FP64 ? " FP64" : c.precision == FC_PRECISION_TF32 ? " TF32" : " FP32") +
         (c.memory_limit > 0 ? " limit " + std::to_string(c.memory_limit) : "") + " constant " +
         std::to_string(c.constant.size());
}

std::vector<CallOutput> run_case(const Context& ctx, const Case& c) {
  check(fc_context_set_precision(ctx.get(), c.precision), "fc_context_set_precision");
  check(fc_context_set_memory_limit(ctx.get(), c.memory_limit), "fc_context_set_memory_limit");
  Dataset d = structured_data(c.n, c.t, 1000 + static_cast<uint64_t>(c.n * 7 + c.t));
  for (int64_t s : c.constant) make_constant(d, s, 812.5);
  Series s = make_series(ctx, d);
  return every_call(ctx.get(), s.get(), c.n, c.t);
}

TEST(Split, EnvironmentMakesTheSplit) {
  EXPECT_EQ(describe(cpu_context(3)).rfind("3 parts: part 0 (CPU", 0), 0u) << describe(cpu_context(3));
  EXPECT_EQ(describe(cpu_context(1)).rfind("CPU", 0), 0u);
  EXPECT_EQ(describe(cpu_context(0)).rfind("CPU", 0), 0u);
  for (const char* bad : {"0", "-2", "two", "2x", "65"}) {
    ScopedEnv env("FASTCONN_SPLIT_CPU", bad);
    fc_context* ctx = nullptr;
    EXPECT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_ERR_INVALID_ARG) << bad;
    EXPECT_EQ(ctx, nullptr);
    EXPECT_NE(std::string(fc_last_error()).find(std::string("\"") + bad + "\""), std::string::npos) << fc_last_error();
  }
}

// One ctest per case (each case's every call on 1, 2 and 3 parts takes minutes under ASan).
const std::vector<Case> kCases = {
    {1, 37, FC_PRECISION_FP32, 0, {}},        {2, 37, FC_PRECISION_FP32, 0, {}},
    {2, 2, FC_PRECISION_FP64, 0, {1}},        {3, 2, FC_PRECISION_FP32, 0, {}},
    {7, 37, FC_PRECISION_FP64, 0, {0, 5}},    {101, 2, FC_PRECISION_FP32, 0, {3}},
    {101, 37, FC_PRECISION_FP32, 0, {}},      {101, 37, FC_PRECISION_FP64, 1 << 20, {100}},
    {1009, 23, FC_PRECISION_FP32, 0, {17}},   {1009, 23, FC_PRECISION_FP32, 600000, {}},
    {1009, 23, FC_PRECISION_FP64, 0, {}},
    {1009, 23, FC_PRECISION_TF32, 0, {5}},  // TF32: the PCC family whole on the primary part
};

class SplitCase : public ::testing::TestWithParam<Case> {};

TEST_P(SplitCase, EveryCallGivesTheSameBits) {
  const Case& c = GetParam();
  const Context single = cpu_context(0);
  const std::vector<CallOutput> want = run_case(single, c);
  for (int parts : {2, 3}) {
    const Context split = cpu_context(parts);
    expect_same_outputs(want, run_case(split, c), name_of(c) + ", " + std::to_string(parts) + " parts");
  }
}

INSTANTIATE_TEST_SUITE_P(Split, SplitCase, ::testing::ValuesIn(kCases), [](const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const char* p = c.precision == FC_PRECISION_FP64 ? "fp64" : c.precision == FC_PRECISION_TF32 ? "tf32" : "fp32";
  return "n" + std::to_string(c.n) + "_t" + std::to_string(c.t) + "_" + p + "_limit" + std::to_string(c.memory_limit) +
         "_constant" + std::to_string(c.constant.size());
});

TEST(Split, ProgressReachesTheSameTotal) {
  const Dataset d = structured_data(1009, 60, 5);
  int64_t total = -1;
  for (int parts : {0, 2, 3}) {
    Context ctx = cpu_context(parts);
    ProgressLog log;
    ctx.progress(&log_progress, &log);
    const Series s = make_series(ctx, d);
    pcc_triu(ctx, s, FC_TRIU_ROW);
    expect_monotone_to_total(log, "triu, " + std::to_string(parts) + " parts");
    if (total < 0) total = log.calls.back().second;
    EXPECT_EQ(log.calls.back().second, total);
    ProgressLog windows;
    ctx.progress(&log_progress, &windows);
    std::vector<float> out(static_cast<size_t>(11 * fc_triu_size(1009)));
    check(fc_dfc_triu(ctx.get(), s.get(), 30, 3, 0, 0.0, FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())),
          "fc_dfc_triu");
    expect_monotone_to_total(windows, "dfc triu, " + std::to_string(parts) + " parts");
  }
}

// On split contexts of 2 and 3 parts: after arm(ctx), fc_pcc_triu fails with `status` and a
// message that `message_ok` accepts; after disarm(ctx) the same context gives a plain one's bits.
void expect_failure_then_same_bits(const Dataset& d, fc_status status, const std::function<void(Context&)>& arm,
                                   const std::function<void(Context&)>& disarm,
                                   const std::function<bool(const std::string&)>& message_ok) {
  const Context single = cpu_context(0);
  const Series ss = make_series(single, d);
  const std::vector<float> want = pcc_triu(single, ss, FC_TRIU_ROW);
  for (int parts : {2, 3}) {
    Context ctx = cpu_context(parts);
    const Series s = make_series(ctx, d);
    arm(ctx);
    std::vector<float> out(want.size(), kSentinel);
    EXPECT_EQ(fc_pcc_triu(ctx.get(), s.get(), FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())), status);
    const std::string message = fc_last_error();
    EXPECT_TRUE(message_ok(message)) << parts << " parts: " << message;
    disarm(ctx);
    EXPECT_TRUE(pcc_triu(ctx, s, FC_TRIU_ROW) == want) << parts << " parts after the failure";
  }
}

TEST(Split, CancelMidSplitAbortsAndTheContextWorks) {
  ProgressLog log;
  log.cancel_after = 1;
  expect_failure_then_same_bits(
      structured_data(2003, 40, 9), FC_ERR_ABORTED,
      [&](Context& ctx) {
        ctx.memory_limit(1 << 20);  // many tiles: many reports
        ctx.progress(&log_progress, &log);
      },
      [](Context& ctx) { ctx.progress(nullptr, nullptr); },
      [](const std::string& m) { return m.find("cancelled by the progress callback") != std::string::npos; });
}

TEST(Split, APartsFailureNamesItAndTheContextWorks) {
  expect_failure_then_same_bits(
      structured_data(1009, 30, 4), FC_ERR_OUT_OF_MEMORY, [](Context& ctx) { ctx.memory_limit(1); },  // too small for any part
      [](Context& ctx) { ctx.memory_limit(0); },
      [](const std::string& m) { return m.rfind("fc_pcc_triu: part ", 0) == 0 && m.find(" (CPU (") != std::string::npos; });
}

}  // namespace
