// What the tests run once per backend (TEST_P over fc_backend) share: SetUp skips a backend that
// cannot be created on this machine, and fails instead under FASTCONN_REQUIRE_CUDA=1 (the GPU
// machine's check), so that a missing GPU cannot pass there as a skip; tested() makes a context
// of the backend under test in a precision / constant-policy mode.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "api_calls.hpp"

namespace fctest {

inline bool cuda_required() {
  const char* v = std::getenv("FASTCONN_REQUIRE_CUDA");
  return v != nullptr && std::string(v) == "1";
}

// A precision and a constant-series policy: the settings every backend test runs under.
struct Mode {
  fc_precision precision;
  fc_constant_policy policy;
};

inline std::string mode_name(const Mode& m) {
  const char* p = m.precision == FC_PRECISION_FP64 ? "FP64" : m.precision == FC_PRECISION_TF32 ? "TF32" : "FP32";
  return std::string(p) + (m.policy == FC_CONSTANT_ZERO ? "/ZERO" : "/NAN");
}

class BackendTest : public ::testing::TestWithParam<fc_backend> {
 protected:
  void SetUp() override {
    fc_status status = FC_OK;
    if (!Context::try_create(GetParam(), &status)) {
      const std::string why = std::string(fc_status_string(status)) + ": " + fc_last_error();
      if (cuda_required()) FAIL() << backend_name(GetParam()) << " backend required (FASTCONN_REQUIRE_CUDA=1) but unavailable: " << why;
      GTEST_SKIP() << backend_name(GetParam()) << " backend unavailable here: " << why;
    }
  }
  fc_backend backend() const { return GetParam(); }
  Context tested(const Mode& m, int64_t memory_limit = 0) const {
    Context c(GetParam());
    c.precision(m.precision).policy(m.policy).memory_limit(memory_limit);
    return c;
  }
};

}  // namespace fctest
