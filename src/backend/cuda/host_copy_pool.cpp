#include "backend/cuda/host_copy_pool.hpp"

#include <cstring>

namespace fc {
namespace cuda {

HostCopyPool::HostCopyPool(int threads, int groups) : outstanding_(static_cast<size_t>(groups), 0) {
  workers_.reserve(static_cast<size_t>(threads));
  try {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& w : workers_) w.join();
    throw;
  }
}

HostCopyPool::~HostCopyPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  work_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void HostCopyPool::submit(int group, const std::vector<Piece>& pieces) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Piece& p : pieces) queue_.push_back(p);
    outstanding_[static_cast<size_t>(group)] += static_cast<int64_t>(pieces.size());
  }
  work_ready_.notify_all();
}

bool HostCopyPool::idle(int group) {
  std::lock_guard<std::mutex> lock(mutex_);
  return outstanding_[static_cast<size_t>(group)] == 0;
}

void HostCopyPool::wait_idle(int group) {
  std::unique_lock<std::mutex> lock(mutex_);
  piece_done_.wait(lock, [&] { return outstanding_[static_cast<size_t>(group)] == 0; });
}

void HostCopyPool::cancel_all() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (const Piece& p : queue_) --outstanding_[static_cast<size_t>(p.group)];
  queue_.clear();
  piece_done_.wait(lock, [&] {
    for (int64_t n : outstanding_)
      if (n != 0) return false;
    return true;
  });
}

void HostCopyPool::work() {
  for (;;) {
    Piece p;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      p = queue_.front();
      queue_.pop_front();
    }
    if (p.rows == 1 || (p.src_pitch == p.width && p.dst_pitch == p.width)) {
      std::memcpy(p.dst, p.src, p.width * p.rows);
    } else {
      for (size_t r = 0; r < p.rows; ++r) std::memcpy(p.dst + r * p.dst_pitch, p.src + r * p.src_pitch, p.width);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --outstanding_[static_cast<size_t>(p.group)];
    }
    piece_done_.notify_all();
  }
}

}  // namespace cuda
}  // namespace fc
