// Partial correlation and precision of a series set: Ledoit-Wolf (or a given) shrinkage of the
// correlation matrix, its inverse by Cholesky, in float64 on the context's backend
// (backend/partial_backend.hpp: LAPACK on the host, cuSOLVER on a CUDA device).
#pragma once

#include <cstdint>

#include "context/context.hpp"
#include "pcc/series.hpp"

namespace fc {

// fc_partial_correlation: validates shrinkage and output, writes s.n x s.n values row-major with
// leading dimension ld (header's contract), the intensity used into *shrinkage_used (may be NULL).
void partial_dense(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, double* out, int64_t ld,
                   double* shrinkage_used);

// fc_partial_correlation_triu: the strict upper triangle of the same matrix in `order`.
void partial_triu(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, int order, double* out,
                  int64_t capacity, double* shrinkage_used);

}  // namespace fc
