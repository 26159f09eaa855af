// lFCD (lfcd.hpp): a breadth-first growth per seed over the voxel grid, on the backend's device
// when it grows clusters (backend/lfcd_backend.hpp), else here on the host, seeds spread over
// OpenMP threads. Built with -ffp-contract=off (CMakeLists.txt): the seed-to-candidate dot
// products are the same bits whatever -march adds, and those of the device's kernel
// (kernels/lfcd_grow.cu), so every path counts the same clusters.
#include "lfcd/lfcd.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backend/lfcd_backend.hpp"
#include "base/error.hpp"
#include "base/parallel_errors.hpp"
#include "base/parallel_team.hpp"
#include "graph/graph.hpp"
#include "lfcd/voxel_grid.hpp"

namespace fc {
namespace {

// Interleaved partial sums of a row dot product, combined pairwise: the fixed order of float64
// operations of lfcd_backend.hpp (as the centrality products' row sums, centrality_backend.hpp),
// and independent chains the compiler can keep in vector registers.
constexpr int kLanes = kLfcdLanes;

template <class C>
double row_dot(const C* a, const C* b, int64_t t) {
  double lane[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t full = t - t % kLanes;
  for (int64_t k = 0; k < full; k += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] += static_cast<double>(a[k + l]) * static_cast<double>(b[k + l]);
  for (int64_t k = full; k < t; ++k) lane[k - full] += static_cast<double>(a[k]) * static_cast<double>(b[k]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// The neighbourhood's offsets: faces (6), faces and edges (18), or faces, edges and corners (26)
// of the 3 x 3 x 3 box around a voxel, in a fixed order.
using Offset = LfcdOffset;

std::vector<Offset> neighbour_offsets(int neighbourhood) {
  if (neighbourhood != 6 && neighbourhood != 18 && neighbourhood != 26)
    fail(FC_ERR_INVALID_ARG, "neighbourhood is " + std::to_string(neighbourhood) +
                                 "; expected 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners)");
  const int reach = neighbourhood == 6 ? 1 : neighbourhood == 18 ? 2 : 3;  // |di| + |dj| + |dk| at most
  std::vector<Offset> out;
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int steps = std::abs(di) + std::abs(dj) + std::abs(dk);
        if (steps >= 1 && steps <= reach) out.push_back({di, dj, dk});
      }
  return out;
}

// The edge test of the threshold rules, as fc_pcc_degree makes it (graph.hpp's float_threshold):
// r clamped and rounded to float, then |r| >= t or r >= t.
EdgeTest lfcd_test(const fc_edge_rule& rule, double threshold) {
  const int kind = raw_enum(rule);
  if (kind == FC_EDGE_DENSITY || kind == FC_EDGE_TOP_K)
    fail(FC_ERR_INVALID_ARG, std::string("rule ") + (kind == FC_EDGE_DENSITY ? "FC_EDGE_DENSITY (2)" : "FC_EDGE_TOP_K (3)") +
                                 " does not apply to lFCD (a voxel joins by its own r with the seed); expected "
                                 "FC_EDGE_ABS_THRESHOLD (0) or FC_EDGE_THRESHOLD (1)");
  if (kind != FC_EDGE_ABS_THRESHOLD && kind != FC_EDGE_THRESHOLD)
    fail(FC_ERR_INVALID_ARG, "rule " + std::to_string(kind) + " is not FC_EDGE_ABS_THRESHOLD (0) or FC_EDGE_THRESHOLD (1)");
  if (std::isnan(threshold)) fail(FC_ERR_INVALID_ARG, "threshold is NaN");
  if (!std::isfinite(threshold)) fail(FC_ERR_INVALID_ARG, "threshold " + exact_text(threshold) + " is not finite");
  return EdgeTest{kind == FC_EDGE_ABS_THRESHOLD, float_threshold(threshold)};
}

bool passes(double dot, const EdgeTest& test) {
  const float r = static_cast<float>(std::min(1.0, std::max(-1.0, dot)));
  return (test.absolute ? std::fabs(r) : r) >= test.threshold;
}

// One thread's scratch: a visit mark per series that holds the epoch (the seed count) of its last
// visit, so that no seed clears it, and the queue of the cluster's voxels still to expand.
struct Scratch {
  std::vector<uint32_t> seen;
  uint32_t epoch = 0;
  std::vector<int64_t> queue;
};

// The cluster of `seed`: the seed, then every voxel reached through the neighbourhood from a voxel
// of the cluster whose r with the seed passes. A voxel tested once is never tested again for this
// seed: its r with the seed does not change.
template <class C>
int64_t grow(int64_t seed, const VoxelGrid& grid, const int32_t* coords, const std::vector<Offset>& offsets,
             const std::vector<uint8_t>& constant, const C* z, int64_t t, const EdgeTest& test, Scratch& w) {
  if (constant[seed]) return 0;
  if (++w.epoch == 0) {  // wrapped after 2^32 seeds: old marks would read as current
    std::fill(w.seen.begin(), w.seen.end(), 0u);
    w.epoch = 1;
  }
  const C* zs = z + seed * t;
  w.queue.clear();
  w.queue.push_back(seed);
  w.seen[seed] = w.epoch;
  for (size_t head = 0; head < w.queue.size(); ++head) {
    const int32_t* c = coords + w.queue[head] * 3;
    for (const Offset& o : offsets) {
      const int64_t v = grid.find(int64_t(c[0]) + o.di, int64_t(c[1]) + o.dj, int64_t(c[2]) + o.dk);
      if (v < 0 || w.seen[v] == w.epoch) continue;
      w.seen[v] = w.epoch;
      if (!constant[v] && passes(row_dot(zs, z + v * t, t), test)) w.queue.push_back(v);
    }
  }
  return static_cast<int64_t>(w.queue.size());
}

// The counts grown by the backend (true), step by step with progress between steps; false,
// having done nothing, when the backend leaves the growth to the host.
bool grow_on_device(const ContextState& ctx, const SeriesData& s, const int32_t* coords, const VoxelGrid& grid,
                    const std::vector<Offset>& offsets, const EdgeTest& test, std::vector<int64_t>& out) {
  LfcdGrid g;
  g.coords = coords;
  g.cells = grid.cells();
  for (int a = 0; a < 3; ++a) g.dims[a] = grid.dim(a);
  g.offsets = offsets;
  g.test = test;
  Progress progress = ctx.make_progress(s.n);
  const RunSettings run = ctx.run_settings(progress);
  const std::unique_ptr<LfcdRun> device = s.backend->lfcd_run(s.view(), g, run);
  if (!device) return false;
  const int64_t step = device->seeds_per_step();
  for (int64_t begin = 0; begin < s.n; begin += step) {
    const int64_t end = std::min(s.n, begin + step);
    device->sizes(begin, end, out.data() + begin);
    progress.advance(end - begin);
  }
  return true;
}

}  // namespace

void pcc_lfcd(const ContextState& ctx, const SeriesData& s, const int32_t* coords, const int64_t* dims, int neighbourhood,
              const fc_edge_rule& rule, double threshold, int64_t* lfcd) {
  require_not_null(coords, "coords");
  require_not_null(dims, "dims");
  require_not_null(lfcd, "lfcd");
  const std::vector<Offset> offsets = neighbour_offsets(neighbourhood);
  const EdgeTest test = lfcd_test(rule, threshold);
  const int64_t n = s.n, t = s.t;
  const VoxelGrid grid(coords, n, dims);
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (grow_on_device(ctx, s, coords, grid, offsets, test, out)) {
    std::copy(out.begin(), out.end(), lfcd);
    return;
  }

  // The stored rows on the host, widened to double; float rows (FP32 / TF32 storage) are narrowed
  // back, which is exact, so that each product reads half the bytes.
  std::vector<double> wide(static_cast<size_t>(n * t));
  if (!s.backend->rows_to_host(s.view(), wide.data()))
    fail(FC_ERR_BACKEND_UNAVAILABLE, "lFCD is not available on the " + s.backend->describe() + " backend yet");
  std::vector<float> narrow;
  if (s.precision != FC_PRECISION_FP64) {
    narrow.assign(wide.begin(), wide.end());
    std::vector<double>().swap(wide);
  }

  // Work of a seed: a few neighbourhoods of products of t values; clusters vary a lot in size, so
  // seeds are handed out in small dynamic chunks.
  const int team = parallel_team(n * static_cast<int64_t>(offsets.size()) * t, ctx.threads);
  std::vector<Scratch> scratch(static_cast<size_t>(team));
  Progress progress = ctx.make_progress(n);
  ParallelErrors errors;
  for (int64_t begin = 0; begin < n; begin += kLfcdSeedsPerStep) {
    const int64_t end = std::min(n, begin + kLfcdSeedsPerStep);
#pragma omp parallel num_threads(team) if (team > 1)
    {
      Scratch& w = scratch[static_cast<size_t>(omp_get_thread_num())];
      const bool ready = errors.capture([&] {
        if (w.seen.empty()) w.seen.assign(static_cast<size_t>(n), 0u);
      });
#pragma omp for schedule(dynamic, 16)
      for (int64_t seed = begin; seed < end; ++seed) {
        if (!ready || errors.failed()) continue;
        errors.capture([&] {
          out[seed] = narrow.empty() ? grow(seed, grid, coords, offsets, s.constant, wide.data(), t, test, w)
                                     : grow(seed, grid, coords, offsets, s.constant, narrow.data(), t, test, w);
        });
      }
    }
    errors.rethrow();
    progress.advance(end - begin);
  }
  std::copy(out.begin(), out.end(), lfcd);
}

}  // namespace fc
