// lFCD on the device (kernels/lfcd_grow.cu through fc_pcc_lfcd on a CUDA context): the counts
// are exactly the CPU context's (the header promises the same counts on either backend), on
// spatially smoothed data over masks with holes and several components, odd sizes, constant
// series, both rules and both precisions; the geometry of 6, 18 and 26 neighbours and the
// all-passing threshold checked against counts derived here; thresholds placed exactly on pairs'
// r (computed here from the stored rows in the header's order), clusters too large for a warp's
// shared memory (the spill pass), several steps of seeds with progress and cancellation, memory
// limits, and a hashed (sparse) grid, which falls back to the host.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "lfcd_grid.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

// The voxels of a dims box kept with probability `keep` (holes; at low `keep`, several
// components), in a seeded shuffled order so that neighbours are not neighbours in index order.
Grid holed_box(int64_t nx, int64_t ny, int64_t nz, double keep, uint64_t seed) {
  Random rng(seed);
  Grid g;
  g.dims[0] = nx;
  g.dims[1] = ny;
  g.dims[2] = nz;
  for (int32_t k = 0; k < nz; ++k)
    for (int32_t j = 0; j < ny; ++j)
      for (int32_t i = 0; i < nx; ++i)
        if (rng.uniform() < keep) g.coords.insert(g.coords.end(), {i, j, k});
  for (int64_t s = g.n() - 1; s > 0; --s) {  // Fisher-Yates on the voxels
    const int64_t o = static_cast<int64_t>(rng.uniform() * static_cast<double>(s + 1));
    for (int a = 0; a < 3; ++a) std::swap(g.coords[3 * s + a], g.coords[3 * o + a]);
  }
  return g;
}

// Series as fMRI over a mask: per sample, white noise over the box summed over each voxel's
// 3 x 3 x 3 neighbourhood (of unit variance; face neighbours share 18 of its 27 terms, so r ~ 0.67,
// voxels two apart 9, r ~ 0.33, and none past that: clusters stay local), plus a slow global
// signal with a small per-voxel loading (variance <= 0.25 of the local part), on a baseline near
// 1000.
Dataset smoothed(const Grid& g, int64_t t, uint64_t seed) {
  Random rng(seed);
  const int64_t nx = g.dims[0], ny = g.dims[1], nz = g.dims[2], n = g.n();
  Dataset d;
  d.n = n;
  d.t = t;
  d.x.resize(static_cast<size_t>(n * t));
  std::vector<double> load(static_cast<size_t>(n)), base(static_cast<size_t>(n));
  for (int64_t s = 0; s < n; ++s) {
    load[s] = rng.uniform(-0.3, 0.5);
    base[s] = rng.uniform(600.0, 1400.0);
  }
  std::vector<double> noise(static_cast<size_t>(nx * ny * nz));
  for (int64_t k = 0; k < t; ++k) {
    for (double& v : noise) v = rng.normal();
    const double global = std::sin(0.21 * static_cast<double>(k)) + 0.5 * std::cos(0.07 * static_cast<double>(k));
    for (int64_t s = 0; s < n; ++s) {
      const int32_t* c = &g.coords[3 * s];
      double sum = 0.0;
      for (int dk = -1; dk <= 1; ++dk)
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di) {
            const int64_t i = c[0] + di, j = c[1] + dj, l = c[2] + dk;
            if (i >= 0 && j >= 0 && l >= 0 && i < nx && j < ny && l < nz) sum += noise[(l * ny + j) * nx + i];
          }
      d.at(s, k) = base[s] + 10.0 * (sum / std::sqrt(27.0) + load[s] * global);
    }
  }
  return d;
}

Context context(fc_backend backend, fc_precision precision) {
  Context c(backend);
  c.precision(precision);
  return c;
}

const char* rule_name(fc_edge_rule rule) { return rule == FC_EDGE_ABS_THRESHOLD ? "|r|" : "r"; }

// Every neighbourhood and both rules, CUDA against the CPU context, equal count for count.
void expect_same_counts(const Dataset& d, const Grid& g, fc_precision precision, const std::vector<double>& thresholds,
                        Input input = Input::F64) {
  const Context cuda = context(FC_BACKEND_CUDA, precision), cpu = context(FC_BACKEND_CPU, precision);
  const Series s = make_series(cuda, d, Layout::SeriesMajor, input), s_cpu = make_series(cpu, d, Layout::SeriesMajor, input);
  for (const fc_edge_rule rule : {FC_EDGE_THRESHOLD, FC_EDGE_ABS_THRESHOLD})
    for (const double th : thresholds)
      for (const int h : {6, 18, 26}) {
        SCOPED_TRACE(std::string(rule_name(rule)) + " >= " + std::to_string(th) + ", " + std::to_string(h) +
                     " neighbours, " + (precision == FC_PRECISION_FP64 ? "FP64" : "FP32"));
        EXPECT_EQ(lfcd(cuda, s, g, h, rule, th), lfcd(cpu, s_cpu, g, h, rule, th));
      }
}

// The connected component of each voxel over the grid's neighbourhood, constant voxels left out
// (0 for them): lFCD when every r passes.
std::vector<int64_t> component_sizes(const Grid& g, int h, const std::vector<bool>& constant) {
  const Voxels voxels(g);
  std::vector<int64_t> label(static_cast<size_t>(g.n()), -1), size;
  for (int64_t s = 0; s < g.n(); ++s) {
    if (constant[s] || label[s] >= 0) continue;
    const int64_t id = static_cast<int64_t>(size.size());
    size.push_back(0);
    std::deque<int64_t> queue{s};
    label[s] = id;
    while (!queue.empty()) {
      const int64_t v = queue.front();
      queue.pop_front();
      ++size[id];
      voxels.neighbours(v, h, [&](int64_t u) {
        if (constant[u] || label[u] >= 0) return;
        label[u] = id;
        queue.push_back(u);
      });
    }
  }
  std::vector<int64_t> out(static_cast<size_t>(g.n()), 0);
  for (int64_t s = 0; s < g.n(); ++s)
    if (label[s] >= 0) out[s] = size[label[s]];
  return out;
}

TEST(CudaLfcd, NeighbourhoodsConstantBridgesAndSignsGiveTheGeometrysCounts) {
  REQUIRE_CUDA();
  // A (0,0,0) - B (1,0,0) share a face; C (2,1,0) shares an edge with B; D (3,2,1) a corner with
  // C; E (0,1,0) is constant beside A; F (4,2,1) is constant between D and G (5,2,1), which
  // touches nothing else. I (8,8,8) and J (8,8,9) share a face and are anti-correlated.
  Grid g;
  g.coords = {0, 0, 0, 1, 0, 0, 2, 1, 0, 3, 2, 1, 0, 1, 0, 4, 2, 1, 5, 2, 1, 8, 8, 8, 8, 8, 9};
  g.dims[0] = g.dims[1] = g.dims[2] = 10;
  const int64_t t = 41;
  Dataset d;
  d.n = g.n();
  d.t = t;
  d.x.resize(static_cast<size_t>(d.n * t));
  Random rng(3);
  for (int64_t k = 0; k < t; ++k) {
    const double common = std::sin(0.4 * static_cast<double>(k)) + 0.3 * std::cos(1.3 * static_cast<double>(k));
    for (int64_t s = 0; s < d.n; ++s) d.at(s, k) = 1000.0 + (s == 8 ? -5.0 : 5.0) * common + 0.05 * rng.normal();
  }
  for (int64_t k = 0; k < t; ++k) d.at(4, k) = d.at(5, k) = 42.0;
  const std::map<int, std::vector<int64_t>> by_reach = {
      {6, {2, 2, 1, 1, 0, 0, 1, 1, 1}}, {18, {3, 3, 3, 1, 0, 0, 1, 1, 1}}, {26, {4, 4, 4, 4, 0, 0, 1, 1, 1}}};
  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const Context cuda = context(FC_BACKEND_CUDA, precision), cpu = context(FC_BACKEND_CPU, precision);
    const Series s = make_series(cuda, d), s_cpu = make_series(cpu, d);
    for (const auto& [h, want] : by_reach)
      for (const fc_edge_rule rule : {FC_EDGE_THRESHOLD, FC_EDGE_ABS_THRESHOLD}) {
        SCOPED_TRACE(std::to_string(h) + " neighbours, " + rule_name(rule));
        std::vector<int64_t> expected = want;
        if (rule == FC_EDGE_ABS_THRESHOLD) expected[7] = expected[8] = 2;  // |r| of I and J ~ 1
        const std::vector<int64_t> got = lfcd(cuda, s, g, h, rule, 0.9);
        EXPECT_EQ(got, expected);
        EXPECT_EQ(got, lfcd(cpu, s_cpu, g, h, rule, 0.9));
      }
  }
}

TEST(CudaLfcd, SmoothedMasksWithHolesMatchTheCpuContext) {
  REQUIRE_CUDA();
  // Odd sizes, T below one group of 8 lanes, odd and a multiple of 8; holes at two densities
  // (the sparser one breaks the mask into components); two constant series.
  struct Case {
    int64_t nx, ny, nz;
    double keep;
    int64_t t;
  };
  for (const Case c : {Case{13, 11, 7, 0.65, 37}, Case{17, 5, 9, 0.3, 5}, Case{23, 19, 3, 0.8, 120}}) {
    const Grid g = holed_box(c.nx, c.ny, c.nz, c.keep, static_cast<uint64_t>(c.nx * c.t));
    Dataset d = smoothed(g, c.t, 11 + static_cast<uint64_t>(c.t));
    make_constant(d, 0, 7.0);
    make_constant(d, g.n() / 2, -3.0);
    SCOPED_TRACE("N = " + std::to_string(g.n()) + ", T = " + std::to_string(c.t));
    for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64})
      expect_same_counts(d, g, precision, {0.25, 0.5, 0.7});
    // Float input (fc_series_create_f32) too.
    expect_same_counts(rounded_to_float(d), g, FC_PRECISION_FP32, {0.5}, Input::F32);
  }
}

TEST(CudaLfcd, OneTwoAndThreeSeries) {
  REQUIRE_CUDA();
  for (const int64_t n : {1, 2, 3}) {
    Grid g;
    for (int32_t s = 0; s < n; ++s) g.coords.insert(g.coords.end(), {s, 0, 0});
    g.dims[0] = 3;
    const Dataset d = smoothed(g, 3, static_cast<uint64_t>(n));
    SCOPED_TRACE("N = " + std::to_string(n));
    for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64})
      expect_same_counts(d, g, precision, {-1.0, 0.0, 0.9});
  }
}

TEST(CudaLfcd, ClustersPastSharedMemorySpillAndStayExact) {
  REQUIRE_CUDA();
  // r >= -1 (and |r| >= 0) always passes: each count is the seed's component, up to a thousand
  // voxels (far past a warp's 256 shared visits), found here by a breadth-first search of the
  // grid alone. A low threshold mixes spilled and shared seeds.
  const Grid g = holed_box(15, 13, 11, 0.55, 77);
  Dataset d = smoothed(g, 29, 5);
  make_constant(d, 3, 1.0);
  std::vector<bool> constant(static_cast<size_t>(g.n()), false);
  constant[3] = true;
  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const Context cuda = context(FC_BACKEND_CUDA, precision);
    const Series s = make_series(cuda, d);
    for (const int h : {6, 18, 26}) {
      SCOPED_TRACE(std::to_string(h) + " neighbours");
      const std::vector<int64_t> want = component_sizes(g, h, constant);
      EXPECT_GT(*std::max_element(want.begin(), want.end()), 500);
      EXPECT_EQ(lfcd(cuda, s, g, h, FC_EDGE_THRESHOLD, -1.0), want);
      EXPECT_EQ(lfcd(cuda, s, g, h, FC_EDGE_ABS_THRESHOLD, 0.0), want);
    }
    expect_same_counts(d, g, precision, {0.0, 0.15});
  }
}

TEST(CudaLfcd, MemoryLimitsChangeNothing) {
  REQUIRE_CUDA();
  // A limit for one spill worker only (the table, the voxels and a step's buffers take 4 bytes
  // per cell and 24 per series, a worker 8 per series), and one too small for the device's table
  // (the host grows the clusters). Set after the series are made: only lFCD runs under it.
  const Grid g = holed_box(9, 9, 8, 0.7, 9);
  const Dataset d = smoothed(g, 24, 4);
  const int64_t cells = g.dims[0] * g.dims[1] * g.dims[2];
  const Context cpu = context(FC_BACKEND_CPU, FC_PRECISION_FP32);
  const Series s_cpu = make_series(cpu, d);
  for (const int64_t limit : {cells * 4 + g.n() * 32 + 64, int64_t(1000)}) {
    SCOPED_TRACE("memory limit " + std::to_string(limit));
    Context cuda = context(FC_BACKEND_CUDA, FC_PRECISION_FP32);
    const Series s = make_series(cuda, d);
    cuda.memory_limit(limit);
    for (const double th : {-1.0, 0.1, 0.6})
      EXPECT_EQ(lfcd(cuda, s, g, 26, FC_EDGE_THRESHOLD, th), lfcd(cpu, s_cpu, g, 26, FC_EDGE_THRESHOLD, th));
  }
}

// r of two stored rows in the header's order (8 lanes, each ascending, bracketed pairwise; this
// file is built with -ffp-contract=off), clamped and rounded to float.
float stored_r(const std::vector<double>& z, int64_t t, int64_t a, int64_t b) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t k = 0; k < t; ++k) lane[k % 8] += z[a * t + k] * z[b * t + k];
  const double dot = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  return static_cast<float>(std::min(1.0, std::max(-1.0, dot)));
}

TEST(CudaLfcd, ThresholdsExactlyOnAPairsRDecideAsOnTheHost) {
  REQUIRE_CUDA();
  const Grid g = holed_box(12, 12, 9, 0.75, 21);
  const Dataset d = smoothed(g, 53, 8);
  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const Context cuda = context(FC_BACKEND_CUDA, precision), cpu = context(FC_BACKEND_CPU, precision);
    const Series s = make_series(cuda, d), s_cpu = make_series(cpu, d);
    // Both backends store the same rows (the header's promise), checked here, r made from them.
    std::vector<double> z(static_cast<size_t>(g.n() * d.t)), z_cuda(z.size());
    ASSERT_TRUE(s_cpu.get()->data->backend->rows_to_host(s_cpu.get()->data->view(), z.data()));
    ASSERT_TRUE(s.get()->data->backend->rows_to_host(s.get()->data->view(), z_cuda.data()));
    ASSERT_EQ(z, z_cuda);
    // Thresholds on the r of voxel pairs adjacent on the grid (which the growth does test).
    const Voxels voxels(g);
    std::set<float> on_pairs;
    for (int64_t v = 0; v < g.n() && on_pairs.size() < 12; v += 37) {
      int64_t first = -1;
      voxels.neighbours(v, 26, [&](int64_t u) { first = first < 0 ? u : first; });
      if (first >= 0) on_pairs.insert(stored_r(z, d.t, v, first));
    }
    ASSERT_GE(on_pairs.size(), 6u);
    for (const float th : on_pairs)
      for (const fc_edge_rule rule : {FC_EDGE_THRESHOLD, FC_EDGE_ABS_THRESHOLD}) {
        SCOPED_TRACE(std::string(rule_name(rule)) + " >= " + std::to_string(th));
        EXPECT_EQ(lfcd(cuda, s, g, 26, rule, th), lfcd(cpu, s_cpu, g, 26, rule, th));
      }
  }
}

struct Reports {
  std::vector<int64_t> done;
  int64_t stop_after = -1;  // >= 0: cancel once done reaches it
};

int record(int64_t done, int64_t, void* user) {
  Reports& r = *static_cast<Reports*>(user);
  r.done.push_back(done);
  return r.stop_after >= 0 && done >= r.stop_after ? 1 : 0;
}

TEST(CudaLfcd, SeveralStepsReportProgressAndCancel) {
  REQUIRE_CUDA();
  // More seeds than one device step (65536): the counts of every step, progress after each, and
  // a cancel after the first leaves the caller's counts as they were.
  const Grid g = holed_box(47, 43, 41, 0.9, 2);
  ASSERT_GT(g.n(), 65536 + 1000);
  const Dataset d = smoothed(g, 16, 6);
  Context cuda = context(FC_BACKEND_CUDA, FC_PRECISION_FP32);
  const Context cpu = context(FC_BACKEND_CPU, FC_PRECISION_FP32);
  const Series s = make_series(cuda, d), s_cpu = make_series(cpu, d);
  Reports reports;
  cuda.progress(record, &reports);
  EXPECT_EQ(lfcd(cuda, s, g, 26, FC_EDGE_THRESHOLD, 0.55), lfcd(cpu, s_cpu, g, 26, FC_EDGE_THRESHOLD, 0.55));
  EXPECT_EQ(reports.done, (std::vector<int64_t>{65536, g.n()}));

  Reports cancel;
  cancel.stop_after = 1;
  cuda.progress(record, &cancel);
  std::vector<int64_t> out(static_cast<size_t>(g.n()), -7);
  EXPECT_EQ(fc_pcc_lfcd(cuda.get(), s.get(), g.coords.data(), g.dims, 26, FC_EDGE_THRESHOLD, 0.55, out.data()),
            FC_ERR_ABORTED);
  EXPECT_EQ(cancel.done, std::vector<int64_t>{65536});
  EXPECT_EQ(out, std::vector<int64_t>(static_cast<size_t>(g.n()), -7));
}

TEST(CudaLfcd, ASparseGridGrowsOnTheHostWithTheSameCounts) {
  REQUIRE_CUDA();
  // 2001 voxels in a 2000^3 box: no dense table (the hashed lookup), so the host grows them.
  Grid g = holed_box(20, 10, 10, 1.0, 4);
  g.coords.insert(g.coords.end(), {1999, 1999, 1999});
  g.dims[0] = g.dims[1] = g.dims[2] = 2000;
  const Dataset d = structured_data(g.n(), 12, 10);
  expect_same_counts(d, g, FC_PRECISION_FP32, {0.6});
}

}  // namespace
