#include "base/part_threads.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.hpp"

namespace fc {
namespace {

// What a part's Progress reports to (its fn's user pointer): the part's units so far, and the
// shared cancel flag, answered as the callback's return value.
struct RelaySlot {
  std::atomic<int64_t> done{0};
  const std::atomic<bool>* cancel = nullptr;
};

int relay(int64_t done, int64_t, void* user) {
  auto* slot = static_cast<RelaySlot*>(user);
  slot->done.store(done, std::memory_order_relaxed);
  return slot->cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

// The first failure of the parts (later ones, such as the others' FC_ERR_ABORTED once they are
// told to cancel, are dropped) and the count of parts still running.
struct Shared {
  std::mutex mutex;
  std::condition_variable finished;
  int running = 0;
  std::exception_ptr first;
  std::atomic<bool> cancel{false};

  void keep(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!first) first = std::move(e);
    cancel.store(true, std::memory_order_relaxed);
  }
};

std::exception_ptr labelled(const std::string& label) {
  try {
    throw;
  } catch (const Error& e) {
    return std::make_exception_ptr(Error(e.status(), label + ": " + e.what()));
  } catch (...) {
    return std::current_exception();
  }
}

}  // namespace

PartThreads::PartThreads(int threads) {
  try {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { loop(i); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw;
  }
}

PartThreads::~PartThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool PartThreads::try_start(int count, const std::function<void(int)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_ || count > size()) return false;
    busy_ = true;
    job_ = &job;
    count_ = count;
    pending_ = count;
    ++generation_;
  }
  wake_.notify_all();
  return true;
}

void PartThreads::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  busy_ = false;
  job_ = nullptr;
}

void PartThreads::loop(int i) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (i >= count_) continue;
    const std::function<void(int)>* job = job_;
    lock.unlock();
    (*job)(i);  // run_parts' body catches everything
    lock.lock();
    if (--pending_ == 0) done_.notify_all();
  }
}

void run_parts(int parts, const RunSettings& run, const std::function<void(int, const RunSettings&)>& work,
               const std::function<std::string(int)>& label, PartThreads* pool) {
  if (parts <= 0) return;
  if (parts == 1) {
    work(0, run);
    return;
  }
  Shared shared;
  const int64_t total = run.progress->total();
  std::vector<std::unique_ptr<RelaySlot>> slots;
  std::vector<std::unique_ptr<Progress>> progress;
  std::vector<RunSettings> settings;
  for (int i = 0; i < parts; ++i) {
    slots.push_back(std::make_unique<RelaySlot>());
    slots.back()->cancel = &shared.cancel;
    progress.push_back(std::make_unique<Progress>(&relay, slots.back().get(), total));
    settings.push_back(run);
    settings.back().progress = progress.back().get();
  }
  // Part i's whole run on its thread: every exception is kept, never thrown out of the thread.
  const std::function<void(int)> body = [&](int i) {
    try {
      work(i, settings[static_cast<size_t>(i)]);
    } catch (...) {
      shared.keep(labelled(label(i)));
    }
    std::lock_guard<std::mutex> lock(shared.mutex);
    --shared.running;
    shared.finished.notify_all();
  };
  std::vector<std::thread> threads;
  shared.running = parts;  // counted before any part can end (no thread runs yet: no lock needed)
  const bool pooled = pool != nullptr && pool->try_start(parts, body);
  if (!pooled) shared.running = 0;  // counted below as each thread starts
  auto join_all = [&] {
    if (pooled) pool->wait();
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  };
  try {
    for (int i = 0; i < parts && !pooled; ++i) {
      {
        std::lock_guard<std::mutex> lock(shared.mutex);
        ++shared.running;
      }
      threads.emplace_back([&, i] { body(i); });
    }
  } catch (...) {  // a thread could not be started: stop those that were
    shared.cancel.store(true);
    join_all();
    throw;
  }
  // Relay the parts' progress to the caller's callback until every part has finished.
  int64_t forwarded = 0;
  auto forward = [&] {
    int64_t sum = 0;
    for (const auto& s : slots) sum += s->done.load(std::memory_order_relaxed);
    if (sum > forwarded) {
      const int64_t delta = sum - forwarded;
      forwarded = sum;
      run.progress->advance(delta);
    }
  };
  try {
    for (;;) {
      std::unique_lock<std::mutex> lock(shared.mutex);
      shared.finished.wait_for(lock, std::chrono::milliseconds(5), [&] { return shared.running == 0; });
      const bool done = shared.running == 0;
      const bool failed = shared.first != nullptr;
      lock.unlock();
      if (failed) break;
      forward();
      if (done) break;
    }
  } catch (...) {  // the callback cancelled
    shared.cancel.store(true);
    join_all();
    throw;
  }
  join_all();
  if (shared.first) std::rethrow_exception(shared.first);
}

}  // namespace fc
