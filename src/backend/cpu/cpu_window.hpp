// The CPU backend's windows and low-rank primitives (cpu_window.cpp); CpuBackend's overrides
// call these. Contracts: Backend::create_window, gram and project in backend/backend.hpp.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.hpp"

namespace fc {
namespace cpu {

std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length, const double* weights,
                                             uint8_t* constant, const RunSettings& run);
void gram(const SeriesView& s, double* gram, const RunSettings& run);
void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run);

}  // namespace cpu
}  // namespace fc
