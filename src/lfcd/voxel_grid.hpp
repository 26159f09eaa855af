// The voxel grid of lFCD: each series' (i, j, k), checked against the grid, and the lookup from a
// grid position back to its series (lfcd.cpp grows clusters through it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fc {

class VoxelGrid {
 public:
  // coords: n rows of (i, j, k); dims: the grid's (nx, ny, nz). Throws FC_ERR_INVALID_ARG naming
  // the first bad value: a dimension < 1 or a grid of more than 2^62 voxels, a coordinate off the
  // grid, or two series on the same voxel.
  VoxelGrid(const int32_t* coords, int64_t n, const int64_t* dims);

  // The series at (i, j, k), or -1 when the position is off the grid or holds no series.
  int64_t find(int64_t i, int64_t j, int64_t k) const {
    if (i < 0 || j < 0 || k < 0 || i >= dims_[0] || j >= dims_[1] || k >= dims_[2]) return -1;
    const int64_t cell = (k * dims_[1] + j) * dims_[0] + i;
    if (!dense_.empty()) return dense_[static_cast<size_t>(cell)];
    return find_hashed(cell);
  }
  int64_t dim(int axis) const { return dims_[axis]; }
  // The dense table (the series at cell (k * ny + j) * nx + i, -1 where none), or null when the
  // grid is hashed.
  const int32_t* cells() const { return dense_.empty() ? nullptr : dense_.data(); }

 private:
  int64_t find_hashed(int64_t cell) const;

  int64_t dims_[3] = {0, 0, 0};
  // A dense table (series index, -1 for none) when the grid is at most a few times the number of
  // series (a brain mask fills a fifth or more of its box); otherwise an open-addressing hash of
  // the occupied cells, so that a sparse grid costs memory by its series, not its box.
  std::vector<int32_t> dense_;
  std::vector<int64_t> keys_;    // cell + 1 (0: empty slot), linear probing
  std::vector<int64_t> values_;  // the series of keys_[slot]
  uint64_t mask_ = 0;
};

}  // namespace fc
