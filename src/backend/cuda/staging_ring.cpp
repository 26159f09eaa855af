#include "backend/cuda/staging_ring.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backend/cuda/cuda_check.hpp"

namespace fc {
namespace cuda {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

// Splits a staged chunk into pieces for the pool: a single row into byte ranges of at least
// 2 MiB ending on 2 MiB boundaries of the destination (two threads never fault the same huge
// page), several rows into row groups.
void split_pieces(const char* src, size_t src_pitch, char* dst, size_t dst_pitch, size_t width, size_t rows,
                  int threads, int group, std::vector<HostCopyPool::Piece>& pieces) {
  pieces.clear();
  if (rows == 1) {
    const size_t piece = std::max<size_t>(kHugePage, (width + threads - 1) / threads);
    for (size_t pos = 0; pos < width;) {
      size_t end = std::min(width, pos + piece);
      if (end < width) {
        const uintptr_t a = (reinterpret_cast<uintptr_t>(dst) + end) & ~(uintptr_t(kHugePage) - 1);
        const size_t aligned = a - reinterpret_cast<uintptr_t>(dst);
        if (a > reinterpret_cast<uintptr_t>(dst) && aligned > pos) end = aligned;
      }
      pieces.push_back({src + pos, dst + pos, end - pos, 1, 0, 0, group});
      pos = end;
    }
    return;
  }
  const size_t groups = std::min<size_t>(rows, static_cast<size_t>(threads));
  const size_t per = (rows + groups - 1) / groups;
  for (size_t r = 0; r < rows; r += per)
    pieces.push_back({src + r * src_pitch, dst + r * dst_pitch, width, std::min(per, rows - r), src_pitch, dst_pitch, group});
}

}  // namespace

void copy_rows(char* dst, size_t dst_pitch, const char* src, size_t src_pitch, size_t width, size_t rows,
               cudaMemcpyKind kind, cudaStream_t stream) {
  if (rows == 1 || (dst_pitch == width && src_pitch == width))
    FC_CUDA(cudaMemcpyAsync(dst, src, width * rows, kind, stream));
  else
    FC_CUDA(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, kind, stream));
}

StagingRing::StagingRing(PipelineResources& res, int threads)
    : res_(res),
      threads_(std::max(1, threads)),
      slots_(res.ring_slots()),
      slot_chunk_(static_cast<size_t>(std::max(0, res.ring_slots())), -1) {}

StagingRing::~StagingRing() {
  if (!finished_) {
    cudaStreamSynchronize(res_.copy_stream());  // (a status here would have nowhere to go)
    res_.pool().cancel_all();
  }
}

int64_t StagingRing::stage(const char* src, size_t src_pitch, char* dst, size_t dst_pitch, size_t width, size_t rows) {
  finished_ = false;
  const int64_t seq = next_seq_++;
  const int slot = static_cast<int>(seq % slots_);
  if (slot_chunk_[static_cast<size_t>(slot)] >= 0) wait_chunk(slot_chunk_[static_cast<size_t>(slot)]);
  char* ring = res_.ring_slot(slot);
  copy_rows(ring, width, src, src_pitch, width, rows, cudaMemcpyDeviceToHost, res_.copy_stream());
  FC_CUDA(cudaEventRecord(res_.ring_event(slot), res_.copy_stream()));
  slot_chunk_[static_cast<size_t>(slot)] = seq;
  Chunk c;
  c.seq = seq;
  c.slot = slot;
  split_pieces(ring, width, dst, dst_pitch, width, rows, threads_, slot, c.pieces);
  pending_.push_back(std::move(c));
  return seq;
}

void StagingRing::stage_bytes(const void* src, void* dst, size_t bytes) {
  const size_t slot_bytes = res_.ring_slot_bytes();
  for (size_t pos = 0; pos < bytes; pos += slot_bytes) {
    const size_t len = std::min(slot_bytes, bytes - pos);
    stage(static_cast<const char*>(src) + pos, len, static_cast<char*>(dst) + pos, len, len, 1);
  }
}

void StagingRing::dispatch_ready() {
  while (!pending_.empty()) {
    const cudaError_t status = cudaEventQuery(res_.ring_event(pending_.front().slot));
    if (status == cudaErrorNotReady) return;
    check_cuda(status, "cudaEventQuery");
    dispatch_front();
  }
}

void StagingRing::dispatch_front() {
  Chunk& c = pending_.front();
  res_.pool().submit(c.slot, c.pieces);
  pending_.pop_front();
}

bool StagingRing::chunk_done(int64_t seq) {
  if (seq >= first_undispatched()) return false;
  const int slot = static_cast<int>(seq % slots_);
  return slot_chunk_[static_cast<size_t>(slot)] != seq || res_.pool().idle(slot);  // a later chunk took the slot only once it was idle
}

void StagingRing::wait_chunk(int64_t seq) {
  while (seq >= first_undispatched()) {
    FC_CUDA(cudaEventSynchronize(res_.ring_event(pending_.front().slot)));
    dispatch_front();
  }
  const int slot = static_cast<int>(seq % slots_);
  if (slot_chunk_[static_cast<size_t>(slot)] == seq) res_.pool().wait_idle(slot);
}

void StagingRing::finish() {
  if (next_seq_ > 0) wait_chunk(next_seq_ - 1);
  for (int slot = 0; slot < slots_; ++slot) res_.pool().wait_idle(slot);
  finished_ = true;
}

}  // namespace cuda
}  // namespace fc
