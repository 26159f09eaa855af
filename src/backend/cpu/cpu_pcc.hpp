// The CPU backend's PCC primitives (cpu_pcc.cpp); CpuBackend's overrides call these. Contracts:
// PccBackend::triu and cross in backend/pcc_backend.hpp.
#pragma once

#include <cstdint>

#include "backend/pcc_backend.hpp"

namespace fc {
namespace cpu {

void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
          const RunSettings& run);
void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
           int64_t ld, const RunSettings& run);

}  // namespace cpu
}  // namespace fc
