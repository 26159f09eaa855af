// Exceptions may not leave an OpenMP parallel region (the runtime calls std::terminate, which
// would end the user's R, MATLAB or Python session on an out-of-memory). A region's work runs
// through capture(): the first exception of any thread is kept, later ones are dropped, and
// rethrow() after the region throws it on the calling thread, where the API guard maps it.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace fc {

class ParallelErrors {
 public:
  // Runs f(); false (the exception kept) when it threw.
  template <class F>
  bool capture(F&& f) noexcept {
    try {
      f();
      return true;
    } catch (...) {
      keep(std::current_exception());
      return false;
    }
  }
  // Some thread's work threw: the others may stop early.
  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  void keep(std::exception_ptr e) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_) first_ = std::move(e);
    failed_.store(true, std::memory_order_relaxed);
  }
  std::mutex mutex_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

}  // namespace fc
