// One computation split into parts that run at once, one host thread per part (the split
// backend's devices, backend/split_backend.hpp), with the caller's progress and cancel kept.
//
// Progress::advance may only be called on the API caller's thread (the callback is the user's,
// e.g. R's or Python's, which must not be entered from a worker). So each part gets its own
// RunSettings whose Progress reports to a relay: a per-part atomic slot read by the calling
// thread, which waits for the parts, polling every few milliseconds, and forwards the summed
// progress to the real run.progress. The relay answers "cancel" (the part's next report throws
// FC_ERR_ABORTED) once the user's callback cancelled or another part failed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/run_settings.hpp"

namespace fc {

// `from` reporting to a progress of its own that nobody reads: for the work around the parts
// whose units are counted elsewhere (uploads, windows made for a part, joining the results).
struct QuietRun {
  Progress progress{nullptr, nullptr, 0};
  RunSettings run;
  explicit QuietRun(const RunSettings& from = RunSettings()) : run(from) { run.progress = &progress; }
  QuietRun(const QuietRun&) = delete;
  QuietRun& operator=(const QuietRun&) = delete;
};

// Threads kept for the parts of many calls (a SplitBackend's): starting a thread per part and call
// cost 0.1 ms a thread on the 4-GPU machine, each part beginning after the one before (0.42 ms
// late for the fourth), which is 6 % of a batch of window graphs (7.3 ms). Thread i runs job(i)
// of each start; one start at a time (try_start answers false while one runs: the caller then
// starts threads of its own). Joined on destruction.
class PartThreads {
 public:
  explicit PartThreads(int threads);  // throws std::system_error when a thread cannot start
  ~PartThreads();
  PartThreads(const PartThreads&) = delete;
  PartThreads& operator=(const PartThreads&) = delete;
  int size() const { return static_cast<int>(threads_.size()); }
  // job(i) on thread i for i in [0, count), count <= size(); returns at once. `job` must live
  // until wait() returns.
  bool try_start(int count, const std::function<void(int)>& job);
  void wait();  // until every job of the last start has returned

 private:
  void loop(int i);
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int count_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool busy_ = false, stop_ = false;
  std::vector<std::thread> threads_;
};

// Runs work(i, run_i) for i in [0, parts) on a thread each and returns once every one has
// finished. run_i is `run` with a relaying progress (total: run.progress's). The first failure
// wins: an fc::Error is rethrown with its status and its message prefixed by label(i) + ": "
// (other exceptions as they are), after the other parts were told to cancel and were waited for;
// no part's work outlives the call. A cancel from the callback (run.progress->advance throwing)
// likewise cancels and waits for every part, then rethrows. parts == 1 runs on the calling
// thread. `pool` (optional, at least `parts` threads): its threads run the parts when it is free;
// else each part gets a thread of its own, joined before the call returns.
void run_parts(int parts, const RunSettings& run, const std::function<void(int, const RunSettings&)>& work,
               const std::function<std::string(int)>& label, PartThreads* pool = nullptr);

}  // namespace fc
