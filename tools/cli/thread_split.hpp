// thread_split.hpp - the program's own host work (loading the scan's voxels, the automatic mask,
// the gather) split over threads, one contiguous range per thread: each thread writes its own
// part of the output, so its pages are first touched by the thread that fills them and nothing
// is shared but the inputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "progress.hpp"

namespace fcli {

// How many threads the program's host work uses: --threads N when given (N > 0), else every
// core, as the library does for --threads 0.
inline int host_threads(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Calls body(begin, end) for `threads` contiguous ranges covering [0, count), on `threads`
// threads (the caller's among them), and returns when all are done. The first exception thrown
// by any range (in range order) is rethrown after every thread has finished.
template <class Body>
void split_over_threads(int64_t count, int threads, Body&& body) {
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(count, threads));
  if (parts == 1) {
    body(int64_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<size_t>(parts));
  auto run = [&](int64_t k) {
    try {
      body(count * k / parts, count * (k + 1) / parts);
    } catch (...) {
      errors[static_cast<size_t>(k)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(parts - 1));
  try {
    for (int64_t k = 1; k < parts; ++k)
      pool.emplace_back([&run, k] {
        block_cancel_signal();
        run(k);
      });
  } catch (...) {  // a thread could not start: finish those that did, then fail
    for (std::thread& th : pool) th.join();
    throw;
  }
  run(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace fcli
