// The lFCD capability of a backend: the cluster sizes of src/lfcd (lfcd.hpp defines the cluster)
// grown on the device from the stored rows. The CPU backend has none: src/lfcd grows clusters on
// the host from rows_to_host, which is also the path of a device that cannot take the grid
// (cuda/cuda_lfcd.cpp). Both compute r as lfcd_dot below, so they count the same clusters.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/graph_backend.hpp"
#include "backend/series_storage.hpp"
#include "base/run_settings.hpp"

namespace fc {

// r of a seed and a candidate: element k of the two stored rows (widened to double) multiplied
// into lane k % kLfcdLanes, each lane summed over its k ascending from 0, then
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)); every product and sum rounded once (no fused
// multiply-add). Then clamped to [-1, 1], rounded to float and tested as EdgeTest says.
constexpr int kLfcdLanes = 8;

// One step of the neighbourhood: faces (6), faces and edges (18), or all 26 of the 3 x 3 x 3 box.
struct LfcdOffset {
  int di, dj, dk;
};

// What the growth walks: each series' voxel, and the dense table of the grid (the series at each
// cell (k * ny + j) * nx + i, -1 where none), both on the host.
struct LfcdGrid {
  const int32_t* coords = nullptr;  // n x (i, j, k)
  const int32_t* cells = nullptr;   // nx * ny * nz
  int64_t dims[3] = {0, 0, 0};
  std::vector<LfcdOffset> offsets;  // the neighbourhood, in src/lfcd's order
  EdgeTest test;
};

// One lFCD computation on a backend: the grid is on the device, seeds go in steps (the caller
// reports progress, and may be cancelled, between them).
class LfcdRun {
 public:
  virtual ~LfcdRun() = default;
  // Seeds per call of sizes() that keep the device busy.
  virtual int64_t seeds_per_step() const = 0;
  // sizes[s - begin] = the cluster size of seed s, for s in [begin, end); 0 for a constant seed.
  virtual void sizes(int64_t begin, int64_t end, int64_t* sizes) = 0;
};

class LfcdBackend {
 public:
  virtual ~LfcdBackend() = default;
  // A run on the stored rows of s, or null when this backend does not grow these clusters itself:
  // it never does (CPU), the grid has no dense table, or the memory limit cannot hold the
  // device's share; the caller then grows them on the host. FC_ERR_OUT_OF_MEMORY when the device
  // itself cannot hold it.
  virtual std::unique_ptr<LfcdRun> lfcd_run(const SeriesView& s, const LfcdGrid& grid, const RunSettings& run) = 0;
};

}  // namespace fc
