// The GPU tests' gate: without a usable CUDA backend a test skips, or fails when
// FASTCONN_REQUIRE_CUDA=1 (set by scripts/gpu-check.sh, so a GPU machine never skips silently).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "api_calls.hpp"
#include "fastconn/fastconn.h"

namespace fctest {

inline bool cuda_required() {
  const char* v = std::getenv("FASTCONN_REQUIRE_CUDA");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace fctest

#define REQUIRE_CUDA()                                                                                   \
  do {                                                                                                   \
    fc_status status_ = FC_OK;                                                                           \
    if (!fctest::Context::try_create(FC_BACKEND_CUDA, &status_)) {                                       \
      const std::string why_ = std::string(fc_status_string(status_)) + ": " + fc_last_error();          \
      if (fctest::cuda_required()) FAIL() << "CUDA required (FASTCONN_REQUIRE_CUDA=1) but unavailable: " << why_; \
      GTEST_SKIP() << "no CUDA backend here: " << why_;                                                  \
    }                                                                                                    \
  } while (0)
