// The block iterator: its blocks tile [0, fc_triu_size(N)) of the row-ordered triangle exactly,
// contiguously and in order; each block's count is the number of pairs of its rows and its
// offset is where its first row starts; the values are the triangle's, bit for bit; the
// callback form delivers the same blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

// Pairs (i, j), j > i, with row_begin <= i < row_end, counted one row at a time.
int64_t pairs_of_rows(int64_t n, int64_t row_begin, int64_t row_end) {
  int64_t count = 0;
  for (int64_t i = row_begin; i < row_end; ++i) count += n - 1 - i;
  return count;
}

// The infos describe a tiling of the whole triangle; rows_per_block = 0 means "any size".
::testing::AssertionResult tiles_triangle(const std::vector<fc_block_info>& infos, int64_t n, int64_t rows_per_block) {
  const int64_t total = fc_triu_size(n);
  int64_t next_row = 0, next_offset = 0;
  for (size_t b = 0; b < infos.size(); ++b) {
    const fc_block_info& x = infos[b];
    auto fail = [&]() {
      return ::testing::AssertionFailure() << "block " << b << " {row_begin " << x.row_begin << ", row_end " << x.row_end
                                           << ", triu_offset " << x.triu_offset << ", count " << x.count << "}: ";
    };
    if (x.row_begin != next_row) return fail() << "does not start where the previous block ended (row " << next_row << ")";
    if (x.triu_offset != next_offset) return fail() << "offset is not the previous block's end (" << next_offset << ")";
    if (x.row_end <= x.row_begin || x.row_end > n - 1) return fail() << "rows are empty or past row N-2 = " << n - 2;
    if (rows_per_block > 0 && x.row_end - x.row_begin > rows_per_block) return fail() << "more rows than " << rows_per_block;
    if (x.count != pairs_of_rows(n, x.row_begin, x.row_end)) return fail() << "count is not the " << pairs_of_rows(n, x.row_begin, x.row_end) << " pairs of its rows";
    if (x.triu_offset != fc_triu_offset(n, FC_TRIU_ROW, x.row_begin, x.row_begin + 1))
      return fail() << "offset is not that of pair (row_begin, row_begin + 1)";
    next_row = x.row_end;
    next_offset = x.triu_offset + x.count;
  }
  if (next_offset != total) return ::testing::AssertionFailure() << "blocks cover " << next_offset << " of " << total << " pairs";
  if (n >= 2 && next_row != n - 1) return ::testing::AssertionFailure() << "blocks end at row " << next_row << ", not N-1";
  if (rows_per_block > 0 && n >= 2) {
    const int64_t expected_blocks = (n - 1 + rows_per_block - 1) / rows_per_block;
    if (static_cast<int64_t>(infos.size()) != expected_blocks)
      return ::testing::AssertionFailure() << infos.size() << " blocks, expected " << expected_blocks;
  }
  return ::testing::AssertionSuccess();
}

int foreach_collect(const fc_block_info* info, const float* values, void* user) {
  auto* run = static_cast<BlockRun*>(user);
  run->infos.push_back(*info);
  run->values.insert(run->values.end(), values, values + info->count);
  return 0;
}

class Blocks : public ::testing::TestWithParam<std::tuple<int64_t, int64_t>> {
 protected:
  int64_t n() const { return std::get<0>(GetParam()); }
  int64_t rows_per_block() const { return std::get<1>(GetParam()); }
};

TEST_P(Blocks, TileTheTriangleExactlyWithItsValues) {
  const Dataset d = structured_data(n(), 40, 2024u + uint64_t(n()));
  Context ctx;
  const Series s = make_series(ctx, d);
  const BlockRun run = pull_blocks(ctx, s, rows_per_block());
  EXPECT_TRUE(tiles_triangle(run.infos, n(), rows_per_block()));
  int64_t largest = 0;
  for (const fc_block_info& x : run.infos) largest = std::max(largest, x.count);
  EXPECT_EQ(run.max_count, largest) << "fc_blocks_max_count is the largest block";
  EXPECT_TRUE(bit_identical(run.values, pcc_triu(ctx, s, FC_TRIU_ROW))) << "blocks concatenated vs fc_pcc_triu";

  BlockRun pushed;
  ASSERT_EQ(fc_pcc_blocks_foreach(ctx.get(), s.get(), rows_per_block(), foreach_collect, &pushed), FC_OK) << fc_last_error();
  ASSERT_EQ(pushed.infos.size(), run.infos.size());
  for (size_t b = 0; b < run.infos.size(); ++b) {
    EXPECT_EQ(pushed.infos[b].row_begin, run.infos[b].row_begin) << "block " << b;
    EXPECT_EQ(pushed.infos[b].row_end, run.infos[b].row_end) << "block " << b;
    EXPECT_EQ(pushed.infos[b].triu_offset, run.infos[b].triu_offset) << "block " << b;
    EXPECT_EQ(pushed.infos[b].count, run.infos[b].count) << "block " << b;
  }
  EXPECT_TRUE(bit_identical(pushed.values, run.values)) << "fc_pcc_blocks_foreach vs fc_blocks_next";
}

// N series with rows per block 1, 2, 3, 7, 256, N - 1, N, N + 5 and 0 (automatic).
std::vector<std::tuple<int64_t, int64_t>> block_cases() {
  std::vector<std::tuple<int64_t, int64_t>> cases;
  for (int64_t n : {1, 2, 3, 7, 13, 257, 1009})
    for (int64_t r : {int64_t(1), int64_t(2), int64_t(3), int64_t(7), int64_t(256), n - 1, n, n + 5, int64_t(0)})
      if (r >= 0 && std::find(cases.begin(), cases.end(), std::make_tuple(n, r)) == cases.end()) cases.emplace_back(n, r);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Blocks, ::testing::ValuesIn(block_cases()),
                         [](const ::testing::TestParamInfo<std::tuple<int64_t, int64_t>>& p) {
                           return "N" + std::to_string(std::get<0>(p.param)) + "_rows" + std::to_string(std::get<1>(p.param));
                         });

// Automatic block size under a small memory limit: many blocks, still an exact tiling.
TEST(BlocksAutomatic, SmallMemoryLimitGivesManyBlocks) {
  const int64_t n = 1009;
  const Dataset d = structured_data(n, 30, 8u);
  Context ctx;
  ctx.memory_limit(64 * 1024);  // 16 Ki float values per block
  const Series s = make_series(ctx, d);
  const BlockRun run = pull_blocks(ctx, s, 0);
  EXPECT_GT(run.infos.size(), 20u);
  EXPECT_TRUE(tiles_triangle(run.infos, n, 0));
  EXPECT_TRUE(bit_identical(run.values, pcc_triu(ctx, s, FC_TRIU_ROW)));
}

// A buffer one value short is refused without losing the block: info describes it, the buffer
// is untouched, and the same block comes back with a large enough buffer.
TEST(BlocksBuffer, TooSmallBufferDoesNotAdvance) {
  const int64_t n = 50;
  const Dataset d = structured_data(n, 30, 9u);
  Context ctx;
  const Series s = make_series(ctx, d);
  fc_blocks* it = nullptr;
  ASSERT_EQ(fc_pcc_blocks_begin(ctx.get(), s.get(), 4, &it), FC_OK) << fc_last_error();
  std::unique_ptr<fc_blocks, void (*)(fc_blocks*)> owner(it, fc_blocks_destroy);
  const int64_t first_count = pairs_of_rows(n, 0, 4);
  std::vector<float> buf(static_cast<size_t>(first_count), kSentinel);
  fc_block_info info{};
  EXPECT_EQ(fc_blocks_next(it, buf.data(), first_count - 1, &info), FC_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(info.row_begin, 0);
  EXPECT_EQ(info.count, first_count);
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](float v) { return v == kSentinel; })) << "buffer was written";
  ASSERT_EQ(fc_blocks_next(it, buf.data(), first_count, &info), FC_OK) << fc_last_error();
  EXPECT_EQ(info.row_begin, 0);
  EXPECT_EQ(info.row_end, 4);
  const std::vector<float> all = pcc_triu(ctx, s, FC_TRIU_ROW);
  EXPECT_TRUE(bit_identical(buf, std::vector<float>(all.begin(), all.begin() + first_count)));
}

}  // namespace
