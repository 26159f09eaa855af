// The CPU backend's centrality primitives (cpu_centrality.cpp); CpuBackend's override calls this.
// Contract: CentralityBackend::gram_product in backend/centrality_backend.hpp.
#pragma once

#include "backend/centrality_backend.hpp"

namespace fc {
namespace cpu {

void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run);

}  // namespace cpu
}  // namespace fc
