// A CPU context made a split over CPU parts (FASTCONN_SPLIT_CPU, context/context.cpp): the
// multi-device context's engine without GPUs. Shared by test_split.cpp and test_split_windows.cpp.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "scoped_env.hpp"

namespace fctest {

// A CPU context made with FASTCONN_SPLIT_CPU = parts (0: unset, a plain CPU context), 2 threads.
inline Context cpu_context(int parts) {
  const std::string k = std::to_string(parts);
  ScopedEnv env("FASTCONN_SPLIT_CPU", parts > 0 ? k.c_str() : nullptr);
  Context c(FC_BACKEND_CPU);
  check(fc_context_set_threads(c.get(), 2), "fc_context_set_threads");
  return c;
}

// The backend's description ("3 parts: part 0 (CPU ...); ...").
inline std::string describe(const Context& c) { return c.get()->state->backend->describe(); }

// A progress callback's reports, and a cancel at the first report past cancel_after units.
struct ProgressLog {
  std::vector<std::pair<int64_t, int64_t>> calls;
  int64_t cancel_after = -1;  // cancel at the first report past this many units (-1: never)
};

inline int log_progress(int64_t done, int64_t total, void* user) {
  auto* log = static_cast<ProgressLog*>(user);
  log->calls.emplace_back(done, total);
  return log->cancel_after >= 0 && done > log->cancel_after ? 1 : 0;
}

inline void expect_monotone_to_total(const ProgressLog& log, const std::string& what) {
  ASSERT_FALSE(log.calls.empty()) << what;
  for (size_t i = 1; i < log.calls.size(); ++i) {
    EXPECT_GE(log.calls[i].first, log.calls[i - 1].first) << what << " report " << i;
    EXPECT_EQ(log.calls[i].second, log.calls[0].second) << what;
  }
  EXPECT_EQ(log.calls.back().first, log.calls.back().second) << what;
}

}  // namespace fctest
