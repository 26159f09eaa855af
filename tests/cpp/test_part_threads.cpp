// The machinery of a split computation (backend/split_backend.hpp): run_parts (base/part_threads:
// a thread per part, progress relayed to the calling thread, the first failure named by its part,
// cancel) and equal_bands (base/row_bands.hpp: row bands of equal work on a granule grid).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/part_threads.hpp"
#include "base/row_bands.hpp"
#include "base/triangle_index.hpp"

namespace {

struct Log {
  std::vector<int64_t> done;
  std::thread::id caller = std::this_thread::get_id();
  bool other_thread = false;
  int64_t cancel_after = -1;
};

int on_progress(int64_t done, int64_t, void* user) {
  auto* log = static_cast<Log*>(user);
  log->done.push_back(done);
  if (std::this_thread::get_id() != log->caller) log->other_thread = true;
  return log->cancel_after >= 0 && done > log->cancel_after ? 1 : 0;
}

std::string label(int i) { return "part " + std::to_string(i); }

// Each multi-part case runs with a thread per part and call, and on a PartThreads pool (kept
// threads: the SplitBackend's way).
TEST(PartThreads, ProgressIsSummedOnTheCallingThread) {
  fc::PartThreads kept(4);
  for (fc::PartThreads* pool : {static_cast<fc::PartThreads*>(nullptr), &kept}) {
  Log log;
  fc::Progress progress(&on_progress, &log, 3 * 100);
  fc::RunSettings run;
  run.progress = &progress;
  fc::run_parts(3, run, [](int, const fc::RunSettings& r) {
    for (int k = 0; k < 100; ++k) {
      r.progress->advance(1);
      if (k % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }, label, pool);
  ASSERT_FALSE(log.done.empty());
  EXPECT_FALSE(log.other_thread);
  for (size_t i = 1; i < log.done.size(); ++i) EXPECT_GT(log.done[i], log.done[i - 1]);
  EXPECT_EQ(log.done.back(), 300);
  EXPECT_EQ(progress.done(), 300);
  }
}

TEST(PartThreads, TheFirstFailureIsNamedAndEveryPartIsJoined) {
  fc::PartThreads kept(5);
  for (fc::PartThreads* pool : {static_cast<fc::PartThreads*>(nullptr), &kept}) {
  fc::Progress progress(nullptr, nullptr, 0);
  fc::RunSettings run;
  run.progress = &progress;
  std::atomic<int> finished{0};
  try {
    fc::run_parts(4, run, [&](int i, const fc::RunSettings& r) {
      if (i == 2) fc::fail(FC_ERR_OUT_OF_MEMORY, "no room");
      // the others report until told to stop (their next report throws FC_ERR_ABORTED)
      for (;;) {
        try {
          r.progress->advance(1);
        } catch (const fc::Error&) {
          ++finished;
          throw;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }, label, pool);
    FAIL() << "run_parts returned";
  } catch (const fc::Error& e) {
    EXPECT_EQ(e.status(), FC_ERR_OUT_OF_MEMORY);
    EXPECT_EQ(std::string(e.what()), "part 2: no room");
  }
  EXPECT_EQ(finished.load(), 3);  // every other part stopped before run_parts returned
  }
}

TEST(PartThreads, ACancelFromTheCallbackStopsEveryPart) {
  fc::PartThreads kept(2);
  for (fc::PartThreads* pool : {static_cast<fc::PartThreads*>(nullptr), &kept}) {
  Log log;
  log.cancel_after = 10;
  fc::Progress progress(&on_progress, &log, 1000000);
  fc::RunSettings run;
  run.progress = &progress;
  std::atomic<int> stopped{0};
  try {
    fc::run_parts(2, run, [&](int, const fc::RunSettings& r) {
      try {
        for (;;) {
          r.progress->advance(1);
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
      } catch (const fc::Error& e) {
        EXPECT_EQ(e.status(), FC_ERR_ABORTED);
        ++stopped;
        throw;
      }
    }, label, pool);
    FAIL() << "run_parts returned";
  } catch (const fc::Error& e) {
    EXPECT_EQ(e.status(), FC_ERR_ABORTED);
    EXPECT_NE(std::string(e.what()).find("cancelled by the progress callback"), std::string::npos) << e.what();
  }
  EXPECT_EQ(stopped.load(), 2);
  EXPECT_FALSE(log.other_thread);
  }
}

// The pool's threads serve call after call (the same thread for a part each time, never the
// caller's), calls of fewer parts than threads, and parts that end at once (the count of running
// parts is set before any can end: 2,000 calls of empty parts never hang); a run_parts from
// inside a part while the pool is busy gets threads of its own.
TEST(PartThreads, APoolServesManyCallsAndANestedOneGetsItsOwnThreads) {
  fc::PartThreads pool(4);
  fc::Progress progress(nullptr, nullptr, 0);
  fc::RunSettings run;
  run.progress = &progress;
  std::vector<std::thread::id> first(4), now(4);
  fc::run_parts(4, run, [&](int i, const fc::RunSettings&) { first[size_t(i)] = std::this_thread::get_id(); }, label, &pool);
  for (int call = 0; call < 2000; ++call) {
    const int parts = 2 + call % 3;
    std::atomic<int> ran{0};
    fc::run_parts(parts, run, [&](int i, const fc::RunSettings&) {
      now[size_t(i)] = std::this_thread::get_id();
      ++ran;
    }, label, &pool);
    ASSERT_EQ(ran.load(), parts) << "call " << call;
    for (int i = 0; i < parts; ++i) ASSERT_EQ(now[size_t(i)], first[size_t(i)]) << "call " << call << ", part " << i;
  }
  for (const auto& id : first) EXPECT_NE(id, std::this_thread::get_id());
  std::atomic<int> inner{0};
  fc::run_parts(2, run, [&](int i, const fc::RunSettings& r) {
    if (i == 0) fc::run_parts(3, r, [&](int, const fc::RunSettings&) { ++inner; }, label, &pool);
  }, label, &pool);
  EXPECT_EQ(inner.load(), 3);
}

TEST(PartThreads, OnePartRunsOnTheCallingThread) {
  fc::Progress progress(nullptr, nullptr, 1);
  fc::RunSettings run;
  run.progress = &progress;
  std::thread::id where;
  fc::run_parts(1, run, [&](int, const fc::RunSettings& r) {
    where = std::this_thread::get_id();
    EXPECT_EQ(r.progress, &progress);
  }, label);
  EXPECT_EQ(where, std::this_thread::get_id());
}

TEST(RowBands, EqualPairCountsOnTheGranuleGrid) {
  for (int64_t n : {1, 2, 3, 7, 101, 1009, 100003}) {
    for (int64_t parts : {2, 3, 4, 8}) {
      for (int64_t g : {1, 16, 256}) {
        const auto pairs = [n](int64_t r) { return fc::row_start(n, r); };
        const std::vector<int64_t> b = fc::equal_bands(0, n, parts, g, pairs);
        ASSERT_EQ(b.size(), static_cast<size_t>(parts + 1));
        EXPECT_EQ(b.front(), 0);
        EXPECT_EQ(b.back(), n);
        const int64_t total = fc::triu_count(n);
        for (int64_t k = 1; k <= parts; ++k) {
          EXPECT_LE(b[size_t(k - 1)], b[size_t(k)]);
          if (k < parts) {
            EXPECT_TRUE(b[size_t(k)] % g == 0 || b[size_t(k)] == n) << n << " " << parts << " " << g;
          }
          // each band's pairs are within the granules around its share's boundary rows
          const int64_t share = pairs(b[size_t(k)]) - pairs(b[size_t(k - 1)]);
          EXPECT_LE(share, total / parts + 2 * g * std::max<int64_t>(n - 1, 1) + 1) << n << " " << parts << " " << g;
        }
      }
    }
  }
}

TEST(RowBands, ColumnOrderAndRowCounts) {
  // column order: "rows" j in [1, n), pairs before j = j (j - 1) / 2
  const int64_t n = 5001;
  const std::vector<int64_t> b = fc::equal_bands(1, n, 2, 1, [](int64_t j) { return fc::col_start(j); });
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[2], n);
  EXPECT_NEAR(double(fc::col_start(b[1])), double(fc::triu_count(n)) / 2, double(n));  // half the pairs
  // equal rows (top-k, cross): a sub-range
  const std::vector<int64_t> r = fc::equal_bands(10, 110, 4, 1, [](int64_t i) { return i; });
  EXPECT_EQ(r, (std::vector<int64_t>{10, 35, 60, 85, 110}));
}

}  // namespace
