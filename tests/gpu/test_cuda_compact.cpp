// The compact value formats on the CUDA backend (fc_pcc_triu_compact, fc_pcc_dense_compact,
// fc_blocks_next_compact, fc_dfc_triu_compact): the codes are encoded on the GPU before the copy
// to the host, from the same r as the CPU backend's (FP32 and FP64 modes), with the same
// conversion (kernels/compact_values.cuh), so every code must equal the CPU context's, bit for
// bit: in both orders, into pageable and pinned memory, under a memory limit that splits the
// triangle into many bands, with constant series under both policies, at odd sizes. The codes
// are also the nearest codes of the CUDA context's own float triangle.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

const fc_value_format kFormats[] = {FC_VALUES_INT16, FC_VALUES_HALF};

// Pinned host memory of `count` codes (cudaMallocHost), freed on scope exit.
class Pinned {
 public:
  explicit Pinned(size_t count) {
    if (cudaMallocHost(&p_, std::max<size_t>(count, 1) * 2) != cudaSuccess) throw std::runtime_error("cudaMallocHost failed");
  }
  ~Pinned() { cudaFreeHost(p_); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  uint16_t* get() const { return static_cast<uint16_t*>(p_); }

 private:
  void* p_ = nullptr;
};

std::vector<uint16_t> triu_codes(const Context& c, const Series& s, fc_triu_order order, fc_value_format f) {
  const int64_t pairs = triu_size(s.n_series());
  std::vector<uint16_t> out(static_cast<size_t>(pairs) + 1, 0xABCD);
  check(fc_pcc_triu_compact(c.get(), s.get(), order, f, out.data(), pairs), "fc_pcc_triu_compact");
  out.pop_back();
  return out;
}

// Codes that differ, with the first one named (a failure message to read, not a count alone).
::testing::AssertionResult same_codes(const std::vector<uint16_t>& a, const uint16_t* b, size_t n) {
  size_t differ = 0, first = 0;
  for (size_t x = 0; x < n; ++x)
    if (a[x] != b[x] && differ++ == 0) first = x;
  if (differ == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differ << " of " << n << " codes differ (first at " << first << ": "
                                       << a[first] << " vs " << b[first] << ")";
}

// The nearest code of r (the documented rule, written out; NaN: the format's NaN code).
bool nearest(uint16_t code, double r, fc_value_format f) {
  double v = 0;
  EXPECT_EQ(fc_decode_values_f64(f, &code, 1, &v), FC_OK);
  if (std::isnan(r)) return std::isnan(v);
  if (f == FC_VALUES_INT16) return std::fabs(static_cast<int16_t>(code) - 32767.0 * r) <= 0.5;
  // no neighbouring half is nearer
  const uint16_t up = static_cast<uint16_t>(code + 1), down = static_cast<uint16_t>(code - 1);
  double vu = 0, vd = 0;
  fc_decode_values_f64(f, &up, 1, &vu);
  fc_decode_values_f64(f, &down, 1, &vd);
  const double e = std::fabs(v - r);
  return (std::isnan(vu) || e <= std::fabs(vu - r)) && (std::isnan(vd) || e <= std::fabs(vd - r));
}

struct Case {
  int64_t n, t;
  fc_precision precision;
  fc_constant_policy policy;
  int64_t memory_limit;
};

std::string name(const Case& k, fc_value_format f) {
  return "N=" + std::to_string(k.n) + " T=" + std::to_string(k.t) + " precision " + std::to_string(k.precision) +
         " policy " + std::to_string(k.policy) + " limit " + std::to_string(k.memory_limit) + " format " +
         std::to_string(f);
}

TEST(CudaCompact, TriangleDenseBlocksSameBitsAsCpu) {
  REQUIRE_CUDA();
  const Case cases[] = {{1, 50, FC_PRECISION_FP32, FC_CONSTANT_NAN, 0},   {2, 50, FC_PRECISION_FP32, FC_CONSTANT_NAN, 0},
                        {3, 7, FC_PRECISION_FP32, FC_CONSTANT_ZERO, 0},   {37, 165, FC_PRECISION_FP32, FC_CONSTANT_NAN, 0},
                        {1021, 165, FC_PRECISION_FP32, FC_CONSTANT_NAN, 0},
                        {1021, 165, FC_PRECISION_FP32, FC_CONSTANT_ZERO, int64_t(1) << 20},
                        {2003, 97, FC_PRECISION_FP64, FC_CONSTANT_NAN, 0},
                        {4099, 200, FC_PRECISION_FP32, FC_CONSTANT_NAN, int64_t(4) << 20}};
  for (const Case& k : cases) {
    Dataset d = structured_data(k.n, k.t, static_cast<uint64_t>(k.n * 31 + k.t));
    if (k.n >= 3) make_constant(d, k.n / 3, 7.0);
    Context cpu(FC_BACKEND_CPU), gpu(FC_BACKEND_CUDA);
    for (Context* c : {&cpu, &gpu}) c->precision(k.precision).policy(k.policy).memory_limit(k.memory_limit);
    const Series sc = make_series(cpu, d), sg = make_series(gpu, d);
    const int64_t n = k.n, pairs = triu_size(n);
    const std::vector<double> r_gpu = pcc_triu_f64(gpu, sg, FC_TRIU_ROW);
    for (fc_value_format f : kFormats) {
      SCOPED_TRACE(name(k, f));
      for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
        const std::vector<uint16_t> want = triu_codes(cpu, sc, order, f);
        const std::vector<uint16_t> got = triu_codes(gpu, sg, order, f);
        EXPECT_TRUE(same_codes(want, got.data(), want.size())) << "order " << order;
        // into pinned memory (the pipeline's direct copies)
        Pinned pinned(static_cast<size_t>(pairs));
        ASSERT_EQ(fc_pcc_triu_compact(gpu.get(), sg.get(), order, f, pinned.get(), pairs), FC_OK) << fc_last_error();
        EXPECT_TRUE(same_codes(want, pinned.get(), want.size())) << "pinned, order " << order;
      }
      const std::vector<uint16_t> row = triu_codes(gpu, sg, FC_TRIU_ROW, f);
      int64_t far = 0;
      for (int64_t p = 0; p < pairs; ++p) far += nearest(row[static_cast<size_t>(p)], r_gpu[static_cast<size_t>(p)], f) ? 0 : 1;
      EXPECT_EQ(far, 0) << "codes that are not the nearest to the CUDA context's r";

      if (n <= 2003) {  // dense: n^2 codes
        std::vector<uint16_t> dc(static_cast<size_t>(n * (n + 1))), dg(dc.size());
        ASSERT_EQ(fc_pcc_dense_compact(cpu.get(), sc.get(), f, dc.data(), n + 1), FC_OK) << fc_last_error();
        ASSERT_EQ(fc_pcc_dense_compact(gpu.get(), sg.get(), f, dg.data(), n + 1), FC_OK) << fc_last_error();
        for (int64_t i = 0; i < n; ++i) dc[static_cast<size_t>(i * (n + 1) + n)] = dg[static_cast<size_t>(i * (n + 1) + n)] = 0;
        EXPECT_TRUE(same_codes(dc, dg.data(), dc.size())) << "dense";
      }

      // blocks of 5 rows, pulled
      fc_blocks* it = nullptr;
      ASSERT_EQ(fc_pcc_blocks_begin(gpu.get(), sg.get(), 5, &it), FC_OK);
      std::vector<uint16_t> blocks(static_cast<size_t>(pairs) + 1);
      fc_block_info info;
      int64_t offset = 0;
      fc_status st;
      while ((st = fc_blocks_next_compact(it, f, blocks.data() + offset, pairs + 1 - offset, &info)) == FC_OK) {
        EXPECT_EQ(info.triu_offset, offset);
        offset += info.count;
      }
      EXPECT_EQ(st, FC_DONE) << fc_last_error();
      EXPECT_EQ(offset, pairs);
      fc_blocks_destroy(it);
      EXPECT_TRUE(same_codes(row, blocks.data(), row.size())) << "blocks";
    }
  }
}

TEST(CudaCompact, WindowsSameBitsAsCpu) {
  REQUIRE_CUDA();
  // step 1 (the batched path) and a larger step; N odd, a series constant in the first windows
  const int64_t n = 301, t = 260, length = 60;
  Dataset d = structured_data(n, t, 5);
  for (int64_t k = 0; k < 70; ++k) d.at(11, k) = 3.0;
  Context cpu(FC_BACKEND_CPU), gpu(FC_BACKEND_CUDA);
  const Series sc = make_series(cpu, d), sg = make_series(gpu, d);
  const int64_t pairs = triu_size(n);
  for (int64_t step : {1, 17}) {
    const int64_t w = fc_window_count(t, length, step);
    for (fc_value_format f : kFormats) {
      SCOPED_TRACE("step " + std::to_string(step) + " format " + std::to_string(f));
      std::vector<uint16_t> want(static_cast<size_t>(w * pairs)), got(want.size());
      ASSERT_EQ(fc_dfc_triu_compact(cpu.get(), sc.get(), length, step, FC_TAPER_RECTANGULAR, 0, FC_TRIU_ROW, f, want.data(),
                                    w * pairs),
                FC_OK)
          << fc_last_error();
      ASSERT_EQ(fc_dfc_triu_compact(gpu.get(), sg.get(), length, step, FC_TAPER_RECTANGULAR, 0, FC_TRIU_ROW, f, got.data(),
                                    w * pairs),
                FC_OK)
          << fc_last_error();
      EXPECT_TRUE(same_codes(want, got.data(), want.size()));
      Pinned pinned(want.size());
      ASSERT_EQ(fc_dfc_triu_compact(gpu.get(), sg.get(), length, step, FC_TAPER_RECTANGULAR, 0, FC_TRIU_COL, f,
                                    pinned.get(), w * pairs),
                FC_OK)
          << fc_last_error();
      std::vector<uint16_t> col(want.size());
      ASSERT_EQ(fc_dfc_triu_compact(cpu.get(), sc.get(), length, step, FC_TAPER_RECTANGULAR, 0, FC_TRIU_COL, f, col.data(),
                                    w * pairs),
                FC_OK);
      EXPECT_TRUE(same_codes(col, pinned.get(), col.size())) << "pinned, column order";
    }
  }
}

TEST(CudaCompact, RefusalsLeaveTheBufferUntouched) {
  REQUIRE_CUDA();
  Context gpu(FC_BACKEND_CUDA);
  const Series s = make_series(gpu, structured_data(40, 30, 3));
  std::vector<uint16_t> buf(800, 0xABCD);
  EXPECT_EQ(fc_pcc_triu_compact(gpu.get(), s.get(), FC_TRIU_ROW, static_cast<fc_value_format>(3), buf.data(), 780),
            FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("format 3"), std::string::npos) << fc_last_error();
  EXPECT_EQ(fc_pcc_triu_compact(gpu.get(), s.get(), FC_TRIU_ROW, FC_VALUES_HALF, buf.data(), 779), FC_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(fc_pcc_dense_compact(gpu.get(), s.get(), static_cast<fc_value_format>(0), buf.data(), 40), FC_ERR_INVALID_ARG);
  for (uint16_t v : buf) ASSERT_EQ(v, 0xABCD);
}

}  // namespace
