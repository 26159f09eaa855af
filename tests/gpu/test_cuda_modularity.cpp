// The CUDA backend's modularity engine (src/backend/cuda/cuda_modules.cpp): its eigensolver
// space has the host space's bits, operation by operation (groups chosen one after another,
// signed and zero weights, with and without negative terms), and
// fc_modularity on a CUDA context finds the same modules as on a CPU context, bit for bit (labels,
// Q, every split's eigenvalue, gain and iteration count), with the device doing the products:
// planted partitions binary, weighted and signed (both signed forms), a resolution, a graph made
// by fc_pcc_graph on the GPU, small graphs forced through the device, and a memory limit that
// leaves the products on the host.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api_calls.hpp"
#include "backend/cuda/cuda_modules.hpp"
#include "api/handles.hpp"
#include "modules/modularity.hpp"
#include "fastconn/fastconn_cuda.h"
#include "modularity_graphs.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace modtest;

int device_of(const fctest::Context& c) {
  int device = -1;
  EXPECT_EQ(fc_context_get_cuda_device(c.get(), &device), FC_OK) << fc_last_error();
  return device;
}
const fc::GraphData& data_of(const fc_graph* g) { return *g->data; }

// B^(g) x as modules_backend.hpp's GroupTerms specifies it, written out here (this file is compiled
// without fused multiply-adds, as modules/modularity.cpp is).
std::vector<double> host_operator(const fc::GraphData& g, const std::vector<int64_t>& nodes, double c_pos,
                                  double c_neg, const fc::GroupTerms& t, const double* x) {
  const int64_t n = int64_t(nodes.size());
  std::vector<int64_t> local(size_t(g.n), -1);
  for (int64_t i = 0; i < n; ++i) local[size_t(nodes[size_t(i)])] = i;
  const double p = fc::deterministic_dot(t.k_pos, x, n, 1);
  const double q = t.gd_neg != 0 ? fc::deterministic_dot(t.k_neg, x, n, 1) : 0.0;
  std::vector<double> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    const int64_t u = nodes[size_t(i)];
    for (int64_t e = g.offsets[size_t(u)]; e < g.offsets[size_t(u + 1)]; ++e) {
      const int64_t l = local[size_t(g.columns[size_t(e)])];
      const float w = g.weights[size_t(e)];
      if (l < 0 || w == 0) continue;
      const double cw = w > 0 ? c_pos * w : c_neg * w;
      sum += cw * x[l];
    }
    y[size_t(i)] = sum - t.gd_pos * t.k_pos[i] * p + t.gd_neg * t.k_neg[i] * q - t.r[i] * x[i];
  }
  return y;
}

fc::Modules modules_on(const fctest::Context& ctx, const fc_graph* g, const fc_modularity_options& o) {
  fc_modules* m = nullptr;
  EXPECT_EQ(fc_modularity(ctx.get(), g, &o, &m), FC_OK) << fc_last_error();
  fc::Modules r = m != nullptr ? m->result : fc::Modules{};
  fc_modules_destroy(m);
  return r;
}

void expect_same_modules(const fc::Modules& a, const fc::Modules& b) {
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(std::memcmp(&a.q, &b.q, sizeof(double)), 0) << a.q << " vs " << b.q;
  EXPECT_TRUE(a.labels == b.labels);
  ASSERT_EQ(a.splits.size(), b.splits.size());
  for (size_t x = 0; x < a.splits.size(); ++x) {
    EXPECT_EQ(std::memcmp(&a.splits[x].eigenvalue, &b.splits[x].eigenvalue, sizeof(double)), 0) << "split " << x;
    EXPECT_EQ(std::memcmp(&a.splits[x].gain, &b.splits[x].gain, sizeof(double)), 0) << "split " << x;
    EXPECT_EQ(a.splits[x].iterations, b.splits[x].iterations) << "split " << x;
  }
}

fc_modularity_options defaults() {
  fc_modularity_options o;
  fc_modularity_options_default(&o);
  return o;
}

TEST(CudaModularity, GroupSpaceHasTheHostBits) {
  REQUIRE_CUDA();
  fctest::Context cuda(FC_BACKEND_CUDA);
  // Random signed weights, some exactly zero, on a graph of a prime number of nodes.
  fc::SplitMix64 rng(7);
  const int64_t n = 4801;
  std::vector<Edge> edges;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      if (rng.uniform() < 0.01) {
        const double u = rng.uniform();
        edges.push_back({i, j, u < 0.05 ? 0.0 : u < 0.6 ? u : -(u - 0.5)});
      }
  Graph graph(n, std::move(edges));
  const fc::GraphData& g = data_of(graph.g);
  ASSERT_GT(g.columns.size(), 200000u);
  const double c_pos = 1.0, c_neg = 0.37;
  auto engine = fc::cuda::make_group_products(device_of(cuda), g, n, c_pos, c_neg, 0, 1, 0);
  ASSERT_TRUE(engine != nullptr);
  // Three groups in a row: the whole graph (vectors of 3 chunks and a tail), every node not
  // divisible by 3, the odd nodes (each select must forget the previous group's members); with
  // and without negative terms.
  std::vector<std::vector<int64_t>> groups(3);
  for (int64_t v = 0; v < n; ++v) {
    groups[0].push_back(v);
    if (v % 3 != 0) groups[1].push_back(v);
    if (v % 2 == 1) groups[2].push_back(v);
  }
  for (size_t x = 0; x < groups.size(); ++x) {
    const std::vector<int64_t>& nodes = groups[x];
    const int64_t m = int64_t(nodes.size());
    SCOPED_TRACE("group of " + std::to_string(m));
    std::vector<double> kp(static_cast<size_t>(m)), kn(static_cast<size_t>(m)), r(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) kp[size_t(i)] = rng.uniform() * 40, kn[size_t(i)] = rng.uniform() * 9, r[size_t(i)] = rng.uniform() - 0.5;
    fc::GroupTerms terms;
    terms.k_pos = kp.data();
    terms.k_neg = kn.data();
    terms.r = r.data();
    terms.gd_pos = 1.0 / 40000;
    terms.gd_neg = x == 1 ? 0.0 : 1.0 / 7000;
    fc::EigenSpace& dev = engine->select(nodes, terms);
    fc::HostSpace host([&](const double* in, double* out) {
      const std::vector<double> y = host_operator(g, nodes, c_pos, c_neg, terms, in);
      std::copy(y.begin(), y.end(), out);
    }, 2);
    // The same operations on both spaces; every scalar and vector must be the same bits.
    std::vector<double> v0(static_cast<size_t>(m)), v1(static_cast<size_t>(m)), h_host(4), h_dev(4);
    for (int64_t i = 0; i < m; ++i) v0[size_t(i)] = rng.uniform() - 0.5, v1[size_t(i)] = rng.uniform() - 0.5;
    const std::vector<double> y = {0.3, -1.25, 0.5, 2.0, 1e-3, -0.75, 0.125, 4.5};  // 4 x 2, ldy 2
    std::vector<double> scalars[2];
    int which = 0;
    for (fc::EigenSpace* space : {static_cast<fc::EigenSpace*>(&host), &dev}) {
      std::vector<double>& out = scalars[which];
      std::vector<double>& h = which == 0 ? h_host : h_dev;
      space->reserve(m, 8);
      space->upload(0, v0.data());
      space->upload(1, v1.data());
      space->apply(0, 2);
      space->apply(1, 5);
      space->project(3, 5, h.data());
      out.push_back(space->subtract(3, h.data(), 5));
      out.push_back(space->dot(0, 5));
      space->scale(5, 0.37);
      space->copy(5, 3);
      space->subtract_scaled(3, 0.11, 1);
      space->combine(4, y.data(), 2, 2, 6);
      // a Lanczos step's Gram-Schmidt twice (one synchronization on the device)
      space->copy(2, 7);
      std::vector<double> g1(4), g2(4);
      out.push_back(space->orthogonalize(3, 7, g1.data(), g2.data()));
      out.insert(out.end(), g1.begin(), g1.end());
      out.insert(out.end(), g2.begin(), g2.end());
      ++which;
    }
    EXPECT_EQ(std::memcmp(h_host.data(), h_dev.data(), sizeof(double) * 4), 0);
    EXPECT_EQ(std::memcmp(scalars[0].data(), scalars[1].data(), sizeof(double) * scalars[0].size()), 0)
        << scalars[0][0] << " vs " << scalars[1][0];
    for (int64_t slot = 0; slot < 8; ++slot) {
      if (slot == 4) continue;  // never written
      std::vector<double> a(static_cast<size_t>(m)), b(static_cast<size_t>(m));
      host.download(slot, a.data());
      dev.download(slot, b.data());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * size_t(m)), 0) << "slot " << slot;
      int64_t nonzero = 0;
      for (double v : a) nonzero += v != 0;
      EXPECT_GT(nonzero, m / 2) << "slot " << slot;  // the check has something to compare
    }

    // The engine's own diagonal correction (terms.r null, what fc_modularity's device path uses):
    // the host's r from the group's row sums, and so the host's products, bit for bit.
    fc::GroupTerms own = terms;
    own.r = nullptr;
    own.gamma = 0.9;
    own.d_pos = 1.0 / 40000;
    own.d_neg = x == 1 ? 0.0 : 1.0 / 7000;
    for (int64_t i = 0; i < m; ++i) own.group_pos += kp[size_t(i)], own.group_neg += kn[size_t(i)];
    const std::vector<double> ones(static_cast<size_t>(m), 1.0), zeros(static_cast<size_t>(m), 0.0);
    fc::GroupTerms sums = terms;  // the sparse sum alone: s_i of x = 1 is the row's sum of weights
    sums.r = zeros.data();
    sums.gd_pos = sums.gd_neg = 0;
    const std::vector<double> rs = host_operator(g, nodes, c_pos, c_neg, sums, ones.data());
    std::vector<double> r_host(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i)
      r_host[size_t(i)] = rs[size_t(i)] - own.gamma * (own.d_pos * kp[size_t(i)] * own.group_pos -
                                                       own.d_neg * kn[size_t(i)] * own.group_neg);
    fc::GroupTerms given = own;
    given.r = r_host.data();
    const std::vector<double> expected = host_operator(g, nodes, c_pos, c_neg, given, v0.data());
    fc::EigenSpace& computed = engine->select(nodes, own);
    computed.reserve(m, 2);
    computed.upload(0, v0.data());
    computed.apply(0, 1);
    std::vector<double> got(static_cast<size_t>(m));
    computed.download(1, got.data());
    EXPECT_EQ(std::memcmp(expected.data(), got.data(), sizeof(double) * size_t(m)), 0) << "r computed on the device";
  }
}

TEST(CudaModularity, SameModulesAsTheCpuBackend) {
  REQUIRE_CUDA();
  fctest::Context cpu(FC_BACKEND_CPU), cuda(FC_BACKEND_CUDA);
  std::vector<int64_t> truth;
  struct Case {
    const char* name;
    double w_in, w_out;
    fc_signed_modularity mode;
    double gamma;
  };
  const Case cases[] = {{"binary", 1.0, 1.0, FC_SIGNED_GOMEZ, 1.0},
                        {"weighted", 0.8, 0.3, FC_SIGNED_GOMEZ, 1.0},
                        {"signed Gomez", 0.9, -0.4, FC_SIGNED_GOMEZ, 1.0},
                        {"signed Rubinov", 0.9, -0.4, FC_SIGNED_RUBINOV, 1.0},
                        {"resolution 0.7", 1.0, 1.0, FC_SIGNED_GOMEZ, 0.7}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // 16 communities of 251 nodes, about 40 neighbours each: 160 k stored entries, past the
    // engine's threshold, so the root and the first levels multiply on the device.
    Graph graph = planted(16, 251, 0.1, 0.005, 11, truth, c.w_in, c.w_out);
    fc_modularity_options o = defaults();
    o.signed_mode = c.mode;
    o.resolution = c.gamma;
    const fc::Modules on_cpu = modules_on(cpu, graph.g, o), on_gpu = modules_on(cuda, graph.g, o);
    expect_same_modules(on_cpu, on_gpu);
    EXPECT_EQ(on_cpu.device_products, 0);
    EXPECT_GT(on_gpu.device_products, 0);
    EXPECT_GE(on_gpu.k, 2);
  }
}

TEST(CudaModularity, GraphBuiltOnTheGpu) {
  REQUIRE_CUDA();
  fctest::Context cpu(FC_BACKEND_CPU), cuda(FC_BACKEND_CUDA);
  const fctest::Dataset d = fctest::structured_data(3001, 120, 5);
  const fctest::Series s = fctest::make_series(cuda, d);
  fc_graph* g = nullptr;
  ASSERT_EQ(fc_pcc_graph(cuda.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.6, FC_GRAPH_WEIGHTED, &g), FC_OK) << fc_last_error();
  ASSERT_GT(data_of(g).columns.size(), size_t(fc::cuda::kDeviceMinEntries));
  const fc::Modules on_cpu = modules_on(cpu, g, defaults()), on_gpu = modules_on(cuda, g, defaults());
  expect_same_modules(on_cpu, on_gpu);
  EXPECT_GT(on_gpu.device_products, 0);
  fc_graph_destroy(g);
}

TEST(CudaModularity, SmallGraphsForcedThroughTheDevice) {
  REQUIRE_CUDA();
  fctest::Context cuda(FC_BACKEND_CUDA);
  const int device = device_of(cuda);
  std::vector<Edge> karate;
  for (const auto& e : kKarate) karate.push_back({e[0], e[1], 1.0});
  // Two triangles, a path, and isolated nodes; signed weights.
  const std::vector<Edge> pieces = {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}, {3, 4, 0.5}, {4, 5, 0.5}, {3, 5, 0.5},
                                    {6, 7, 1},  {7, 8, 1}, {8, 9, 1}, {2, 3, -0.3}, {5, 6, -0.2}};
  std::vector<int64_t> truth;
  Graph g1(34, karate), g2(13, pieces);
  Graph g3 = planted(5, 23, 0.5, 0.05, 3, truth, 1.0, -0.5);
  for (const Graph* graph : {&g1, &g2, &g3}) {
    for (fc_signed_modularity mode : {FC_SIGNED_GOMEZ, FC_SIGNED_RUBINOV}) {
      fc_modularity_options o = defaults();
      o.signed_mode = mode;
      const fc::GraphData& g = data_of(graph->g);
      fc::Progress p1(nullptr, nullptr, g.n), p2(nullptr, nullptr, g.n);
      const fc::Modules host = fc::find_modules(g, o, 0, p1);
      const fc::GroupProductsFactory factory = [&](double c_pos, double c_neg, int) {
        return fc::cuda::make_group_products(device, g, g.n, c_pos, c_neg, 0, 1, 0);
      };
      const fc::Modules dev = fc::find_modules(g, o, 0, p2, factory);
      SCOPED_TRACE("n = " + std::to_string(g.n));
      expect_same_modules(host, dev);
      EXPECT_GT(dev.device_products, 0);
    }
  }
}

TEST(CudaModularity, MemoryLimitKeepsTheProductsOnTheHost) {
  REQUIRE_CUDA();
  fctest::Context cpu(FC_BACKEND_CPU), cuda(FC_BACKEND_CUDA);
  std::vector<int64_t> truth;
  Graph graph = planted(8, 301, 0.12, 0.01, 19, truth);
  const fc::GraphData& g = data_of(graph.g);
  const int64_t need = fc::cuda::group_products_bytes(g, g.n, 1), need4 = fc::cuda::group_products_bytes(g, g.n, 4);
  ASSERT_LT(need4, 4 * need);  // the engines share one copy of the graph
  const fc::Modules on_cpu = modules_on(cpu, graph.g, defaults());
  // With `threads`, the engines need `bytes` together: one byte less leaves every product on the
  // host, `bytes` puts the large groups on the device; the modules are the CPU's either way.
  auto limit_at = [&](int threads, int64_t bytes) {
    SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(bytes) + " bytes");
    ASSERT_EQ(fc_context_set_threads(cuda.get(), threads), FC_OK);
    cuda.memory_limit(bytes - 1);
    const fc::Modules limited = modules_on(cuda, graph.g, defaults());
    EXPECT_EQ(limited.device_products, 0);
    cuda.memory_limit(bytes);
    const fc::Modules fits = modules_on(cuda, graph.g, defaults());
    EXPECT_GT(fits.device_products, 0);
    expect_same_modules(on_cpu, limited);
    expect_same_modules(on_cpu, fits);
  };
  limit_at(1, need);   // one analysis at a time, one engine
  limit_at(4, need4);  // up to four analyses at once, four engines over one copy of the graph
}

}  // namespace
