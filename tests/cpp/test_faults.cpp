// Failure injection (issue 12): every host allocation the library makes can be made to fail.
// This program replaces the global operator new (the library's allocations resolve to it, as
// any C++ program's would), and for each API call fails its first, second, ... allocation in
// turn until the call no longer allocates that often. Each failure must give
// FC_ERR_OUT_OF_MEMORY with a message, never a crash or another status; the context, series and
// graphs passed in stay usable (the same call without a failure gives the reference result's
// bits); and nothing leaks (the ASan build of scripts/sanitize.sh runs this program with
// LeakSanitizer). A call that fails during its computation may have written part of its output
// (fastconn.h: outputs are untouched only when a call fails its checks).
//
// CUDA calls are failed the same way by tests/gpu/test_cuda_faults.cpp on the GPU machine.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

// The allocation to fail: the countdown's k-th allocation after arm(k), on any thread.
std::atomic<long> g_countdown{0};
std::atomic<bool> g_fired{false};
std::atomic<long> g_allocations{0};  // every operator new this program has seen

void arm(long k) {
  g_fired = false;
  g_countdown = k;
}
// True when the armed allocation was failed.
bool disarm() {
  g_countdown = 0;
  return g_fired.load();
}

}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_countdown.load(std::memory_order_relaxed) > 0 && g_countdown.fetch_sub(1) == 1) {
    g_fired = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// Not failed: nothrow allocations are requests with a fallback (std::stable_sort's temporary
// buffer falls back to an in-place merge), whose failure changes nothing to test.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n != 0 ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
// The replaced operator new takes its memory from malloc; GCC's check cannot see that.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace fctest;
using Bytes = std::vector<unsigned char>;

template <class T>
void append(Bytes& out, const T* data, size_t count) {
  const auto* b = reinterpret_cast<const unsigned char*>(data);
  out.insert(out.end(), b, b + count * sizeof(T));
}

// Runs `call` without a failure, then with its k-th allocation failed for k = 1, 2, ... until it
// no longer allocates that often; `collect` (run after each call, with failures off) appends
// what the call produced. `call` itself allocates nothing (buffers are made beforehand), so every
// failed allocation is the library's. Returns how many allocations the call makes.
long fail_each_allocation(const char* what, const std::function<fc_status()>& call, const std::function<void(Bytes&)>& collect) {
  SCOPED_TRACE(what);
  Bytes reference;
  EXPECT_EQ(call(), FC_OK) << fc_last_error();
  collect(reference);
  long k = 1;
  for (;; ++k) {
    arm(k);
    const fc_status status = call();
    const bool fired = disarm();
    if (!fired) {
      Bytes out;
      collect(out);
      EXPECT_EQ(status, FC_OK) << fc_last_error();
      EXPECT_EQ(out, reference) << "the run past every failure point";
      break;
    }
    EXPECT_EQ(status, FC_ERR_OUT_OF_MEMORY) << "allocation " << k << ": " << fc_last_error();
    EXPECT_NE(std::strstr(fc_last_error(), "memory"), nullptr) << "allocation " << k << ": " << fc_last_error();
    Bytes discard;
    collect(discard);  // releases what a partial run made
    EXPECT_EQ(call(), FC_OK) << "after failing allocation " << k << ": " << fc_last_error();
    Bytes again;
    collect(again);
    EXPECT_EQ(again, reference) << "after failing allocation " << k;
    if (::testing::Test::HasFailure() || k > 100000) break;
  }
  std::printf("  %-24s %5ld allocations failed in turn\n", what, k - 1);
  return k - 1;
}

Bytes graph_bytes(const fc_graph* g) {
  int64_t n = 0, m = 0;
  check(fc_graph_info(g, &n, &m), "fc_graph_info");
  std::vector<int64_t> offsets(static_cast<size_t>(n + 1)), columns(static_cast<size_t>(2 * m));
  std::vector<float> weights(static_cast<size_t>(2 * m));
  check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * m), "fc_graph_csr");
  Bytes b;
  append(b, offsets.data(), offsets.size());
  append(b, columns.data(), columns.size());
  append(b, weights.data(), weights.size());
  return b;
}

class Faults : public ::testing::Test {
 protected:
  // The replacement reaches the library's allocations only where the dynamic linker binds the
  // library's operator new to this program's (Debian's toolchain does; a library linked with
  // -Bsymbolic-functions, as some distributions' defaults do, keeps libstdc++'s): skip, saying so.
  void SetUp() override {
    const long before = g_allocations.load();
    fc_context* probe = nullptr;
    check(fc_context_create(FC_BACKEND_CPU, -1, &probe), "fc_context_create");
    fc_context_destroy(probe);
    if (g_allocations.load() == before)
      GTEST_SKIP() << "the library's allocations do not reach this program's operator new here";
  }
  static constexpr int64_t kN = 41, kT = 60;
  Dataset d = structured_data(kN, kT, 0xFA17u);
  std::vector<double> x = d.x;  // series-major: series_stride T, time_stride 1
};

// Output buffers of one call, made before it runs.
template <class T>
std::function<void(Bytes&)> collect_vector(const std::vector<T>& v) {
  return [&v](Bytes& out) { append(out, v.data(), v.size()); };
}

TEST_F(Faults, SeriesAndContext) {
  Context ctx;
  fc_series* s = nullptr;
  const long n = fail_each_allocation(
      "fc_series_create_f64", [&] { return fc_series_create_f64(ctx.get(), x.data(), kN, kT, kT, 1, &s); },
      [&](Bytes& out) {
        if (s != nullptr) {
          int64_t c = -1;
          check(fc_series_info(s, nullptr, nullptr, &c), "fc_series_info");
          append(out, &c, 1);
        }
        fc_series_destroy(s);
        s = nullptr;
      });
  EXPECT_GT(n, 0);
  fc_context* c = nullptr;
  fail_each_allocation(
      "fc_context_create", [&] { return fc_context_create(FC_BACKEND_CPU, -1, &c); },
      [&](Bytes&) {
        fc_context_destroy(c);
        c = nullptr;
      });
}

TEST_F(Faults, CorrelationCalls) {
  Context ctx;
  const Series s = make_series(ctx, d);
  const int64_t pairs = fc_triu_size(kN);
  std::vector<float> r(static_cast<size_t>(pairs)), m(static_cast<size_t>(kN * kN));
  fail_each_allocation("fc_pcc_triu", [&] { return fc_pcc_triu(ctx.get(), s.get(), FC_TRIU_COL, r.data(), pairs); },
                       collect_vector(r));
  fail_each_allocation("fc_pcc_dense", [&] { return fc_pcc_dense(ctx.get(), s.get(), m.data(), kN); }, collect_vector(m));
  fail_each_allocation("fc_pcc_cross", [&] { return fc_pcc_cross(ctx.get(), s.get(), s.get(), m.data(), kN); },
                       collect_vector(m));
  std::vector<float> buf(static_cast<size_t>(pairs));
  fail_each_allocation(
      "fc_pcc_blocks_*",
      [&] {
        fc_blocks* it = nullptr;
        fc_status st = fc_pcc_blocks_begin(ctx.get(), s.get(), 5, &it);
        fc_block_info info;
        while (st == FC_OK && (st = fc_blocks_next(it, buf.data(), pairs, &info)) == FC_OK)
          std::memcpy(r.data() + info.triu_offset, buf.data(), sizeof(float) * size_t(info.count));
        fc_blocks_destroy(it);
        return st == FC_DONE ? FC_OK : st;
      },
      collect_vector(r));
}

TEST_F(Faults, NetworkCalls) {
  Context ctx;
  const Series s = make_series(ctx, d);
  fc_graph* made = nullptr;
  auto collect_graph = [&](Bytes& out) {
    if (made != nullptr) out = graph_bytes(made);
    fc_graph_destroy(made);
    made = nullptr;
  };
  fail_each_allocation(
      "fc_pcc_graph", [&] { return fc_pcc_graph(ctx.get(), s.get(), FC_EDGE_DENSITY, 0.2, FC_GRAPH_WEIGHTED, &made); },
      collect_graph);
  std::vector<int64_t> k(static_cast<size_t>(kN));
  std::vector<double> w(static_cast<size_t>(kN));
  fail_each_allocation(
      "fc_pcc_degree", [&] { return fc_pcc_degree(ctx.get(), s.get(), FC_EDGE_TOP_K, 3, k.data(), w.data()); },
      [&](Bytes& out) {
        append(out, k.data(), k.size());
        append(out, w.data(), w.size());
      });
  fc_graph* g = nullptr;
  check(fc_pcc_graph(ctx.get(), s.get(), FC_EDGE_DENSITY, 0.2, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
  const Bytes csr = graph_bytes(g);
  int64_t nodes = 0, edges = 0;
  check(fc_graph_info(g, &nodes, &edges), "fc_graph_info");
  std::vector<int64_t> offsets(static_cast<size_t>(nodes + 1)), columns(static_cast<size_t>(2 * edges));
  std::vector<float> weights(static_cast<size_t>(2 * edges));
  check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * edges), "fc_graph_csr");
  fail_each_allocation(
      "fc_graph_create_csr",
      [&] { return fc_graph_create_csr(nodes, offsets.data(), columns.data(), weights.data(), &made); }, collect_graph);
  fc_modules* mod = nullptr;
  fail_each_allocation(
      "fc_modularity", [&] { return fc_modularity(ctx.get(), g, nullptr, &mod); },
      [&](Bytes& out) {
        if (mod != nullptr) {
          std::vector<int64_t> labels(static_cast<size_t>(kN));
          double q = 0;
          check(fc_modules_labels(mod, labels.data(), kN), "fc_modules_labels");
          check(fc_modules_info(mod, nullptr, nullptr, &q, nullptr), "fc_modules_info");
          append(out, labels.data(), labels.size());
          append(out, &q, 1);
        }
        fc_modules_destroy(mod);
        mod = nullptr;
      });
  EXPECT_EQ(graph_bytes(g), csr) << "the graph after every failure";
  fc_graph_destroy(g);
}

TEST_F(Faults, WindowCalls) {
  Context ctx;
  const Series s = make_series(ctx, d);
  constexpr int64_t kLength = 20, kStep = 7, kRank = 3;
  const int64_t windows = fc_window_count(kT, kLength, kStep), pairs = fc_triu_size(kN);
  fc_series* win = nullptr;
  std::vector<float> r(static_cast<size_t>(pairs));
  fail_each_allocation(
      "fc_series_window",
      [&] {
        fc_status st = fc_series_window(ctx.get(), s.get(), 5, kLength, FC_TAPER_GAUSSIAN, 4.0, &win);
        if (st == FC_OK) st = fc_pcc_triu(ctx.get(), win, FC_TRIU_ROW, r.data(), pairs);
        return st;
      },
      [&](Bytes& out) {
        append(out, r.data(), r.size());
        fc_series_destroy(win);
        win = nullptr;
      });
  std::vector<int64_t> k(static_cast<size_t>(windows * kN));
  std::vector<double> w(static_cast<size_t>(windows * kN));
  fail_each_allocation(
      "fc_dfc_degree",
      [&] {
        return fc_dfc_degree(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, FC_EDGE_ABS_THRESHOLD, 0.4,
                             k.data(), w.data());
      },
      [&](Bytes& out) {
        append(out, k.data(), k.size());
        append(out, w.data(), w.size());
      });
  std::vector<double> mean(static_cast<size_t>(pairs)), sd(static_cast<size_t>(pairs));
  fail_each_allocation(
      "fc_dfc_summary",
      [&] {
        return fc_dfc_summary(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, mean.data(),
                              sd.data(), pairs);
      },
      [&](Bytes& out) {
        append(out, mean.data(), mean.size());
        append(out, sd.data(), sd.size());
      });
  std::vector<float> f(static_cast<size_t>(windows * kN * kRank));
  std::vector<double> e(static_cast<size_t>(windows));
  fail_each_allocation(
      "fc_dfc_lowrank",
      [&] {
        return fc_dfc_lowrank(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, kRank, f.data(),
                              int64_t(f.size()), e.data());
      },
      [&](Bytes& out) {
        append(out, f.data(), f.size());
        append(out, e.data(), e.size());
      });
  std::vector<fc_graph*> graphs(static_cast<size_t>(windows), nullptr);
  fail_each_allocation(
      "fc_dfc_next_graph",
      [&] {
        fc_dfc* it = nullptr;
        fc_status st = fc_dfc_begin(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, &it);
        for (size_t i = 0; st == FC_OK && i < graphs.size(); ++i)
          st = fc_dfc_next_graph(it, FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_WEIGHTED, &graphs[i], nullptr);
        fc_dfc_destroy(it);
        return st;
      },
      [&](Bytes& out) {
        for (fc_graph*& g : graphs) {
          if (g != nullptr) {
            const Bytes b = graph_bytes(g);
            out.insert(out.end(), b.begin(), b.end());
          }
          fc_graph_destroy(g);
          g = nullptr;
        }
      });
}

}  // namespace
