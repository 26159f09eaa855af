// The settings of one computation, resolved from the context, plus its progress reporter.
#pragma once

#include <cstdint>

#include "base/progress.hpp"
#include "fastconn/fastconn.h"

namespace fc {

struct RunSettings {
  fc_precision precision = FC_PRECISION_FP32;
  fc_constant_policy constant_policy = FC_CONSTANT_NAN;
  int threads = 0;             // 0 = all cores
  int64_t memory_limit = 0;    // bytes of working memory; 0 = the backend's default
  Progress* progress = nullptr;  // never null during a computation
};

}  // namespace fc
