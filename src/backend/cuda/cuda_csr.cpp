// A graph's symmetric CSR assembled on the device (graph_ops.hpp: symmetric_csr), so that
// fc_pcc_graph copies each edge to the host once, already in place, instead of copying the upper
// edges and assembling both halves on the host (src/graph/graph.cpp: csr_of, about 7 ns an edge,
// most of fc_pcc_graph's time past the products). The kernels are kernels/csr_build.cu; the
// result equals csr_of's bit for bit (same positions, same weights), which the tests check.

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "backend/cuda/graph_buffers.hpp"
#include "backend/host_pins.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "backend/cuda/graph_profile.hpp"
#include "backend/cuda/staging_ring.hpp"
#include "kernels/csr_build.cuh"

namespace fc {
namespace cuda {
namespace {

int key_bits_of(int64_t n) {
  int bits = 1;
  while (bits < 63 && (int64_t(1) << bits) < n) ++bits;
  return bits;
}

// What the assembly allocates besides the arena: three n + 1 scans and the lower counts, the
// CSR (2 x edges columns and weights), and the sort's two key and record buffers.
int64_t buffers_bytes(int64_t n, int64_t edges) {
  return 4 * 8 * (n + 1) + 2 * edges * (8 + 4) + 2 * edges * (4 + 8);
}

// The cub scratch of the scan and the sort.
struct CubScratch {
  size_t scan, sort;
};
CubScratch cub_scratch(int64_t n, int64_t edges) {
  return CubScratch{kernels::csr_scan_bytes(n), kernels::csr_sort_bytes(edges, key_bits_of(n))};
}

// Page-locks an edge array's whole capacity for direct device copies, once (host_pins.hpp keeps
// it locked until the memory is freed). Arrays below kMinLockBytes are not worth a lock of their
// own; FASTCONN_CUDA_LOCK_GRAPHS=0 turns locking off (the staging ring then copies every graph).
// false when the array is not locked: the caller stages the copy.
template <class T>
bool lock_for_copies(EdgeArray<T>& a) {
  constexpr size_t kMinLockBytes = size_t(16) << 20;
  static const bool enabled = [] {
    const char* v = std::getenv("FASTCONN_CUDA_LOCK_GRAPHS");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  const size_t bytes = a.capacity() * sizeof(T);
  if (!enabled || bytes < kMinLockBytes) return false;
  HostPins& pins = HostPins::instance();
  if (pins.locked_bytes(a.data()) >= bytes) return true;
  if (cudaHostRegister(a.data(), bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();  // not fatal: the limit of locked memory, or an old driver; staged instead
    return false;
  }
  return pins.add(a.data(), bytes, [](void* begin) { cudaHostUnregister(begin); });
}

}  // namespace


bool build_csr(const GraphJob& job, GraphArena& arena, const DeviceEdges& edges, int weights, int64_t budget) {
  const int64_t n = job.n, e = edges.count;
  if (!edges.on_device || n < 1 || n > UINT32_MAX) return false;
  if (e > INT_MAX) return false;  // the sort takes 32-bit counts
  const CubScratch cub = cub_scratch(n, e);
  const int64_t need = buffers_bytes(n, e) + static_cast<int64_t>(cub.scan + cub.sort);
  if (budget > 0 && need > budget) return false;
  const int device = job.res->device();
  CsrBuffers& b = arena.csr;
  const size_t scan_bytes = cub.scan, sort_bytes = cub.sort;
  // Kept from the last graph when large enough. Out of device memory: false (the buffers are
  // given back), and the caller assembles on the host; nothing has been written.
  auto room = [&](DeviceBuffer& buffer, int64_t bytes) {
    return static_cast<int64_t>(buffer.bytes()) >= std::max<int64_t>(1, bytes) ||
           buffer.try_allocate(device, static_cast<size_t>(std::max<int64_t>(1, bytes)));
  };
  if (!room(b.lower, 8 * n) || !room(b.first_edge, 8 * (n + 1)) || !room(b.lower_start, 8 * (n + 1)) ||
      !room(b.offsets, 8 * (n + 1)) || !room(b.columns, 16 * e) || !room(b.weights, 8 * e) || !room(b.key[0], 4 * e) ||
      !room(b.key[1], 4 * e) || !room(b.record[0], 8 * e) || !room(b.record[1], 8 * e) ||
      !room(b.scan, static_cast<int64_t>(scan_bytes)) || !room(b.sort, static_cast<int64_t>(sort_bytes))) {
    b = CsrBuffers();
    return false;
  }
  DeviceBuffer &lower = b.lower, &first_edge = b.first_edge, &lower_start = b.lower_start, &offsets = b.offsets,
               &columns = b.columns, &csr_weights = b.weights, &scan_scratch = b.scan, &sort_scratch = b.sort;
  DeviceBuffer* key = b.key;
  DeviceBuffer* record = b.record;

  PipelineResources& res = *job.res;
  GraphProfile* const profile = GraphProfile::get();
  const auto t0 = GraphProfile::Clock::now();
  // Its own stream, and no wait at the end: the next graph's GEMMs run beside it. The copy out
  // waits for arena.assembled (symmetric_csr, CudaBackend::copy_device_csr), and so does the
  // next edge pass before it writes the arena (threshold_edges).
  const cudaStream_t stream = res.assembly_stream();
  const int64_t* cols = arena.cols.get<int64_t>();
  const float* vals = arena.vals.get<float>();
  FC_CUDA(cudaMemsetAsync(lower.get(), 0, static_cast<size_t>(8 * n), stream));
  FC_CUDA(kernels::csr_count_lower(cols, e, lower.get<unsigned long long>(), stream));
  FC_CUDA(kernels::csr_scan(edges.row_count->get<int64_t>(), lower.get<unsigned long long>(), n, first_edge.get<int64_t>(),
                            lower_start.get<int64_t>(), offsets.get<int64_t>(), scan_scratch.get(), stream));
  const kernels::CsrWeight weight = weights == FC_GRAPH_BINARY     ? kernels::kCsrBinary
                                    : weights == FC_GRAPH_WEIGHTED ? kernels::kCsrSigned
                                                                   : kernels::kCsrAbsolute;
  FC_CUDA(kernels::csr_place_upper(cols, vals, edges.row_count->get<int64_t>(), first_edge.get<int64_t>(),
                                   lower.get<unsigned long long>(), offsets.get<int64_t>(), n, weight,
                                   columns.get<int64_t>(), csr_weights.get<float>(), key[0].get<uint32_t>(),
                                   record[0].get<uint64_t>(), stream));
  uint32_t* keys[2] = {key[0].get<uint32_t>(), key[1].get<uint32_t>()};
  uint64_t* records[2] = {record[0].get<uint64_t>(), record[1].get<uint64_t>()};
  int sorted = 0;
  if (e > 0)
    FC_CUDA(kernels::csr_sort(keys, records, e, key_bits_of(n), &sorted, sort_scratch.get(), sort_bytes, stream));
  FC_CUDA(kernels::csr_place_lower(keys[sorted], records[sorted], e, offsets.get<int64_t>(), lower_start.get<int64_t>(),
                                   columns.get<int64_t>(), csr_weights.get<float>(), stream));
  if (!arena.assembled) arena.assembled = std::make_unique<Event>();
  FC_CUDA(cudaEventRecord(arena.assembled->get(), stream));
  if (profile != nullptr) {  // the phase's length: profiled runs wait for it
    FC_CUDA(cudaStreamSynchronize(stream));
    profile_phase(profile, GraphProfile::kAssemble, t0);
  }
  return true;
}

void copy_csr(PipelineResources& res, int host_threads, const DeviceBuffer& offsets, const DeviceBuffer& columns,
              const DeviceBuffer& csr_weights, int64_t n, int64_t e, cudaStream_t stream, SymmetricCsr& out,
              const std::function<void()>& meanwhile) {
  GraphProfile* const profile = GraphProfile::get();
  const auto t1 = GraphProfile::Clock::now();
  // The host arrays grow uninitialized (huge pages asked for): the staging ring's threads do the
  // first touch as they copy. Arrays a destroyed graph left (graph_recycler.hpp) are mapped
  // already: they are page-locked once and take the device's copies directly (lock_for_copies),
  // while meanwhile() runs. The offsets go first: a copy into pageable memory returns when done.
  out.offsets.assign(static_cast<size_t>(n) + 1, 0);
  out.columns.clear();
  out.weights.clear();
  const int64_t nnz = 2 * e;
  const bool mapped = out.columns.capacity() >= static_cast<size_t>(nnz) && out.weights.capacity() >= static_cast<size_t>(nnz);
  int64_t* host_columns = grow(out.columns, nnz, nnz);
  float* host_weights = grow(out.weights, nnz, nnz);
  const size_t column_bytes = static_cast<size_t>(nnz) * sizeof(int64_t), weight_bytes = static_cast<size_t>(nnz) * sizeof(float);
  const size_t offset_bytes = static_cast<size_t>(n + 1) * sizeof(int64_t);
  bool ran = false;
  double ahead_seconds = 0;
  if (mapped && lock_for_copies(out.columns) && lock_for_copies(out.weights)) {
    // Nothing here waits for the device before meanwhile(): the copies start when the assembly
    // that `stream` waits for ends, while the next graph's GEMMs run. The offsets go through a
    // pinned buffer of the backend's (a copy into pageable memory would wait).
    char* offsets_bounce = res.pinned_scratch(offset_bytes);
    // On any failure from here on, the copies are waited for before the host arrays can be freed.
    try {
      FC_CUDA(cudaMemcpyAsync(offsets_bounce, offsets.get(), offset_bytes, cudaMemcpyDeviceToHost, stream));
      FC_CUDA(cudaMemcpyAsync(host_columns, columns.get(), column_bytes, cudaMemcpyDeviceToHost, stream));
      FC_CUDA(cudaMemcpyAsync(host_weights, csr_weights.get(), weight_bytes, cudaMemcpyDeviceToHost, stream));
      if (meanwhile) {
        ran = true;
        const auto m0 = GraphProfile::Clock::now();
        meanwhile();
        if (profile != nullptr) {
          const auto m1 = GraphProfile::Clock::now();
          ahead_seconds = std::chrono::duration<double>(m1 - m0).count();
          profile->add_seconds(GraphProfile::kAhead, ahead_seconds);
          FC_CUDA(cudaStreamSynchronize(stream));
          profile_phase(profile, GraphProfile::kWait, m1);
        }
      }
      FC_CUDA(cudaStreamSynchronize(stream));
      std::memcpy(out.offsets.data(), offsets_bounce, offset_bytes);
    } catch (...) {
      cudaStreamSynchronize(stream);
      throw;
    }
  } else {
    // Into pageable memory: returns when done, so the staging ring's copies below (on other
    // streams) come after anything `stream` waits for.
    copy_to_host(out.offsets.data(), offsets.get(), n + 1, stream);
    res.ensure_staging(host_threads);
    StagingRing stager(res, host_threads);
    stager.stage_bytes(columns.get(), host_columns, column_bytes);
    stager.stage_bytes(csr_weights.get(), host_weights, weight_bytes);
    stager.finish();
  }
  FC_CUDA(cudaStreamSynchronize(stream));
  if (profile != nullptr)
    profile->add_seconds(GraphProfile::kCopy,
                         std::chrono::duration<double>(GraphProfile::Clock::now() - t1).count() - ahead_seconds);
  if (meanwhile && !ran) meanwhile();
}

bool symmetric_csr(const GraphJob& job, GraphArena& arena, const DeviceEdges& edges, int weights, int64_t budget,
                   SymmetricCsr& out) {
  if (!build_csr(job, arena, edges, weights, budget)) return false;
  const CsrBuffers& b = arena.csr;
  FC_CUDA(cudaStreamWaitEvent(job.res->copy_stream(), arena.assembled->get(), 0));
  copy_csr(*job.res, job.host_threads, b.offsets, b.columns, b.weights, job.n, edges.count, job.res->copy_stream(), out,
           std::function<void()>());
  return true;
}

void edges_to_host(const GraphJob& job, const GraphArena& arena, const DeviceEdges& edges, UpperEdges& out) {
  PipelineResources& res = *job.res;
  const int64_t e = edges.count;
  out.row_count.assign(static_cast<size_t>(job.n), 0);
  out.columns.clear();
  out.values.clear();
  int64_t* cols = grow(out.columns, e, e);
  float* vals = grow(out.values, e, e);
  res.ensure_staging(job.host_threads);
  StagingRing stager(res, job.host_threads);
  stager.stage_bytes(arena.cols.get(), cols, static_cast<size_t>(e) * sizeof(int64_t));
  stager.stage_bytes(arena.vals.get(), vals, static_cast<size_t>(e) * sizeof(float));
  copy_to_host(out.row_count.data(), edges.row_count->get(), job.n, res.copy_stream());
  stager.finish();
  FC_CUDA(cudaStreamSynchronize(res.copy_stream()));
}

}  // namespace cuda
}  // namespace fc
