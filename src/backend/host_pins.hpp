// Host memory a backend page-locked for its device's copies, unlocked by whoever frees it.
//
// The CUDA backend page-locks (cudaHostRegister) the host arrays of graphs that it writes again
// and again: the arrays a destroyed graph left to its context (graph/graph_recycler.hpp). A device
// copies into locked memory at the link's rate (55 GB/s on the H100 machine) instead of through
// the pinned staging ring and the copy threads (13 GB/s into already-mapped pageable memory), and
// locking memory that is already mapped costs one pass (18-33 GB/s, bench/RESULTS-gpu.md), paid
// once for all the graphs that reuse it.
//
// Locked memory must be unlocked before it is freed: otherwise the pages stay locked and the
// device keeps a mapping of an address range that the allocator hands out again. Edge arrays
// are freed on many paths (a graph destroyed after its context, a recycled array that grows, a
// kept array evicted by a larger one), so the unlock is done where the memory is returned: the
// edge arrays' allocator (graph_backend.hpp's UninitializedAllocator) calls release() for every
// deallocation, which unlocks the range if it starts one (a lookup only while anything is
// locked). Thread-safe. Header-only, so that every binary that holds edge arrays has it.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

namespace fc {

class HostPins {
 public:
  using Unlock = void (*)(void* begin);

  static HostPins& instance() {
    static HostPins pins;
    return pins;
  }

  // The bytes locked from `begin` on (0 unless a locked range starts there).
  size_t locked_bytes(const void* begin) const {
    if (count_.load(std::memory_order_acquire) == 0) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Range& r : ranges_)
      if (r.begin == begin) return r.bytes;
    return 0;
  }

  // Records that [begin, begin + bytes) was locked and is unlocked by unlock(begin). false (and
  // the range unlocked at once) when the record cannot be kept.
  bool add(void* begin, size_t bytes, Unlock unlock) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      ranges_.push_back(Range{begin, bytes, unlock});
    } catch (...) {
      unlock(begin);
      return false;
    }
    count_.fetch_add(1, std::memory_order_release);
    return true;
  }

  // Unlocks the range that starts at `begin`, if any: call before freeing the memory.
  void release(void* begin) noexcept {
    if (count_.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (ranges_[i].begin != begin) continue;
      ranges_[i].unlock(begin);
      ranges_[i] = ranges_.back();
      ranges_.pop_back();
      count_.fetch_sub(1, std::memory_order_release);
      return;
    }
  }

 private:
  struct Range {
    void* begin;
    size_t bytes;
    Unlock unlock;
  };
  mutable std::mutex mutex_;
  std::atomic<size_t> count_{0};
  std::vector<Range> ranges_;
};

}  // namespace fc
