#include "pcc/pcc.hpp"

#include <algorithm>

#include "base/error.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

void require_output(const Output& out) {
  if (out.data == nullptr) fail(FC_ERR_NULL_ARG, "out is NULL");
}

// The "rows" of the triangle in each order: row order iterates the smaller index of a pair,
// column order the larger one.
void triangle_rows(int64_t n, fc_triu_order order, int64_t* begin, int64_t* end) {
  if (order == FC_TRIU_ROW) {
    *begin = 0;
    *end = n - 1;
  } else {
    *begin = 1;
    *end = n;
  }
}

}  // namespace

void require_order(const fc_triu_order& order) {
  const int o = raw_enum(order);
  if (o != FC_TRIU_ROW && o != FC_TRIU_COL)
    fail(FC_ERR_INVALID_ARG, "order " + std::to_string(o) + " is not FC_TRIU_ROW (0) or FC_TRIU_COL (1)");
}

void pcc_triu(const ContextState& ctx, const SeriesData& s, const fc_triu_order& order, const Output& out, int64_t capacity) {
  require_order(order);
  require_output(out);
  const int64_t pairs = triu_count(s.n);
  if (capacity < pairs)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(pairs) +
                                      " pairs of " + std::to_string(s.n) + " series (fc_triu_size)");
  if (pairs == 0) return;
  int64_t begin = 0, end = 0;
  triangle_rows(s.n, order, &begin, &end);
  Progress progress = ctx.make_progress(pairs);
  ctx.backend->triu(s.view(), order, begin, end, out, ctx.run_settings(progress));
}

void pcc_cross(const ContextState& ctx, const SeriesData& a, const SeriesData& b, bool same_set, const Output& out,
               int64_t ld) {
  require_output(out);
  if (a.t != b.t)
    fail(FC_ERR_INVALID_ARG, "a has " + std::to_string(a.t) + " time points but b has " + std::to_string(b.t) +
                                 "; cross correlation needs series of equal length");
  if (ld < b.n) fail(FC_ERR_INVALID_ARG, "ld " + std::to_string(ld) + " is smaller than the " + std::to_string(b.n) + " columns");
  if (a.precision != b.precision)
    fail(FC_ERR_INVALID_ARG, "a and b were created with different precisions; create both under the same fc_context_set_precision");
  Progress progress = ctx.make_progress(a.n * b.n);
  ctx.backend->cross(a.view(), b.view(), 0, a.n, same_set, out, ld, ctx.run_settings(progress));
}

int64_t default_rows_per_block(const ContextState& ctx, int64_t n) {
  int64_t values = int64_t(16) << 20;
  if (ctx.memory_limit > 0) values = std::min(values, std::max<int64_t>(1, ctx.memory_limit / 4));
  int64_t rows = std::max<int64_t>(1, values / std::max<int64_t>(1, n - 1));
  const int64_t granularity = ctx.backend->block_row_granularity();
  if (rows > granularity) rows = rows / granularity * granularity;  // whole grid tiles only
  return rows;
}

BlockIterator::BlockIterator(std::shared_ptr<const ContextState> ctx, std::shared_ptr<const SeriesData> series,
                             int64_t rows_per_block)
    : ctx_(std::move(ctx)), series_(std::move(series)) {
  if (rows_per_block < 0)
    fail(FC_ERR_INVALID_ARG, "rows_per_block is " + std::to_string(rows_per_block) + "; use >= 1, or 0 for automatic");
  rows_per_block_ = rows_per_block > 0 ? rows_per_block : default_rows_per_block(*ctx_, series_->n);
}

fc_block_info BlockIterator::block_at(int64_t row_begin) const {
  const int64_t n = series_->n;
  fc_block_info info;
  info.row_begin = row_begin;
  info.row_end = std::min(n - 1, row_begin + std::min(rows_per_block_, n));
  if (info.row_end < row_begin) info.row_end = row_begin;
  info.triu_offset = row_start(n, row_begin);
  info.count = row_start(n, info.row_end) - info.triu_offset;
  return info;
}

int64_t BlockIterator::max_count() const { return series_->n < 2 ? 0 : block_at(0).count; }

fc_status BlockIterator::next(void* buf, ScalarType type, int64_t capacity, fc_block_info* info) {
  require_not_null(info, "info");
  const int64_t n = series_->n;
  if (next_row_ >= n - 1) {
    info->row_begin = info->row_end = std::max<int64_t>(0, n - 1);
    info->triu_offset = triu_count(n);
    info->count = 0;
    return FC_DONE;
  }
  const fc_block_info block = block_at(next_row_);
  *info = block;
  require_not_null(buf, "buf");
  if (capacity < block.count)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " +
                                      std::to_string(block.count) + " values of the block of rows [" +
                                      std::to_string(block.row_begin) + ", " + std::to_string(block.row_end) +
                                      "); fc_blocks_max_count gives a size that fits every block");
  Progress progress = ctx_->make_progress(triu_count(n), block.triu_offset);
  Output out;
  out.data = buf;
  out.type = type;
  ctx_->backend->triu(series_->view(), FC_TRIU_ROW, block.row_begin, block.row_end, out, ctx_->run_settings(progress));
  next_row_ = block.row_end;
  return FC_OK;
}

}  // namespace fc
