// Worker threads that copy staged values from the pinned ring into a pageable destination.
// Filling fresh pageable memory is bound by page faults, which scale with threads: one thread
// moves a few GB/s, the PCIe link delivers ~55 GB/s. The pool knows nothing of CUDA: it is handed
// pieces whose source is already complete.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace fc {
namespace cuda {

class HostCopyPool {
 public:
  // One unit of work: rows x width bytes from src (pitch src_pitch) to dst (pitch dst_pitch).
  // `group` is decremented when the piece is done (a group = the pieces of one ring slot).
  struct Piece {
    const char* src = nullptr;
    char* dst = nullptr;
    size_t width = 0, rows = 1, src_pitch = 0, dst_pitch = 0;
    int group = 0;
  };

  HostCopyPool(int threads, int groups);
  ~HostCopyPool();
  HostCopyPool(const HostCopyPool&) = delete;
  HostCopyPool& operator=(const HostCopyPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()); }

  // Queues the pieces of one group; the group must be idle.
  void submit(int group, const std::vector<Piece>& pieces);
  bool idle(int group);
  void wait_idle(int group);
  // Drops queued pieces and waits for the running ones: every group is idle on return.
  void cancel_all();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable piece_done_;
  std::deque<Piece> queue_;
  std::vector<int64_t> outstanding_;  // per group: pieces queued or running
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace cuda
}  // namespace fc
