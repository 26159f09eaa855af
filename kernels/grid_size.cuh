// The grid of a grid-stride kernel (csr_build.cu, group_product.cu, eigen_space.cu): enough
// blocks of `threads` for `items` work items, at least 1 and at most 65535 x 8 (the loops stride
// over the rest; more blocks than that only add scheduling).
#pragma once

#include <cstdint>

namespace fc {
namespace kernels {

inline unsigned grid_size(int64_t items, int threads) {
  const int64_t blocks = (items + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65535 * 8 ? 65535 * 8 : blocks));
}

}  // namespace kernels
}  // namespace fc
