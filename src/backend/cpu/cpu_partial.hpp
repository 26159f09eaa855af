// The CPU backend's partial-correlation primitive (cpu_partial.cpp); CpuBackend's override calls
// this. Contract: PartialBackend::partial_upper in backend/partial_backend.hpp.
#pragma once

#include "backend/partial_backend.hpp"

namespace fc {
namespace cpu {

double partial_upper(const SeriesView& s, const PartialRequest& request, double* upper, const RunSettings& run);

}  // namespace cpu
}  // namespace fc
