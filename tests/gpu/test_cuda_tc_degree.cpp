// The degree decided on tensor cores (kernels/tc_degree.cu, the default; FASTCONN_TC_DEGREE=1)
// against the FP32 fused kernel (FASTCONN_TC_DEGREE=0) and against the strength call (which
// always runs the FP32 kernel): the degrees must be the same integers, on structured data,
// on data built so that many pairs sit within 1e-6 of the threshold (with a wide dynamic range
// inside each row), at T = 2 .. 4,000, N around the 128 x 128 tiles, with constant and duplicated
// series, under a memory limit that cuts the triangle into several bands, for every threshold
// rule. FASTCONN_TC_STATS=1 makes the backend print the pairs it recomputed: the tests read it to
// be sure the tensor-core path ran (on sm_80+), and a run with delta forced to 0
// (FASTCONN_TC_DELTA) must differ on the near-t data, so the comparison can fail.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"
#include "scoped_env.hpp"
#include "tc_data.hpp"

namespace {

using namespace fctest;

struct DegreeRun {
  std::vector<int64_t> degree;
  bool tc = false;              // the backend reported a tensor-core run
  long long recomputed = -1;    // pairs it recomputed in FP32
};

enum class Path { TensorCores, Fp32, WithStrength };

// One threshold_degree call on `path` in ctx; stderr is captured for the backend's stats line.
DegreeRun degree_on(const Context& ctx, const Series& s, const fc::EdgeTest& test, Path path) {
  const ScopedEnv stats("FASTCONN_TC_STATS", "1");
  const ScopedEnv tc("FASTCONN_TC_DEGREE", path == Path::TensorCores ? "1" : "0");
  const fc::SeriesView v = s.get()->data->view();
  DegreeRun r{std::vector<int64_t>(static_cast<size_t>(v.n), -1)};
  std::vector<double> strength(static_cast<size_t>(v.n), -1.0);
  fc::Progress progress(nullptr, nullptr, triu_size(v.n));
  const fc::RunSettings run = ctx.get()->state->run_settings(progress);
  testing::internal::CaptureStderr();
  ctx.get()->state->backend->threshold_degree(v, test, r.degree.data(),
                                              path == Path::WithStrength ? strength.data() : nullptr, run);
  const std::string err = testing::internal::GetCapturedStderr();
  const size_t at = err.find("recomputed ");
  if (at != std::string::npos) {
    r.tc = true;
    r.recomputed = std::stoll(err.substr(at + 11));
  }
  return r;
}

// Tensor cores, forced FP32 and the strength call: equal degrees; the tensor-core path ran where
// the device has tensor cores (and, with tc_fits false, the memory limit leaves room for its
// operands), and the others did not. Returns the pairs recomputed.
long long expect_same_degrees(const Dataset& d, const fc::EdgeTest& test, int64_t memory_limit = 0,
                              bool tc_fits = true) {
  SCOPED_TRACE("n " + std::to_string(d.n) + " t " + std::to_string(d.t) + (test.absolute ? " |r| >= " : " r >= ") +
               std::to_string(test.threshold) + " limit " + std::to_string(memory_limit));
  Context ctx(FC_BACKEND_CUDA);
  if (memory_limit > 0) ctx.memory_limit(memory_limit);
  const Series s = make_series(ctx, d);
  const DegreeRun exact = degree_on(ctx, s, test, Path::Fp32);
  const DegreeRun strength = degree_on(ctx, s, test, Path::WithStrength);
  const DegreeRun tc = degree_on(ctx, s, test, Path::TensorCores);
  EXPECT_FALSE(exact.tc);
  EXPECT_FALSE(strength.tc);
  EXPECT_EQ(tc.tc, tensor_cores_here() && d.n > 1 && tc_fits);
  EXPECT_EQ(exact.degree, strength.degree);
  EXPECT_EQ(tc.degree, exact.degree);
  for (int64_t i = 0; i < d.n; ++i)
    if (tc.degree[i] != exact.degree[i]) {
      ADD_FAILURE() << "first differing series " << i << ": " << tc.degree[i] << " vs " << exact.degree[i];
      break;
    }
  return tc.recomputed;
}

const fc::EdgeTest kRules[] = {fc::EdgeTest{true, 0.3f}, fc::EdgeTest{false, 0.3f}, fc::EdgeTest{false, -0.2f},
                               fc::EdgeTest{true, 0.0f}, fc::EdgeTest{true, 1.0f}};

TEST(CudaTcDegree, SameDegreesAsFp32OnStructuredDataAtOddSizes) {
  REQUIRE_CUDA();
  for (const auto& size : kTcOddSizes) {
    Dataset d = structured_data(size[0], size[1], 300 + size[0]);
    if (d.n >= 7) add_constants_and_a_duplicate(d);
    for (const fc::EdgeTest& test : kRules) expect_same_degrees(d, test);
  }
}

TEST(CudaTcDegree, SameDegreesAsFp32WithPairsWithin1e6OfTheThreshold) {
  REQUIRE_CUDA();
  for (const NearThresholdCase& c : kNearThresholdCases) {
    const Dataset d = near_threshold_data(c.n, c.t, c.threshold, c.wide, 77 + c.n);
    const float t = static_cast<float>(c.threshold);
    for (const fc::EdgeTest& test : {fc::EdgeTest{true, t}, fc::EdgeTest{false, t}, fc::EdgeTest{false, -t}}) {
      const long long redo = expect_same_degrees(d, test);
      // Neighbours sit within ~1e-6 of +-t (negated ones on the other side): the band catches them.
      if (tensor_cores_here()) {
        EXPECT_GE(redo, c.n / 3) << "n " << c.n << " t " << c.t;
      }
    }
  }
}

TEST(CudaTcDegree, SameDegreesAsFp32UnderAMemoryLimitOfManyBands) {
  REQUIRE_CUDA();
  // The fused kernels need the k-major copy (168 x 1,408 floats here, 0.95 MB) and 16 bytes a
  // series; the tensor-core operands 1,152 x (176 halves + a float), 0.41 MB, and two band lists
  // of 4,096 pairs, 64 KB. 1.5 MB leaves ~60,000 pairs a band: 9 bands on tensor cores; 1.25 MB
  // leaves no room for the operands: the FP32 kernel, in ~30,000-pair bands.
  const Dataset d = near_threshold_data(1031, 165, 0.4, true, 5);
  for (const fc::EdgeTest& test : {fc::EdgeTest{true, 0.4f}, fc::EdgeTest{false, 0.4f}}) {
    expect_same_degrees(d, test, int64_t(1500) << 10);
    expect_same_degrees(d, test, int64_t(1250) << 10, false);
  }
}

// The comparison can fail: with delta forced to 0 the near-t pairs are decided from their FP16
// r~, about 1e-4 from r, and some degrees must change.
TEST(CudaTcDegree, ZeroBandChangesDegreesOnNearThresholdData) {
  REQUIRE_CUDA();
  if (!tensor_cores_here()) GTEST_SKIP() << "no tensor cores (sm_80+) here";
  const Dataset d = near_threshold_data(601, 165, 0.3, true, 11);
  const fc::EdgeTest test{true, 0.3f};
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  const DegreeRun exact = degree_on(ctx, s, test, Path::Fp32);
  const ScopedEnv zero("FASTCONN_TC_DELTA", "0");
  const DegreeRun tc = degree_on(ctx, s, test, Path::TensorCores);
  ASSERT_TRUE(tc.tc);
  EXPECT_LE(tc.recomputed, 5);  // only r~ within an ulp of t
  EXPECT_NE(tc.degree, exact.degree);
}

}  // namespace
