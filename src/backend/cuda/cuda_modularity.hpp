// The CUDA backend's engine of modularity group products (cuda_modularity.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.hpp"

namespace fc {
namespace cuda {

// Device bytes of the engine for graph g of n nodes: its CSR, a local index per node, the group's
// nodes and the two vectors.
int64_t group_products_bytes(const SymmetricCsr& g, int64_t n);

// Stored entries of the smallest group worth a device product (a round trip of two small copies
// and a launch costs about what the host takes for this many).
constexpr int64_t kDeviceMinEntries = int64_t(1) << 16;

// The engine with the graph copied to `device`, or null where the host should multiply: a graph
// with fewer stored entries than min_entries (the engine's threshold; the tests lower it), more
// bytes than memory_limit (> 0), or a device without the memory.
std::unique_ptr<GroupProducts> make_group_products(int device, const SymmetricCsr& g, int64_t n, double c_pos,
                                                   double c_neg, int64_t memory_limit,
                                                   int64_t min_entries = kDeviceMinEntries);

}  // namespace cuda
}  // namespace fc
