// The density rule's guess on the device (graph_ops.hpp): the sample's pairs are drawn, computed
// and counted by kernels/pair_sample.cu (about 2^33 bytes of rows: a few milliseconds on an
// H100), and only the bins' counts cross to the host.
#include "backend/cuda/graph_buffers.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "backend/density_guess.hpp"
#include "kernels/graph_tiles.cuh"
#include "kernels/pair_sample.hpp"

namespace fc {
namespace cuda {

bool density_guess(const GraphJob& job, int64_t target, int64_t eligible, float& guess) {
  constexpr int64_t kSampleBytes = int64_t(1) << 33;
  const int64_t samples = density_sample_pairs(job.t, eligible, kSampleBytes);
  if (job.n < 2 || job.n > 0xFFFFFFFFll || samples == 0) return false;
  PipelineResources& res = *job.res;
  const cudaStream_t stream = res.copy_stream();
  DeviceBuffer counts, valid;
  allocate<unsigned long long>(job, counts, kAbsHistogramBins, "the density sample's histogram");
  allocate<unsigned long long>(job, valid, 1, "the density sample's count");
  // After the work the caller queued on its stream (the series may still be in flight).
  FC_CUDA(cudaEventRecord(res.start_event(), job.user_stream));
  FC_CUDA(cudaStreamWaitEvent(stream, res.start_event(), 0));
  zero_async(counts, stream);
  zero_async(valid, stream);
  unsigned long long* const c_dev = counts.get<unsigned long long>();
  unsigned long long* const v_dev = valid.get<unsigned long long>();
  constexpr uint64_t seed = kernels::kDensitySampleSeed;
  check_cuda(job.f64 ? kernels::sample_abs_histogram(static_cast<const double*>(job.rows), job.t, job.n, job.constant, seed,
                                                     samples, kAbsHistogramShift, kAbsHistogramBins, c_dev, v_dev, stream)
                     : kernels::sample_abs_histogram(static_cast<const float*>(job.rows), job.t, job.n, job.constant, seed,
                                                     samples, kAbsHistogramShift, kAbsHistogramBins, c_dev, v_dev, stream),
             "sample_abs_histogram kernel launch");
  std::vector<unsigned long long> c(static_cast<size_t>(kAbsHistogramBins));
  unsigned long long v = 0;
  copy_to_host(c.data(), counts.get(), kAbsHistogramBins, stream);
  copy_to_host(&v, valid.get(), 1, stream);
  FC_CUDA(cudaStreamSynchronize(stream));
  const std::vector<int64_t> hist(c.begin(), c.end());
  return density_guess_from_sample(hist, static_cast<int64_t>(v), target, eligible, guess);
}

}  // namespace cuda
}  // namespace fc
