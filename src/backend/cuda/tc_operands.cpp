// TcOperands (tc_operands.hpp): the tensor-core decisions' operands, lists and arguments.
#include "backend/cuda/tc_operands.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "backend/cuda/cuda_check.hpp"
#include "base/triangle_index.hpp"
#include "kernels/tc_bound.hpp"

namespace fc {
namespace cuda {

int64_t TcOperands::bytes(int64_t n, int64_t t, int64_t list_pairs) {
  return kernels::tc_rows_pad(n) * (kernels::tc_k_pad(t) * 2 + 4) +
         PipelineResources::kComputeStreams * (list_pairs * 8 + 8) + 8;
}

namespace {

// buffer holds at least `bytes` (grown when not).
bool hold(DeviceBuffer& buffer, int device, int64_t bytes) {
  return buffer.bytes() >= static_cast<size_t>(bytes) || buffer.try_allocate(device, static_cast<size_t>(bytes));
}

}  // namespace

bool TcOperands::reserve(const GraphJob& job, int64_t list_pairs, int64_t bit_words) {
  const int dev = job.res->device();
  if (job.f64 || job.z.kmajor == nullptr || job.n >= (int64_t(1) << 32) || !kernels::tc_degree_available(dev))
    return false;
  const int64_t bits_bytes = PipelineResources::kComputeStreams * bit_words * 4;
  if (job.memory_left >= 0 && bytes(job.n, job.t, list_pairs) + bits_bytes > job.memory_left) return false;
  k_pad = kernels::tc_k_pad(job.t);
  const int64_t n_pad = kernels::tc_rows_pad(job.n);
  bool ok = hold(halves, dev, n_pad * k_pad * 2) && hold(row_delta, dev, n_pad * int64_t(sizeof(float))) &&
            hold(counts, dev, PipelineResources::kComputeStreams * int64_t(sizeof(unsigned long long))) &&
            hold(recomputed, dev, sizeof(unsigned long long));
  for (DeviceBuffer& b : pairs) ok = ok && hold(b, dev, list_pairs * int64_t(sizeof(uint2)));
  for (DeviceBuffer& b : bits) ok = ok && (bit_words == 0 || hold(b, dev, bit_words * 4));
  if (!ok) {
    *this = TcOperands{};
    return false;
  }
  capacity = static_cast<int64_t>(pairs[0].bytes() / sizeof(uint2));
  return true;
}

void TcOperands::prepare(const GraphJob& job, const kernels::EdgeRule& rule, bool edges, unsigned long long* degree,
                         cudaStream_t stream, const float* row_threshold) {
  const int64_t t_pad = job.z.t_pad;
  // FASTCONN_TC_DELTA replaces the bound by one delta for every pair, for the test that shows a
  // too-narrow band is caught.
  const char* delta_env = std::getenv("FASTCONN_TC_DELTA");
  const float pair_constant =
      delta_env != nullptr ? std::strtof(delta_env, nullptr) : kernels::tc_pair_constant(job.t, t_pad, k_pad);
  max_delta = delta_env != nullptr ? pair_constant : kernels::tc_max_delta(job.t, t_pad, k_pad);
  check_cuda(kernels::tc_degree_prepare(static_cast<const float*>(job.rows), job.t, job.n, job.constant, k_pad,
                                        delta_env != nullptr ? 0.0 : kernels::tc_row_factor(job.t),
                                        halves.get<uint16_t>(), row_delta.get<float>(), stream),
             "tc_degree_prepare kernel launch");
  FC_CUDA(cudaMemsetAsync(recomputed.get(), 0, sizeof(unsigned long long), stream));
  kernels::TcCutoffs cut = kernels::tc_cutoffs(rule.absolute != 0, rule.threshold, max_delta);
  // Edge mode needs every passing pair's r: none passes on the product alone.
  if (edges) cut.pass_from = std::numeric_limits<float>::infinity();
  constexpr float kScale = 65536.0f;  // 2^(2 kTcScaleBits): the products' scale
  args = kernels::TcDegreeArgs{};
  args.halves = halves.get<uint16_t>();
  args.k_pad = k_pad;
  args.row_delta = row_delta.get<float>();
  args.pair_constant = pair_constant * kScale;
  args.threshold_scaled = kernels::tc_threshold(rule.absolute != 0, rule.threshold) * kScale;
  args.cut = kernels::TcCutoffs{cut.fail_below * kScale, cut.pass_from * kScale};
  args.rows = static_cast<const float*>(job.rows);
  args.t = static_cast<int>(job.t);
  args.n = job.n;
  args.constant = job.constant;
  args.rule = rule;
  args.degree = degree;
  args.recomputed = recomputed.get<unsigned long long>();
  args.row_threshold = edges ? row_threshold : nullptr;
  args.max_delta_scaled = max_delta * kScale;
  FC_CUDA(cudaDeviceGetAttribute(&recompute_blocks, cudaDevAttrMultiProcessorCount, job.res->device()));
  recompute_blocks *= 16;  // 4 warps each: up to 6 blocks an SM fill it with loads in flight
  FC_CUDA(cudaStreamSynchronize(stream));
}

kernels::TcBandList TcOperands::list(int s) {
  return kernels::TcBandList{pairs[s].get<uint2>(), counts.get<unsigned long long>() + s, capacity};
}

kernels::TcDegreeArgs TcOperands::band(int64_t q0, int64_t q1, int s) {
  kernels::TcDegreeArgs b = args;
  b.q0 = q0;
  b.q1 = q1;
  b.row_tiles = (q1 - q0 + kernels::kFusedTile - 1) / kernels::kFusedTile;
  b.col_tiles = (args.n - q0 + kernels::kFusedTile - 1) / kernels::kFusedTile;
  b.list = list(s);
  return b;
}

void TcOperands::report(const GraphJob& job, const char* what, cudaStream_t stream) {
  const char* env = std::getenv("FASTCONN_TC_STATS");
  if (env == nullptr || std::strcmp(env, "0") == 0) return;
  unsigned long long redone = 0;
  FC_CUDA(cudaMemcpyAsync(&redone, recomputed.get(), sizeof redone, cudaMemcpyDeviceToHost, stream));
  FC_CUDA(cudaStreamSynchronize(stream));
  const int64_t pairs = row_start(job.n, job.row_end) - row_start(job.n, job.row_begin);
  std::fprintf(stderr, "fastconn tc_%s: n %lld t %lld max delta %.3e recomputed %llu of %lld pairs\n", what,
               static_cast<long long>(job.n), static_cast<long long>(job.t), double(max_delta), redone,
               static_cast<long long>(pairs));
}

}  // namespace cuda
}  // namespace fc
