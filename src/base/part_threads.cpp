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

void run_parts(int parts, const RunSettings& run, const std::function<void(int, const RunSettings&)>& work,
               const std::function<std::string(int)>& label) {
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
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(parts));
  auto join_all = [&] {
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  };
  try {
    for (int i = 0; i < parts; ++i) {
      {
        std::lock_guard<std::mutex> lock(shared.mutex);
        ++shared.running;
      }
      threads.emplace_back([&, i] {
        try {
          work(i, settings[static_cast<size_t>(i)]);
        } catch (...) {
          shared.keep(labelled(label(i)));
        }
        std::lock_guard<std::mutex> lock(shared.mutex);
        --shared.running;
        shared.finished.notify_all();
      });
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
