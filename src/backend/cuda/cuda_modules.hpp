// The CUDA backend's engine of modularity group products (cuda_modules.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.hpp"

namespace fc {
namespace cuda {

// Device bytes of `engines` engines for graph g of n nodes: the CSR they share, and each one's
// local index per node, group nodes and terms, and eigensolver vectors.
int64_t group_products_bytes(const SymmetricCsr& g, int64_t n, int engines);

// Stored entries of the smallest group worth a device product (a round trip of two small copies
// and a launch costs about what the host takes for this many).
constexpr int64_t kDeviceMinEntries = int64_t(1) << 16;

// The engine with the graph copied to `device` (its another() makes the other `engines` - 1 over
// the same copy), or null where the host should solve: a graph with fewer stored entries than
// min_entries (the engine's threshold; the tests lower it), engines needing more bytes than
// memory_limit (> 0), or a device without the memory.
std::unique_ptr<GroupProducts> make_group_products(int device, const SymmetricCsr& g, int64_t n, double c_pos,
                                                   double c_neg, int64_t memory_limit, int engines = 1,
                                                   int64_t min_entries = kDeviceMinEntries);

}  // namespace cuda
}  // namespace fc
