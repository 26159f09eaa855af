#include "lfcd/voxel_grid.hpp"

#include <limits>
#include <string>

#include "base/error.hpp"

namespace fc {
namespace {

const char* const kAxis[3] = {"i", "j", "k"};

// A 64-bit mix (splitmix64's finalizer): neighbouring cells land in unrelated slots.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string voxel_text(const int32_t* c) {
  return "(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + ")";
}

}  // namespace

VoxelGrid::VoxelGrid(const int32_t* coords, int64_t n, const int64_t* dims) {
  constexpr int64_t kMaxCells = int64_t(1) << 62;
  int64_t cells = 1;
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 1)
      fail(FC_ERR_INVALID_ARG, "dims[" + std::to_string(a) + "] (n" + "xyz"[a] + ") is " + std::to_string(dims[a]) +
                                   "; every grid dimension must be >= 1");
    if (dims[a] > kMaxCells / cells)
      fail(FC_ERR_INVALID_ARG, "dims (" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
                                   std::to_string(dims[2]) + ") make a grid of more than 2^62 voxels");
    cells *= dims[a];
    dims_[a] = dims[a];
  }
  for (int64_t s = 0; s < n; ++s)
    for (int a = 0; a < 3; ++a) {
      const int32_t c = coords[s * 3 + a];
      if (c < 0 || c >= dims[a])
        fail(FC_ERR_INVALID_ARG, "series " + std::to_string(s) + " sits at voxel " + voxel_text(coords + s * 3) + ": its " +
                                     kAxis[a] + " = " + std::to_string(c) + " is off the grid [0, " +
                                     std::to_string(dims[a]) + ")");
    }
  auto cell_of = [&](int64_t s) {
    const int32_t* c = coords + s * 3;
    return (int64_t(c[2]) * dims_[1] + c[1]) * dims_[0] + c[0];
  };
  auto duplicate = [&](int64_t first, int64_t s) {
    fail(FC_ERR_INVALID_ARG, "series " + std::to_string(s) + " and series " + std::to_string(first) +
                                 " sit on the same voxel " + voxel_text(coords + s * 3) + "; each voxel holds one series");
  };
  if (n < std::numeric_limits<int32_t>::max() && cells <= 8 * n + (int64_t(1) << 20)) {
    dense_.assign(static_cast<size_t>(cells), -1);
    for (int64_t s = 0; s < n; ++s) {
      int32_t& slot = dense_[static_cast<size_t>(cell_of(s))];
      if (slot >= 0) duplicate(slot, s);
      slot = static_cast<int32_t>(s);
    }
    return;
  }
  uint64_t capacity = 16;
  while (capacity < static_cast<uint64_t>(2 * n)) capacity *= 2;  // load at most 1/2
  mask_ = capacity - 1;
  keys_.assign(capacity, 0);
  values_.assign(capacity, -1);
  for (int64_t s = 0; s < n; ++s) {
    const int64_t cell = cell_of(s);
    uint64_t slot = mix(static_cast<uint64_t>(cell)) & mask_;
    while (keys_[slot] != 0 && keys_[slot] != cell + 1) slot = (slot + 1) & mask_;
    if (keys_[slot] == cell + 1) duplicate(values_[slot], s);
    keys_[slot] = cell + 1;
    values_[slot] = s;
  }
}

int64_t VoxelGrid::find_hashed(int64_t cell) const {
  for (uint64_t slot = mix(static_cast<uint64_t>(cell)) & mask_;; slot = (slot + 1) & mask_) {
    if (keys_[slot] == cell + 1) return values_[slot];
    if (keys_[slot] == 0) return -1;
  }
}

}  // namespace fc
