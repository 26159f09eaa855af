// How many OpenMP threads a parallel region starts: by its work, so that small calls never wake
// a team. A team costs more than its fork and join: on a busy machine a region waits at its
// closing barrier for threads the OS has not scheduled yet, and after it libgomp's idle threads
// spin (GOMP_SPINCOUNT, OMP_WAIT_POLICY) on cores the caller and its neighbours need. A 31 x 250
// correlation took 22-46 ms on a loaded 2-core machine with a team, 0.7 ms without (issue 29,
// item 10; bench/RESULTS-small-calls.md). The wait policy is process-wide and the user's to set,
// so the library does not touch it: a call below the grain runs on the calling thread alone
// (`num_threads(team) if (team > 1)`), which wakes nobody.
//
// Every region that uses this computes the same bits with any team: its work is split on fixed
// boundaries (tiles, rows, chunks), never by the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace fc {

// The grain: at least kWorkPerThread multiply-adds (or element operations of like cost) per
// thread started. A fork and join of 16 threads on an idle machine costs about what 16 x 65536
// of them take.
constexpr int64_t kWorkPerThread = 65536;

// The OpenMP threads worth starting for `work`: at most `threads` (0 = OpenMP's default,
// omp_get_max_threads()), at most work / kWorkPerThread, at least 1 (the calling thread alone).
inline int parallel_team(int64_t work, int threads) {
  const int64_t most = threads > 0 ? threads : omp_get_max_threads();
  return int(std::clamp<int64_t>(work / kWorkPerThread, 1, std::max<int64_t>(1, most)));
}

// As parallel_team, and at most `parts` threads for work that comes in `parts` indivisible
// pieces (tiles, row blocks): a thread without a piece would only wait at the barrier.
inline int parallel_team(int64_t work, int threads, int64_t parts) {
  return int(std::clamp<int64_t>(parts, 1, parallel_team(work, threads)));
}

}  // namespace fc
