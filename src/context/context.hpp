// The state behind an fc_context: the backend it runs on and its settings.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "backend/backend.hpp"
#include "graph/graph_recycler.hpp"
#include "base/run_settings.hpp"
#include "fastconn/fastconn.h"

namespace fc {

// Which thread is computing with a context (a context is used by one thread at a time, DESIGN.md).
// Taken by fc::ContextUse (api/context_use.hpp) for the length of every entry point that computes
// with or changes the context; a second thread's entry answers FC_ERR_BAD_STATE.
struct ContextOwner {
  std::atomic<std::thread::id> thread{};  // std::thread::id(): nobody
  int depth = 0;                          // nested entries of the owning thread (touched only by it)
};

struct ContextState {
  std::shared_ptr<Backend> backend;
  fc_precision precision = FC_PRECISION_FP32;
  fc_constant_policy constant_policy = FC_CONSTANT_NAN;
  int64_t memory_limit = 0;
  int threads = 0;
  fc_progress_fn progress_fn = nullptr;
  void* progress_user = nullptr;
  // Shared, not copied, by copies of this state (per-window views of the same context).
  std::shared_ptr<ContextOwner> owner = std::make_shared<ContextOwner>();
  std::shared_ptr<GraphRecycler> graph_recycler = std::make_shared<GraphRecycler>();

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
  // This state without its progress callback: for work done ahead of the call that will report
  // it (the window iterators' look-ahead), which must neither report nor be cancelled.
  ContextState quiet() const {
    ContextState c = *this;
    c.progress_fn = nullptr;
    c.progress_user = nullptr;
    return c;
  }
};

// Resolves AUTO (CUDA when it has a usable device, else CPU) and creates the backend.
// backend is taken by reference: validated as an int before it is read (see raw_enum).
std::shared_ptr<ContextState> create_context(const fc_backend& backend, int device);

// A CUDA context over the listed devices (n_devices distinct ids; 0: every visible device), the
// first of them the primary (fc_context_create_cuda_devices). Arguments are checked here, the
// device count by the backend.
std::shared_ptr<ContextState> create_context_cuda_devices(const int* devices, int n_devices);

}  // namespace fc
