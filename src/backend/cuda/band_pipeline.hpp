// The pipeline that computes bands on the device and delivers them to the output, overlapping
// GEMM, extraction, device-to-host copies and host-side copies:
//
//   compute stream k%2:  GEMM band k into tile k%2 -> finish it into packed buffer k%2
//   copy stream:         wait band k ready -> D2H (direct into a pinned/registered output, or
//                        chunk by chunk into the pinned staging ring)
//   host pool:           ring slot -> pageable output, split across threads
//   calling thread:      enqueues, hands finished ring slots to the pool, reports progress in
//                        band order (progress callbacks run on this thread only)
//
// Device outputs skip the copies: the finishing kernel writes straight into them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/host_copy_pool.hpp"
#include "base/progress.hpp"

namespace fc {
namespace cuda {

// Streams, cuBLAS handles and buffers of one backend, created once and reused by every run.
class PipelineResources {
 public:
  static constexpr int kComputeStreams = 2;
  static constexpr int kBandsInFlight = 4;
  // The staging ring: slots x slot size, 64 MiB pinned in all. Into fresh memory on the H100
  // machine 16 x 4 MiB ran as fast as 4 x 32 or 8 x 16 MiB (within run-to-run noise) with half
  // the pinned memory; slots of 1-2 MiB were slower (bench/RESULTS-gpu.md).
  // FASTCONN_CUDA_RING="slots,MiB" overrides it (bench/gpu sweeps it).
  static constexpr int kRingSlots = 16;
  static constexpr size_t kRingSlotMiB = 4;

  explicit PipelineResources(int device);

  int device() const { return device_; }
  cudaStream_t compute_stream(int i) const { return compute_[i]->get(); }
  // The network primitives' passes over tile i (cuda_graph.cpp): a stream of the device's highest
  // priority, so that the block scheduler starts a pass's blocks as soon as the running GEMM's
  // blocks leave room, instead of after every block of the GEMMs queued before it. gemm_done(i):
  // the GEMM into tile i is complete; pass_done(i): the pass has read tile i.
  cudaStream_t pass_stream(int i) const { return pass_[i]->get(); }
  cudaEvent_t gemm_done(int i) const { return gemm_done_[i]->get(); }
  cudaEvent_t pass_done(int i) const { return pass_done_[i]->get(); }
  cublasHandle_t blas(int i) const { return blas_[i]->get(); }
  cudaStream_t copy_stream() const { return copy_.get(); }
  // The CSR assembly's (cuda_csr.cpp: build_csr): apart from the compute streams, so that the
  // next graph's GEMMs start while it runs.
  cudaStream_t assembly_stream() const { return assembly_.get(); }

  // Tiles (storage type) and packed buffers (output type) of `tile_values` values each; keeps
  // the current ones when they are large enough. false when the device is out of memory.
  bool reserve(int64_t tile_values, size_t tile_elem, size_t packed_elem, int packed_count);
  void* tile(int i) const { return tiles_[i].get(); }
  void* packed(int i) const { return packed_[i].get(); }
  void release_buffers();

  // The pinned ring and the copy pool, created on the first pageable output.
  void ensure_staging(int threads);
  int ring_slots() const { return static_cast<int>(ring_events_.size()); }
  size_t ring_slot_bytes() const { return ring_slot_bytes_; }
  char* ring_slot(int i) const { return ring_.get() + static_cast<size_t>(i) * ring_slot_bytes_; }
  cudaEvent_t ring_event(int i) const { return ring_events_[static_cast<size_t>(i)]->get(); }
  HostCopyPool& pool() { return *pool_; }

  // Per-band events (ready on the device, delivered) and packed-buffer release events.
  cudaEvent_t band_ready(int i) const { return band_ready_[i]->get(); }
  cudaEvent_t band_done(int i) const { return band_done_[i]->get(); }
  cudaEvent_t packed_free(int i) const { return packed_free_[i]->get(); }
  cudaEvent_t start_event() const { return start_.get(); }

  // Waits for all work on the backend's streams, ignoring errors (used while unwinding).
  void quiesce() noexcept;

  // `bytes` of device memory into host memory `dst` by a kernel's stores into a mapped pinned
  // buffer (kernels/host_store.cuh), after the stream's work so far; returns when they are in
  // `dst`. For small reads that must not queue behind a large copy out on another stream.
  void read_small(void* dst, const void* src, size_t bytes, cudaStream_t stream);

  // Page-locked host memory of at least `bytes` (grown, not kept smaller): copy_csr's target for
  // a graph's offsets, which it holds until its copies are complete. One user at a time.
  char* pinned_scratch(size_t bytes) {
    if (pinned_scratch_.bytes() < bytes) pinned_scratch_.allocate(bytes);
    return pinned_scratch_.get();
  }

 private:
  int device_;
  std::unique_ptr<Stream> compute_[kComputeStreams], pass_[kComputeStreams];
  std::unique_ptr<Event> gemm_done_[kComputeStreams], pass_done_[kComputeStreams];
  std::unique_ptr<CublasHandle> blas_[kComputeStreams];
  Stream copy_, assembly_;
  Event start_;
  std::unique_ptr<Event> band_ready_[kBandsInFlight], band_done_[kBandsInFlight];
  std::unique_ptr<Event> packed_free_[kComputeStreams];
  DeviceBuffer tiles_[kComputeStreams], packed_[kComputeStreams];
  int64_t tile_values_ = 0;
  size_t tile_elem_ = 0, packed_elem_ = 0;
  int packed_count_ = 0;
  PinnedBuffer ring_;
  PinnedBuffer readback_;  // read_small's, mapped; grows to the largest read
  PinnedBuffer pinned_scratch_;
  size_t ring_slot_bytes_ = 0;
  std::vector<std::unique_ptr<Event>> ring_events_;
  std::unique_ptr<HostCopyPool> pool_;
};

// Where the finished values go.
enum class Destination { Device, PinnedHost, PageableHost };

// One band as the pipeline moves it: rows x width values (contiguous in the packed buffer),
// landing at dst_offset values from the output base with a row pitch of dst_pitch values.
struct BandTransfer {
  int64_t values = 0;  // progress units
  int64_t rows = 1, width = 0;
  int64_t dst_offset = 0, dst_pitch = 0;
};

// Enqueues band k's device work on `stream`: GEMM into `tile`, then the finishing kernel into
// `packed` (host destinations) or straight into the device output (packed == nullptr).
using ComputeBand = std::function<void(size_t k, cudaStream_t stream, cublasHandle_t blas, void* tile, void* packed)>;

// Runs every band; returns when all values are in the output. On any exception (a CUDA error,
// or FC_ERR_ABORTED from the progress callback) the streams are drained and the copy pool
// emptied before it propagates: nothing is left running.
void run_bands(PipelineResources& res, Destination dest, char* out_base, size_t out_elem, cudaStream_t user_stream,
               int host_threads, const std::vector<BandTransfer>& bands, const ComputeBand& compute, Progress& progress);

// Classifies a host output range: pinned or registered (direct D2H) or pageable.
Destination classify_host_output(const void* begin, size_t bytes);

}  // namespace cuda
}  // namespace fc
