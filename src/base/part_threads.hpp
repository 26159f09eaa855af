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

#include <functional>
#include <string>

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

// Runs work(i, run_i) for i in [0, parts) on a thread each and returns once every one has
// finished. run_i is `run` with a relaying progress (total: run.progress's). The first failure
// wins: an fc::Error is rethrown with its status and its message prefixed by label(i) + ": "
// (other exceptions as they are), after the other parts were told to cancel and were joined; no
// thread outlives the call. A cancel from the callback (run.progress->advance throwing) likewise
// cancels and joins every part, then rethrows. parts == 1 runs on the calling thread.
void run_parts(int parts, const RunSettings& run, const std::function<void(int, const RunSettings&)>& work,
               const std::function<std::string(int)>& label);

}  // namespace fc
