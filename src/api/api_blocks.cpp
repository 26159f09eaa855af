// extern "C" entry points for the block iterator and its callback twin (built on the pull path,
// as sqlite3_exec is built on prepare/step/finalize).
#include <optional>
#include <vector>

#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"

namespace {

// The callback loop of fc_pcc_blocks_foreach(_compact) on the pull path: values of `type` (V:
// a C++ type of its size) handed to fn block by block.
template <class V, class Fn>
fc_status foreach_block(const char* name, fc_context* ctx, const fc_series* series, int64_t rows_per_block,
                        fc::ScalarType type, Fn fn, void* user) {
  fc_blocks* blocks = nullptr;
  std::optional<fc::ContextUse> use;  // held from the start to the last block
  fc_status status = fc::api_guard(name, [&] {
    fc::require_not_null(fn, "fn");
    if (ctx != nullptr) use.emplace(*ctx->state);
    return FC_OK;
  });
  if (status != FC_OK) return status;
  status = fc_pcc_blocks_begin(ctx, series, rows_per_block, &blocks);
  if (status != FC_OK) return status;
  return fc::api_guard(name, [&] {
    std::unique_ptr<fc_blocks, void (*)(fc_blocks*)> owner(blocks, fc_blocks_destroy);
    std::vector<V> buf(static_cast<size_t>(blocks->iterator->max_count()));
    fc_block_info info;
    while (blocks->iterator->next(buf.data(), type, static_cast<int64_t>(buf.size()), &info) == FC_OK) {
      if (fn(&info, buf.data(), user) != 0)
        fc::fail(FC_ERR_ABORTED, "stopped by the block callback after the block of rows [" +
                                     std::to_string(info.row_begin) + ", " + std::to_string(info.row_end) + ")");
    }
    return FC_OK;
  });
}

}  // namespace

extern "C" {

FC_API fc_status fc_pcc_blocks_begin(fc_context* ctx, const fc_series* series, int64_t rows_per_block, fc_blocks** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    fc::require_not_null(out, "out");
    const fc::ContextUse use(*ctx->state);
    auto blocks = std::make_unique<fc_blocks>();
    blocks->iterator = std::make_unique<fc::BlockIterator>(ctx->state, series->data, rows_per_block);
    *out = blocks.release();
    return FC_OK;
  });
}

FC_API fc_status fc_blocks_max_count(const fc_blocks* blocks, int64_t* out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(blocks, "blocks");
    fc::require_not_null(out, "out");
    *out = blocks->iterator->max_count();
    return FC_OK;
  });
}

FC_API fc_status fc_blocks_next(fc_blocks* blocks, float* buf, int64_t capacity, fc_block_info* info) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(blocks, "blocks");
    const fc::ContextUse use(blocks->iterator->context());
    return blocks->iterator->next(buf, fc::ScalarType::F32, capacity, info);
  });
}

FC_API fc_status fc_blocks_next_f64(fc_blocks* blocks, double* buf, int64_t capacity, fc_block_info* info) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(blocks, "blocks");
    const fc::ContextUse use(blocks->iterator->context());
    return blocks->iterator->next(buf, fc::ScalarType::F64, capacity, info);
  });
}

FC_API void fc_blocks_destroy(fc_blocks* blocks) { delete blocks; }

FC_API fc_status fc_blocks_next_compact(fc_blocks* blocks, fc_value_format format, void* buf, int64_t capacity,
                                        fc_block_info* info) {
  return fc::api_guard(__func__, [&] {
    const fc::ScalarType type = fc::compact_type(format);
    fc::require_not_null(blocks, "blocks");
    const fc::ContextUse use(blocks->iterator->context());
    return blocks->iterator->next(buf, type, capacity, info);
  });
}

FC_API fc_status fc_pcc_blocks_foreach(fc_context* ctx, const fc_series* series, int64_t rows_per_block, fc_block_fn fn,
                                       void* user) {
  return foreach_block<float>(__func__, ctx, series, rows_per_block, fc::ScalarType::F32, fn, user);
}

FC_API fc_status fc_pcc_blocks_foreach_compact(fc_context* ctx, const fc_series* series, int64_t rows_per_block,
                                               fc_value_format format, fc_block_compact_fn fn, void* user) {
  fc::ScalarType type = fc::ScalarType::I16;
  const fc_status status = fc::api_guard(__func__, [&] {
    type = fc::compact_type(format);
    return FC_OK;
  });
  if (status != FC_OK) return status;
  return foreach_block<int16_t>(__func__, ctx, series, rows_per_block, type, fn, user);
}

}  // extern "C"
