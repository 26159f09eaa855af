// All-pairs correlation: validation and orchestration shared by every backend and by the three
// front doors (full-array call, pull iterator, callback loop).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "context/context.hpp"
#include "pcc/series.hpp"

namespace fc {

// Throws FC_ERR_INVALID_ARG unless order is FC_TRIU_ROW or FC_TRIU_COL.
void require_order(const fc_triu_order& order);

// The whole triangle in `order` into out (capacity values of `type`).
void pcc_triu(const ContextState& ctx, const SeriesData& s, const fc_triu_order& order, const Output& out, int64_t capacity);

// Rows [row_begin, row_end) of r(a, b), row-major with leading dimension ld. same_set: b is a.
void pcc_cross(const ContextState& ctx, const SeriesData& a, const SeriesData& b, bool same_set, const Output& out,
               int64_t ld);

// Pull iterator over row blocks of the row-ordered triangle. Keeps its context state and series
// alive; each block uses the context's settings as they are when it is computed.
class BlockIterator {
 public:
  BlockIterator(std::shared_ptr<const ContextState> ctx, std::shared_ptr<const SeriesData> series,
                int64_t rows_per_block);

  int64_t max_count() const;  // values in the largest block
  const ContextState& context() const { return *ctx_; }
  // FC_OK with the block in buf (values of `type`), or FC_DONE. Throws FC_ERR_BUFFER_TOO_SMALL
  // (info filled, state unchanged) when capacity is short.
  fc_status next(void* buf, ScalarType type, int64_t capacity, fc_block_info* info);

 private:
  fc_block_info block_at(int64_t row_begin) const;

  std::shared_ptr<const ContextState> ctx_;
  std::shared_ptr<const SeriesData> series_;
  int64_t rows_per_block_;
  int64_t next_row_ = 0;
};

// Rows per block when the caller passes 0: blocks of about 16 Mi values (64 MiB as float),
// fewer if the context's memory limit is smaller; a multiple of the backend's granularity.
int64_t default_rows_per_block(const ContextState& ctx, int64_t n);

}  // namespace fc
