// The progress callback: called from the caller's thread, `done` never decreases and ends at
// `total` (the number of pairs), `total` never changes; a non-zero return cancels with
// FC_ERR_ABORTED and no further calls. A small memory limit makes every computation report
// many times.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

struct Recorder {
  std::vector<std::pair<int64_t, int64_t>> calls;  // (done, total)
  std::thread::id caller = std::this_thread::get_id();
  bool foreign_thread = false;
  int cancel_at_call = 0;  // 0: never cancel; k: return non-zero from the k-th call
};

int record(int64_t done, int64_t total, void* user) {
  auto* r = static_cast<Recorder*>(user);
  r->calls.emplace_back(done, total);
  if (std::this_thread::get_id() != r->caller) r->foreign_thread = true;
  return r->cancel_at_call > 0 && static_cast<int>(r->calls.size()) >= r->cancel_at_call;
}

::testing::AssertionResult reports_monotone_to(const Recorder& r, int64_t total) {
  if (r.foreign_thread) return ::testing::AssertionFailure() << "the callback ran on a thread other than the caller's";
  if (r.calls.size() < 3) return ::testing::AssertionFailure() << "only " << r.calls.size() << " reports for a tiled computation";
  int64_t prev = 0;
  for (size_t c = 0; c < r.calls.size(); ++c) {
    const auto [done, tot] = r.calls[c];
    if (tot != total) return ::testing::AssertionFailure() << "report " << c << ": total " << tot << ", expected " << total;
    if (done < prev || done > tot)
      return ::testing::AssertionFailure() << "report " << c << ": done " << done << " after " << prev << " (total " << tot << ")";
    prev = done;
  }
  if (prev != total) return ::testing::AssertionFailure() << "the last report says " << prev << " of " << total;
  return ::testing::AssertionSuccess();
}

constexpr int64_t kN = 300, kM = 40, kT = 50;

// A computation of the API, run with `recorder` installed, returning its status.
struct Operation {
  const char* name;
  int64_t total;  // pairs it reports as total
  std::function<fc_status(const Context&, const Series&, const Series&)> run;
};

std::vector<Operation> operations() {
  static std::vector<float> f32(static_cast<size_t>(kN * kN));
  static std::vector<double> f64(static_cast<size_t>(kN * kN));
  const int64_t pairs = fc_triu_size(kN);
  return {
      {"fc_pcc_triu row", pairs, [](const Context& c, const Series& a, const Series&) { return fc_pcc_triu(c.get(), a.get(), FC_TRIU_ROW, f32.data(), kN * kN); }},
      {"fc_pcc_triu col", pairs, [](const Context& c, const Series& a, const Series&) { return fc_pcc_triu(c.get(), a.get(), FC_TRIU_COL, f32.data(), kN * kN); }},
      {"fc_pcc_triu_f64", pairs, [](const Context& c, const Series& a, const Series&) { return fc_pcc_triu_f64(c.get(), a.get(), FC_TRIU_ROW, f64.data(), kN * kN); }},
      {"fc_pcc_cross", kN * kM, [](const Context& c, const Series& a, const Series& b) { return fc_pcc_cross(c.get(), a.get(), b.get(), f32.data(), kM); }},
  };
}

class Progress : public ::testing::Test {
 protected:
  void SetUp() override {
    const Dataset d = structured_data(kN + kM, kT, 11u);
    ctx_.memory_limit(8 * kN * 8);  // 8 rows of float64 scratch: dozens of tiles
    a_ = make_series(ctx_, subset(d, 0, kN));
    b_ = make_series(ctx_, subset(d, kN, kM));
  }
  Context ctx_;
  Series a_, b_;
};

TEST_F(Progress, DoneIsMonotoneAndEndsAtTotal) {
  for (const Operation& op : operations()) {
    Recorder r;
    ctx_.progress(record, &r);
    ASSERT_EQ(op.run(ctx_, a_, b_), FC_OK) << op.name << ": " << fc_last_error();
    EXPECT_TRUE(reports_monotone_to(r, op.total)) << op.name;
  }
}

TEST_F(Progress, DenseReportsMonotoneToItsTotal) {
  // The dense matrix's unit count is the backend's business; it must still be consistent.
  Recorder r;
  ctx_.progress(record, &r);
  std::vector<float> out(static_cast<size_t>(kN * kN));
  ASSERT_EQ(fc_pcc_dense(ctx_.get(), a_.get(), out.data(), kN), FC_OK) << fc_last_error();
  ASSERT_FALSE(r.calls.empty());
  EXPECT_TRUE(reports_monotone_to(r, r.calls.front().second));
}

TEST_F(Progress, CancelReturnsAbortedAndStopsReporting) {
  for (const Operation& op : operations()) {
    for (int cancel_at : {1, 3}) {
      Recorder r;
      r.cancel_at_call = cancel_at;
      ctx_.progress(record, &r);
      EXPECT_EQ(op.run(ctx_, a_, b_), FC_ERR_ABORTED) << op.name << " cancelled at report " << cancel_at;
      EXPECT_NE(std::string(fc_last_error()), "") << op.name;
      EXPECT_EQ(r.calls.size(), static_cast<size_t>(cancel_at)) << op.name << ": reports after the cancel";
    }
  }
  // The context stays usable after a cancel.
  Recorder r;
  ctx_.progress(record, &r);
  EXPECT_EQ(operations()[0].run(ctx_, a_, b_), FC_OK) << fc_last_error();
  EXPECT_TRUE(reports_monotone_to(r, fc_triu_size(kN)));
}

TEST_F(Progress, RemovedCallbackIsNotCalled) {
  Recorder r;
  ctx_.progress(record, &r);
  ctx_.progress(nullptr, nullptr);
  EXPECT_EQ(operations()[0].run(ctx_, a_, b_), FC_OK) << fc_last_error();
  EXPECT_TRUE(r.calls.empty());
}

// Across the blocks of an iterator, done continues from block to block up to the triangle.
TEST_F(Progress, BlockIteratorReportsAcrossBlocks) {
  Recorder r;
  ctx_.progress(record, &r);
  const BlockRun run = pull_blocks(ctx_, a_, 17);
  EXPECT_GT(run.infos.size(), 10u);
  EXPECT_TRUE(reports_monotone_to(r, fc_triu_size(kN)));

  Recorder cancel;
  cancel.cancel_at_call = 2;
  ctx_.progress(record, &cancel);
  fc_blocks* it = nullptr;
  ASSERT_EQ(fc_pcc_blocks_begin(ctx_.get(), a_.get(), 17, &it), FC_OK) << fc_last_error();
  std::unique_ptr<fc_blocks, void (*)(fc_blocks*)> owner(it, fc_blocks_destroy);
  std::vector<float> buf(static_cast<size_t>(fc_triu_size(kN)));
  fc_block_info info;
  fc_status st = FC_OK;
  for (int b = 0; b < 100 && st == FC_OK; ++b) st = fc_blocks_next(it, buf.data(), static_cast<int64_t>(buf.size()), &info);
  EXPECT_EQ(st, FC_ERR_ABORTED) << "cancelling during fc_blocks_next";
  EXPECT_EQ(cancel.calls.size(), 2u);
}

}  // namespace
