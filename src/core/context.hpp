// The state behind an fc_context: the backend it runs on and its settings.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.hpp"
#include "core/run_settings.hpp"
#include "fastconn/fastconn.h"

namespace fc {

struct ContextState {
  std::shared_ptr<Backend> backend;
  fc_precision precision = FC_PRECISION_FP32;
  fc_constant_policy constant_policy = FC_CONSTANT_NAN;
  int64_t memory_limit = 0;
  int threads = 0;
  fc_progress_fn progress_fn = nullptr;
  void* progress_user = nullptr;

  // Settings of one computation, reporting to `progress`.
  RunSettings run_settings(Progress& progress) const {
    RunSettings run;
    run.precision = precision;
    run.constant_policy = constant_policy;
    run.threads = threads;
    run.memory_limit = memory_limit;
    run.progress = &progress;
    return run;
  }
  Progress make_progress(int64_t total, int64_t done = 0) const { return Progress(progress_fn, progress_user, total, done); }
};

// Resolves AUTO (CUDA when it has a usable device, else CPU) and creates the backend.
std::shared_ptr<ContextState> create_context(fc_backend backend, int device);

}  // namespace fc
