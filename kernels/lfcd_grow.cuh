// Launchers of lFCD's cluster growth (backend/lfcd_backend.hpp) on the stored rows: one warp per
// seed, breadth first over the voxel grid, r of the seed and each candidate in the host's order
// (8 interleaved float64 lanes, each product and sum rounded once, bracketed pairwise), so that a
// pair on the threshold is decided as on the host. Plain declarations over raw device pointers and
// a stream; each returns the launch status (cudaGetLastError).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// The neighbourhood has at most 26 steps.
constexpr int kLfcdMaxOffsets = 26;

// What the growth reads, all on the device but the scalars.
struct LfcdGridView {
  const int32_t* cells = nullptr;     // nx * ny * nz: the series at cell (k * ny + j) * nx + i, -1 where none
  const int32_t* coords = nullptr;    // n x (i, j, k)
  const uint8_t* constant = nullptr;  // n flags; null when no series is constant
  int64_t n = 0, t = 0, nx = 0, ny = 0, nz = 0;
  int offsets = 0;                    // 6, 18 or 26 steps
  int8_t step[kLfcdMaxOffsets][3] = {};  // (di, dj, dk) of each step, in the host's order
  bool absolute = false;              // |r| >= threshold, else r >= threshold
  float threshold = 0.0f;
};

// Voxels a warp of lfcd_grow_shared visits (a cluster and its boundary) in shared memory: a seed
// that would visit more goes to lfcd_grow_spilled.
constexpr int kLfcdSharedVisits = 256;

// sizes[s - begin] = the cluster size of seed s in [begin, end) (0 for a constant seed), each warp
// holding its seed's visits and queue in shared memory; a seed whose visits would pass
// kLfcdSharedVisits is appended to spilled (its count at *spilled_count, which the caller zeroes)
// and its size left unwritten.
cudaError_t lfcd_grow_shared(const float* z, const LfcdGridView& g, int64_t begin, int64_t end, int64_t* sizes,
                             int32_t* spilled, int32_t* spilled_count, cudaStream_t stream);
cudaError_t lfcd_grow_shared(const double* z, const LfcdGridView& g, int64_t begin, int64_t end, int64_t* sizes,
                             int32_t* spilled, int32_t* spilled_count, cudaStream_t stream);

// sizes[s - begin] for the `count` seeds s of spilled, by `workers` warps, each with g.n visit
// marks (seen) and g.n queue entries (queue) of its own in global memory: worker w's at w * g.n.
// The marks hold epochs: seed i of the list marks with epoch_base + i + 1, so that no seed clears
// them; the caller zeroes them once and passes an epoch_base past every epoch used since.
cudaError_t lfcd_grow_spilled(const float* z, const LfcdGridView& g, const int32_t* spilled, int64_t count,
                              int64_t begin, uint32_t epoch_base, uint32_t* seen, int32_t* queue, int workers,
                              int64_t* sizes, cudaStream_t stream);
cudaError_t lfcd_grow_spilled(const double* z, const LfcdGridView& g, const int32_t* spilled, int64_t count,
                              int64_t begin, uint32_t epoch_base, uint32_t* seen, int32_t* queue, int workers,
                              int64_t* sizes, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
