// Threads (issue 12.3). A context serves one thread at a time (DESIGN.md); many threads, each
// with its own context, run at once and get the same bits as one thread; fc_last_error() is per
// thread; and one context entered by a second thread while the first is inside a call answers
// FC_ERR_BAD_STATE (api/context_use.hpp), never a race or a crash.
//
// The test command also runs this binary under ThreadSanitizer (scripts/sanitize.sh tsan, with
// OMP_NUM_THREADS=1: the threads under test are these std::threads, not OpenMP's).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "fastconn/fastconn.h"

namespace {

constexpr int64_t kSeries = 96;
constexpr int64_t kTime = 64;

// Deterministic data, series-major (series_stride = kTime, time_stride = 1).
std::vector<double> make_data(uint64_t seed) {
  std::vector<double> x(static_cast<size_t>(kSeries * kTime));
  uint64_t state = seed * 2654435761u + 1;
  for (auto& v : x) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    v = static_cast<double>((state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) - 0.5;
  }
  for (int64_t s = 1; s < kSeries; ++s)  // correlated neighbours, so r spreads over (-1, 1)
    for (int64_t t = 0; t < kTime; ++t) x[static_cast<size_t>(s * kTime + t)] += 0.7 * x[static_cast<size_t>((s - 1) * kTime + t)];
  return x;
}

// Everything one thread computes with its own context: triangle, blocks, graph and degree.
struct Results {
  std::vector<float> triu;
  std::vector<float> blocks;
  std::vector<int64_t> columns;
  std::vector<int64_t> degree;
  fc_status status = FC_OK;
  std::string error;
};

#define STEP(call)                       \
  do {                                   \
    r.status = (call);                   \
    if (r.status != FC_OK) {             \
      r.error = #call ": ";              \
      r.error += fc_last_error();        \
      goto done;                         \
    }                                    \
  } while (0)

Results compute(const std::vector<double>& x) {
  Results r;
  fc_context* ctx = nullptr;
  fc_series* s = nullptr;
  fc_blocks* it = nullptr;
  fc_graph* g = nullptr;
  const int64_t pairs = fc_triu_size(kSeries);
  fc_block_info info;
  int64_t n_nodes = 0, n_edges = 0;
  r.triu.resize(static_cast<size_t>(pairs));
  r.blocks.resize(static_cast<size_t>(pairs));
  r.degree.resize(static_cast<size_t>(kSeries));
  STEP(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  STEP(fc_series_create_f64(ctx, x.data(), kSeries, kTime, kTime, 1, &s));
  STEP(fc_pcc_triu(ctx, s, FC_TRIU_ROW, r.triu.data(), pairs));
  STEP(fc_pcc_blocks_begin(ctx, s, 7, &it));
  for (;;) {
    std::vector<float> buf(static_cast<size_t>(pairs));
    const fc_status st = fc_blocks_next(it, buf.data(), pairs, &info);
    if (st == FC_DONE) break;
    STEP(st);
    std::memcpy(r.blocks.data() + info.triu_offset, buf.data(), sizeof(float) * static_cast<size_t>(info.count));
  }
  STEP(fc_pcc_graph(ctx, s, FC_EDGE_TOP_K, 5, FC_GRAPH_WEIGHTED, &g));
  STEP(fc_graph_info(g, &n_nodes, &n_edges));
  r.columns.resize(static_cast<size_t>(2 * n_edges));
  {
    std::vector<int64_t> offsets(static_cast<size_t>(n_nodes + 1));
    STEP(fc_graph_csr(g, offsets.data(), r.columns.data(), nullptr, 2 * n_edges));
  }
  STEP(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.3, r.degree.data(), nullptr));
done:
  fc_graph_destroy(g);
  fc_blocks_destroy(it);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return r;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

TEST(Threads, ManyContextsFromManyThreadsGiveTheBitsOfOne) {
  const std::vector<double> x = make_data(3);
  const Results one = compute(x);
  ASSERT_EQ(one.status, FC_OK) << one.error;
  ASSERT_TRUE(same_bits(one.triu, one.blocks));

  constexpr int kThreads = 6, kRounds = 2;
  std::vector<Results> got(kThreads * kRounds);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      for (int k = 0; k < kRounds; ++k) got[static_cast<size_t>(i * kRounds + k)] = compute(x);
    });
  for (auto& t : threads) t.join();
  for (const Results& r : got) {
    ASSERT_EQ(r.status, FC_OK) << r.error;
    EXPECT_TRUE(same_bits(r.triu, one.triu));
    EXPECT_TRUE(same_bits(r.blocks, one.blocks));
    EXPECT_EQ(r.columns, one.columns);
    EXPECT_EQ(r.degree, one.degree);
  }
}

TEST(Threads, LastErrorIsPerThread) {
  // Each thread fails with its own message, waits until every other thread has failed too, then
  // reads its own message back.
  constexpr int kThreads = 4;
  std::atomic<int> failed{0};
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      fc_context* ctx = nullptr;
      if (fc_context_create(FC_BACKEND_CPU, -1, &ctx) != FC_OK) return;
      EXPECT_EQ(fc_context_set_memory_limit(ctx, -1000 - i), FC_ERR_INVALID_ARG);
      ++failed;
      while (failed.load() < kThreads) std::this_thread::yield();
      seen[static_cast<size_t>(i)] = fc_last_error();
      fc_context_destroy(ctx);
    });
  fc_context* mine = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &mine), FC_OK);
  EXPECT_EQ(fc_context_set_threads(mine, -5), FC_ERR_INVALID_ARG);
  const std::string main_error = fc_last_error();
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i)
    EXPECT_NE(seen[static_cast<size_t>(i)].find("memory limit " + std::to_string(-1000 - i)), std::string::npos)
        << seen[static_cast<size_t>(i)];
  EXPECT_EQ(main_error, fc_last_error());
  EXPECT_NE(main_error.find("thread count -5"), std::string::npos) << main_error;
  fc_context_destroy(mine);
}

// Thread A stays inside fc_pcc_triu (its progress callback waits) while this thread calls into
// the same context: every call that computes with or changes the context is refused.
struct Gate {
  std::promise<void> inside;
  std::shared_future<void> release;
  std::atomic<int> calls{0};
  fc_context* ctx = nullptr;
  fc_status nested = FC_ERR_INTERNAL;
  static int on_progress(int64_t, int64_t, void* user) {
    auto* g = static_cast<Gate*>(user);
    if (g->calls++ == 0) {
      // the owning thread may call back into its own context
      fc_precision p;
      g->nested = fc_context_get_precision(g->ctx, &p);
      g->inside.set_value();
      g->release.wait();
    }
    return 0;
  }
};

TEST(Threads, SecondThreadOnOneContextGetsBadState) {
  const std::vector<double> x = make_data(5);
  const int64_t pairs = fc_triu_size(kSeries);
  fc_context* ctx = nullptr;
  fc_series* s = nullptr;
  fc_blocks* it = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  ASSERT_EQ(fc_series_create_f64(ctx, x.data(), kSeries, kTime, kTime, 1, &s), FC_OK);
  ASSERT_EQ(fc_pcc_blocks_begin(ctx, s, 3, &it), FC_OK);
  std::vector<float> expected(static_cast<size_t>(pairs));
  ASSERT_EQ(fc_pcc_triu(ctx, s, FC_TRIU_ROW, expected.data(), pairs), FC_OK);

  std::promise<void> release;
  Gate gate;
  gate.release = release.get_future().share();
  gate.ctx = ctx;
  ASSERT_EQ(fc_context_set_progress(ctx, &Gate::on_progress, &gate), FC_OK);
  std::vector<float> a_out(static_cast<size_t>(pairs), -7.0f);
  fc_status a_status = FC_ERR_INTERNAL;
  std::thread a([&] { a_status = fc_pcc_triu(ctx, s, FC_TRIU_ROW, a_out.data(), pairs); });
  // A is inside fc_pcc_triu now, and stays there until released
  if (gate.inside.get_future().wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    release.set_value();
    a.join();
    FAIL() << "the progress callback was never called";
  }

  const auto refused = [](fc_status status, const char* what) {
    EXPECT_EQ(status, FC_ERR_BAD_STATE) << what << ": " << fc_last_error();
    EXPECT_NE(std::string(fc_last_error()).find("in use by another thread"), std::string::npos) << fc_last_error();
  };
  std::vector<float> out(static_cast<size_t>(kSeries * kSeries), -7.0f);
  std::vector<double> out64(static_cast<size_t>(pairs), -7.0);
  std::vector<int64_t> degree(static_cast<size_t>(kSeries), -7);
  fc_series* s2 = nullptr;
  fc_blocks* it2 = nullptr;
  fc_graph* g = nullptr;
  fc_block_info info;
  fc_precision p;
  refused(fc_pcc_triu(ctx, s, FC_TRIU_ROW, out.data(), pairs), "fc_pcc_triu");
  refused(fc_pcc_triu_f64(ctx, s, FC_TRIU_COL, out64.data(), pairs), "fc_pcc_triu_f64");
  refused(fc_pcc_dense(ctx, s, out.data(), kSeries), "fc_pcc_dense");
  refused(fc_pcc_cross(ctx, s, s, out.data(), kSeries), "fc_pcc_cross");
  refused(fc_series_create_f64(ctx, x.data(), kSeries, kTime, kTime, 1, &s2), "fc_series_create_f64");
  refused(fc_pcc_blocks_begin(ctx, s, 3, &it2), "fc_pcc_blocks_begin");
  refused(fc_blocks_next(it, out.data(), pairs, &info), "fc_blocks_next");
  refused(fc_pcc_blocks_foreach(ctx, s, 3, [](const fc_block_info*, const float*, void*) { return 0; }, nullptr),
          "fc_pcc_blocks_foreach");
  refused(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_BINARY, &g), "fc_pcc_graph");
  refused(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, degree.data(), nullptr), "fc_pcc_degree");
  refused(fc_context_set_precision(ctx, FC_PRECISION_FP64), "fc_context_set_precision");
  refused(fc_context_set_constant_policy(ctx, FC_CONSTANT_ZERO), "fc_context_set_constant_policy");
  refused(fc_context_set_memory_limit(ctx, 1 << 20), "fc_context_set_memory_limit");
  refused(fc_context_set_threads(ctx, 1), "fc_context_set_threads");
  refused(fc_context_set_progress(ctx, nullptr, nullptr), "fc_context_set_progress");
  refused(fc_context_get_precision(ctx, &p), "fc_context_get_precision");
  // nothing was written, nothing was made
  EXPECT_EQ(s2, nullptr);
  EXPECT_EQ(it2, nullptr);
  EXPECT_EQ(g, nullptr);
  for (float v : out) ASSERT_EQ(v, -7.0f);
  for (double v : out64) ASSERT_EQ(v, -7.0);
  for (int64_t v : degree) ASSERT_EQ(v, -7);
  // calls that do not touch the context's mutable state still work
  fc_backend b;
  EXPECT_EQ(fc_context_get_backend(ctx, &b), FC_OK);
  int64_t n = 0;
  EXPECT_EQ(fc_series_info(s, &n, nullptr, nullptr), FC_OK);

  release.set_value();
  a.join();
  EXPECT_EQ(a_status, FC_OK) << fc_last_error();
  EXPECT_EQ(gate.nested, FC_OK) << "the owning thread's nested call";
  EXPECT_TRUE(same_bits(a_out, expected));

  // A is done: the context serves this thread now, with its settings unchanged.
  ASSERT_EQ(fc_context_set_progress(ctx, nullptr, nullptr), FC_OK);
  ASSERT_EQ(fc_context_get_precision(ctx, &p), FC_OK);
  EXPECT_EQ(p, FC_PRECISION_FP32);
  std::vector<float> after(static_cast<size_t>(pairs));
  ASSERT_EQ(fc_pcc_triu(ctx, s, FC_TRIU_ROW, after.data(), pairs), FC_OK);
  EXPECT_TRUE(same_bits(after, expected));
  ASSERT_EQ(fc_blocks_next(it, after.data(), pairs, &info), FC_OK);
  EXPECT_EQ(info.row_begin, 0);
  fc_blocks_destroy(it);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

TEST(Threads, ContextsHandOverBetweenThreads) {
  // One thread at a time, not one thread forever: a context made on one thread is used on others
  // in turn.
  const std::vector<double> x = make_data(9);
  const int64_t pairs = fc_triu_size(kSeries);
  fc_context* ctx = nullptr;
  fc_series* s = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  ASSERT_EQ(fc_series_create_f64(ctx, x.data(), kSeries, kTime, kTime, 1, &s), FC_OK);
  std::vector<float> first(static_cast<size_t>(pairs)), again(static_cast<size_t>(pairs));
  ASSERT_EQ(fc_pcc_triu(ctx, s, FC_TRIU_ROW, first.data(), pairs), FC_OK);
  for (int k = 0; k < 3; ++k) {
    fc_status st = FC_ERR_INTERNAL;
    std::thread([&] { st = fc_pcc_triu(ctx, s, FC_TRIU_ROW, again.data(), pairs); }).join();
    ASSERT_EQ(st, FC_OK);
    EXPECT_TRUE(same_bits(first, again));
  }
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

}  // namespace
