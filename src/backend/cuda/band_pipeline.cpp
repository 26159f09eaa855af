#include "backend/cuda/band_pipeline.hpp"

#include "backend/cuda/staging_ring.hpp"
#include "kernels/host_store.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>

namespace fc {
namespace cuda {

PipelineResources::PipelineResources(int device) : device_(device) {
  int least = 0, greatest = 0;
  FC_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int i = 0; i < kComputeStreams; ++i) {
    compute_[i] = std::make_unique<Stream>();
    pass_[i] = std::make_unique<Stream>(greatest);
    gemm_done_[i] = std::make_unique<Event>();
    pass_done_[i] = std::make_unique<Event>();
    blas_[i] = std::make_unique<CublasHandle>(compute_[i]->get());
    packed_free_[i] = std::make_unique<Event>();
  }
  for (int i = 0; i < kBandsInFlight; ++i) {
    band_ready_[i] = std::make_unique<Event>();
    band_done_[i] = std::make_unique<Event>();
  }
}

bool PipelineResources::reserve(int64_t tile_values, size_t tile_elem, size_t packed_elem, int packed_count) {
  const size_t tile_bytes = static_cast<size_t>(tile_values) * tile_elem;
  const size_t packed_bytes = packed_count > 0 ? static_cast<size_t>(tile_values) * packed_elem : 0;
  if (tiles_[0].bytes() == tile_bytes && packed_count_ == packed_count && packed_[0].bytes() == packed_bytes) return true;
  release_buffers();  // free first: the old and new sets need not fit together
  for (int i = 0; i < kComputeStreams; ++i)
    if (!tiles_[i].try_allocate(device_, tile_bytes)) return release_buffers(), false;
  for (int i = 0; i < packed_count; ++i)
    if (!packed_[i].try_allocate(device_, packed_bytes)) return release_buffers(), false;
  tile_values_ = tile_values;
  tile_elem_ = tile_elem;
  packed_elem_ = packed_elem;
  packed_count_ = packed_count;
  return true;
}

void PipelineResources::release_buffers() {
  for (int i = 0; i < kComputeStreams; ++i) {
    tiles_[i].release();
    packed_[i].release();
  }
  tile_values_ = 0;
  packed_count_ = 0;
}

void PipelineResources::ensure_staging(int threads) {
  int slots = kRingSlots;
  size_t mib = kRingSlotMiB;
  if (const char* env = std::getenv("FASTCONN_CUDA_RING")) {
    int s = 0, m = 0;
    if (std::sscanf(env, "%d,%d", &s, &m) == 2 && s >= 2 && s <= 256 && m >= 1 && m <= 1024) {
      slots = s;
      mib = static_cast<size_t>(m);
    }
  }
  if (ring_.get() == nullptr || ring_slots() != slots || ring_slot_bytes_ != (mib << 20)) {
    pool_.reset();  // its groups are the ring's slots
    ring_events_.clear();
    ring_slot_bytes_ = mib << 20;
    ring_.allocate(static_cast<size_t>(slots) * ring_slot_bytes_);
    for (int i = 0; i < slots; ++i) ring_events_.push_back(std::make_unique<Event>());
  }
  if (!pool_ || pool_->threads() != threads) {
    pool_.reset();
    pool_ = std::make_unique<HostCopyPool>(threads, slots);
  }
}

void PipelineResources::quiesce() noexcept {
  for (int i = 0; i < kComputeStreams; ++i) {
    if (compute_[i]) cudaStreamSynchronize(compute_[i]->get());
    if (pass_[i]) cudaStreamSynchronize(pass_[i]->get());
  }
  cudaStreamSynchronize(copy_.get());
  cudaStreamSynchronize(assembly_.get());
  cudaGetLastError();
  if (pool_) pool_->cancel_all();
}

void PipelineResources::read_small(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (readback_.bytes() < bytes) readback_.allocate(std::max<size_t>(bytes, 4096), true);
  check_cuda(kernels::store_to_host(src, readback_.device(), bytes, stream), "store_to_host kernel launch");
  FC_CUDA(cudaStreamSynchronize(stream));
  std::memcpy(dst, readback_.get(), bytes);
}

Destination classify_host_output(const void* begin, size_t bytes) {
  auto type_of = [](const void* p) {
    cudaPointerAttributes a;
    std::memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();  // older drivers report plain host memory as an error
      return cudaMemoryTypeUnregistered;
    }
    return a.type;
  };
  const cudaMemoryType first = type_of(begin);
  if (first == cudaMemoryTypeDevice)
    fail(FC_ERR_INVALID_ARG, "out is device memory; pass device pointers to the *_device functions of fastconn_cuda.h");
  const cudaMemoryType last = bytes > 0 ? type_of(static_cast<const char*>(begin) + bytes - 1) : first;
  auto direct = [](cudaMemoryType t) { return t == cudaMemoryTypeHost || t == cudaMemoryTypeManaged; };
  return direct(first) && direct(last) ? Destination::PinnedHost : Destination::PageableHost;
}

namespace {

class Runner {
 public:
  Runner(PipelineResources& res, Destination dest, char* out, size_t elem, int threads,
         const std::vector<BandTransfer>& bands, const ComputeBand& compute, Progress& progress)
      : res_(res), dest_(dest), out_(out), elem_(elem), threads_(threads), bands_(bands), compute_(compute),
        progress_(progress), first_chunk_(bands.size(), 0), end_chunk_(bands.size(), 0), ring_(res, threads) {}

  ~Runner() {
    if (!finished_) res_.quiesce();
  }

  void run() {
    for (size_t k = 0; k < bands_.size(); ++k) {
      while (in_flight_.size() >= static_cast<size_t>(PipelineResources::kBandsInFlight)) complete_front();
      while (!in_flight_.empty() && band_complete(in_flight_.front(), false)) complete_front();
      enqueue(k);
    }
    while (!in_flight_.empty()) complete_front();
    ring_.finish();  // every chunk was waited for: this only tells the ring so
    finished_ = true;
  }

 private:
  static constexpr int kK = PipelineResources::kBandsInFlight;

  void enqueue(size_t k) {
    const int s = static_cast<int>(k % PipelineResources::kComputeStreams);
    const cudaStream_t stream = res_.compute_stream(s);
    const bool host = dest_ != Destination::Device;
    // packed buffer s is reused by band k once band k-2's copies out of it are done
    if (host && k >= static_cast<size_t>(PipelineResources::kComputeStreams))
      FC_CUDA(cudaStreamWaitEvent(stream, res_.packed_free(s), 0));
    compute_(k, stream, res_.blas(s), res_.tile(s), host ? res_.packed(s) : nullptr);
    FC_CUDA(cudaEventRecord(res_.band_ready(k % kK), stream));
    if (dest_ == Destination::PinnedHost) transfer_direct(k, s);
    else if (dest_ == Destination::PageableHost) transfer_staged(k, s);
    in_flight_.push_back(k);
  }

  void transfer_direct(size_t k, int s) {
    const BandTransfer& b = bands_[k];
    const cudaStream_t copy = res_.copy_stream();
    FC_CUDA(cudaStreamWaitEvent(copy, res_.band_ready(k % kK), 0));
    copy_rows(out_ + b.dst_offset * elem_, b.dst_pitch * elem_, static_cast<const char*>(res_.packed(s)),
              b.width * elem_, b.width * elem_, b.rows, cudaMemcpyDefault, copy);
    FC_CUDA(cudaEventRecord(res_.packed_free(s), copy));
    FC_CUDA(cudaEventRecord(res_.band_done(k % kK), copy));
  }

  // Chunks of at most one ring slot: whole rows when a row fits, else pieces of one row.
  void transfer_staged(size_t k, int s) {
    const BandTransfer& b = bands_[k];
    const cudaStream_t copy = res_.copy_stream();
    FC_CUDA(cudaStreamWaitEvent(copy, res_.band_ready(k % kK), 0));
    const int64_t slot_values = static_cast<int64_t>(res_.ring_slot_bytes() / elem_);
    const char* packed = static_cast<const char*>(res_.packed(s));
    first_chunk_[k] = ring_.next_seq();
    auto stage = [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
      ring_.stage(packed + (r0 * b.width + c0) * elem_, b.width * elem_,
                  out_ + (b.dst_offset + r0 * b.dst_pitch + c0) * elem_, b.dst_pitch * elem_,
                  static_cast<size_t>(cols) * elem_, static_cast<size_t>(rows));
      ring_.dispatch_ready();
    };
    if (b.width <= slot_values) {
      const int64_t per = slot_values / b.width;
      for (int64_t r = 0; r < b.rows; r += per) stage(r, std::min(per, b.rows - r), 0, b.width);
    } else {
      for (int64_t r = 0; r < b.rows; ++r)
        for (int64_t c = 0; c < b.width; c += slot_values) stage(r, 1, c, std::min(slot_values, b.width - c));
    }
    end_chunk_[k] = ring_.next_seq();
    FC_CUDA(cudaEventRecord(res_.packed_free(s), copy));
  }

  bool band_complete(size_t k, bool wait) {
    if (dest_ == Destination::PageableHost) {
      if (!wait) ring_.dispatch_ready();
      for (int64_t c = first_chunk_[k]; c < end_chunk_[k]; ++c) {
        if (wait) ring_.wait_chunk(c);
        else if (!ring_.chunk_done(c)) return false;
      }
      return true;
    }
    const cudaEvent_t e = dest_ == Destination::Device ? res_.band_ready(k % kK) : res_.band_done(k % kK);
    if (wait) {
      FC_CUDA(cudaEventSynchronize(e));
      return true;
    }
    const cudaError_t status = cudaEventQuery(e);
    if (status == cudaErrorNotReady) return false;
    check_cuda(status, "cudaEventQuery");
    return true;
  }

  // Waits for the oldest band and reports it (the progress callback may throw FC_ERR_ABORTED).
  void complete_front() {
    const size_t k = in_flight_.front();
    band_complete(k, true);
    in_flight_.pop_front();
    progress_.advance(bands_[k].values);
  }

  PipelineResources& res_;
  Destination dest_;
  char* out_;
  size_t elem_;
  int threads_;
  const std::vector<BandTransfer>& bands_;
  const ComputeBand& compute_;
  Progress& progress_;
  std::deque<size_t> in_flight_;
  std::vector<int64_t> first_chunk_, end_chunk_;  // per band: its chunks [first, end) in the ring
  StagingRing ring_;
  bool finished_ = false;
};

}  // namespace

void run_bands(PipelineResources& res, Destination dest, char* out_base, size_t out_elem, cudaStream_t user_stream,
               int host_threads, const std::vector<BandTransfer>& bands, const ComputeBand& compute, Progress& progress) {
  if (bands.empty()) return;
  // Order this run after the work the caller queued on its stream.
  FC_CUDA(cudaEventRecord(res.start_event(), user_stream));
  for (int i = 0; i < PipelineResources::kComputeStreams; ++i)
    FC_CUDA(cudaStreamWaitEvent(res.compute_stream(i), res.start_event(), 0));
  FC_CUDA(cudaStreamWaitEvent(res.copy_stream(), res.start_event(), 0));
  if (dest == Destination::PageableHost) {
    res.ensure_staging(host_threads);
    const BandTransfer& first = bands.front();
    const BandTransfer& last = bands.back();
    const int64_t end = last.dst_offset + (last.rows - 1) * last.dst_pitch + last.width;
    advise_huge_pages(out_base + first.dst_offset * out_elem, static_cast<size_t>(end - first.dst_offset) * out_elem);
  }
  Runner runner(res, dest, out_base, out_elem, host_threads, bands, compute, progress);
  runner.run();
}

}  // namespace cuda
}  // namespace fc
