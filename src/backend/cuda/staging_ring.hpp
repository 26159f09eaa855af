// Device-to-pageable-host copies through the pinned staging ring of PipelineResources, shared by
// the PCC band pipeline (band_pipeline.cpp) and the network edge copy-out (cuda_graph.cpp).
//
// A chunk of at most one ring slot is copied D2H on the copy stream into the next slot; once it
// has landed, the calling thread hands it to the host copy pool, which moves it to its place with
// several threads. A slot is reused only after its previous chunk has left it. All bookkeeping
// happens on the calling thread; nothing blocks unless a slot or a chunk is waited for.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/host_copy_pool.hpp"
#include "base/huge_pages.hpp"  // advise_huge_pages, for fresh pageable outputs

namespace fc {
namespace cuda {

// rows x width bytes between pitched buffers; one row is a plain copy (2D copies limit the pitch).
void copy_rows(char* dst, size_t dst_pitch, const char* src, size_t src_pitch, size_t width, size_t rows,
               cudaMemcpyKind kind, cudaStream_t stream);


class StagingRing {
 public:
  // `res` must already have its staging ring (PipelineResources::ensure_staging).
  StagingRing(PipelineResources& res, int threads);
  // When chunks are still on their way (a copy-out that unwinds: a failed CUDA call, a cancel),
  // waits for the copy stream and for the pool's running pieces, and drops the queued ones: the
  // pool never writes into a destination after the ring is gone (the caller's arrays are freed
  // next). CudaFaults.Networks found the pool still copying into a freed graph.
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // Queues one chunk (rows x width bytes, at most one slot) from device memory `src` (pitch
  // src_pitch) to host memory `dst` (pitch dst_pitch); the copy stream must already be ordered
  // after the work that writes `src`. Returns the chunk's sequence number.
  int64_t stage(const char* src, size_t src_pitch, char* dst, size_t dst_pitch, size_t width, size_t rows);
  // A contiguous range of any size, in slot-sized chunks.
  void stage_bytes(const void* src, void* dst, size_t bytes);

  void dispatch_ready();            // hands every landed chunk to the pool, oldest first; never blocks
  bool chunk_done(int64_t seq);     // the chunk is in its destination (without blocking)
  void wait_chunk(int64_t seq);     // blocks until the chunk is in its destination
  void finish();                    // blocks until every staged chunk is in its destination
  int64_t next_seq() const { return next_seq_; }

 private:
  struct Chunk {
    int64_t seq = 0;
    int slot = 0;
    std::vector<HostCopyPool::Piece> pieces;
  };
  int64_t first_undispatched() const { return pending_.empty() ? next_seq_ : pending_.front().seq; }
  void dispatch_front();

  PipelineResources& res_;
  int threads_;
  int slots_;
  std::vector<int64_t> slot_chunk_;  // per ring slot: the chunk last staged in it (-1: none)
  std::deque<Chunk> pending_;        // staged, not yet handed to the pool, in staging order
  int64_t next_seq_ = 0;
  bool finished_ = true;  // every staged chunk is in its destination (finish() since the last stage)
};

}  // namespace cuda
}  // namespace fc
