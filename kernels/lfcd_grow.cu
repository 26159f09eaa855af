// lFCD's cluster growth (lfcd_grow.cuh). A warp grows one seed's cluster level by level: its 32
// threads expand 32 (cluster voxel, step) pairs at a time, mark the new voxels visited, then test
// the new candidates four at a time, eight threads each (thread l of a candidate is the host's
// lane l). __dmul_rn / __dadd_rn keep nvcc from fusing a product and a sum: each is rounded once,
// as on the host (src/lfcd/lfcd.cpp, built with -ffp-contract=off).
#include "kernels/lfcd_grow.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr unsigned kAll = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;
// The shared visit set: open addressing at load <= 1/2, so that probes stay short.
constexpr int kSlotBits = 9;
constexpr int kSlots = 1 << kSlotBits;
static_assert(2 * kLfcdSharedVisits <= kSlots, "the shared visit set would fill past half");

// A warp's visit set and queue in shared memory (lfcd_grow_shared): room for kLfcdSharedVisits.
struct SharedMarks {
  int32_t* slots;  // kSlots series indices, -1 for empty
  int32_t* queue;  // kLfcdSharedVisits
  // Room for one more step (at most 32 visits, 32 joins).
  __device__ bool room(int64_t visited) const { return visited + 32 <= kLfcdSharedVisits; }
  // true for the one thread that marks v first.
  __device__ bool visit(int32_t v) {
    for (uint32_t h = (static_cast<uint32_t>(v) * 2654435761u) >> (32 - kSlotBits);; h = (h + 1) & (kSlots - 1)) {
      const int32_t was = atomicCAS(&slots[h], -1, v);
      if (was == -1) return true;
      if (was == v) return false;
    }
  }
};

// A warp's marks and queue in global memory (lfcd_grow_spilled): room for every series.
struct GlobalMarks {
  uint32_t* seen;   // n epochs
  int32_t* queue;   // n
  uint32_t epoch;
  __device__ bool room(int64_t) const { return true; }
  __device__ bool visit(int32_t v) { return atomicExch(&seen[v], epoch) != epoch; }
};

// r as the host makes it, clamped, rounded to float and tested.
__device__ bool passes(double dot, const LfcdGridView& g) {
  const double c = dot < 1.0 ? (-1.0 < dot ? dot : -1.0) : 1.0;  // std::min(1.0, std::max(-1.0, dot))
  const float r = __double2float_rn(c);
  return (g.absolute ? fabsf(r) : r) >= g.threshold;
}

// The series next to `from` by step o, or -1 (off the grid or no series there).
__device__ int32_t neighbour(int32_t from, int o, const LfcdGridView& g) {
  const int32_t* c = g.coords + static_cast<int64_t>(from) * 3;
  const int64_t i = c[0] + g.step[o][0], j = c[1] + g.step[o][1], k = c[2] + g.step[o][2];
  if (i < 0 || j < 0 || k < 0 || i >= g.nx || j >= g.ny || k >= g.nz) return -1;
  return g.cells[(k * g.ny + j) * g.nx + i];
}

// The cluster size of `seed` (not constant), or -1 when the marks run out of room. Called by all
// 32 threads of a warp; every count below is the same in all of them.
template <class C, class Marks>
__device__ int64_t grow(int32_t seed, const C* __restrict__ z, const LfcdGridView& g, Marks& m) {
  const int lane = threadIdx.x & 31, part = lane & 7;
  if (lane == 0) {
    m.visit(seed);
    m.queue[0] = seed;
  }
  __syncwarp();
  const C* zs = z + static_cast<int64_t>(seed) * g.t;
  int64_t queued = 1, visited = 1;
  for (int64_t pair = 0; pair < queued * g.offsets;) {
    if (!m.room(visited)) return -1;
    // Expand: thread `lane` takes pair (cluster voxel, step) number pair + lane, of the pairs of
    // the voxels queued so far; the step moves past those it took, no further (the pairs of the
    // voxels that join in this step come next).
    const int64_t pairs = queued * g.offsets, mine = pair + lane;
    int32_t v = -1;
    if (mine < pairs) v = neighbour(m.queue[mine / g.offsets], static_cast<int>(mine % g.offsets), g);
    const bool fresh = v >= 0 && m.visit(v);
    visited += __popc(__ballot_sync(kAll, fresh));
    const bool candidate = fresh && !(g.constant != nullptr && g.constant[v]);
    // Test: each round the four lowest pending candidates, candidate q by threads 8q .. 8q + 7.
    unsigned pending = __ballot_sync(kAll, candidate), joins = 0;
    while (pending != 0) {
      unsigned lower = pending;  // this group's candidate: the (lane / 8 + 1)-th lowest pending thread
      for (int q = 0; q < (lane >> 3); ++q) lower &= lower - 1;
      const int from = lower != 0 ? __ffs(lower) - 1 : 32;  // 32: none for this group
      const int32_t w = __shfl_sync(kAll, v, from < 32 ? from : 0);
      double sum = 0.0;
      if (from < 32) {
        const C* zw = z + static_cast<int64_t>(w) * g.t;
        for (int64_t k = part; k < g.t; k += 8)
          sum = __dadd_rn(sum, __dmul_rn(static_cast<double>(zs[k]), static_cast<double>(zw[k])));
      }
      sum = __dadd_rn(sum, __shfl_xor_sync(kAll, sum, 1));
      sum = __dadd_rn(sum, __shfl_xor_sync(kAll, sum, 2));
      sum = __dadd_rn(sum, __shfl_xor_sync(kAll, sum, 4));
      const bool pass = from < 32 && passes(sum, g);
      // Each pending thread of this round reads its verdict from its group's first thread.
      const int rank = __popc(pending & ((1u << lane) - 1));
      const bool in_round = ((pending >> lane) & 1u) != 0 && rank < 4;
      const bool verdict = __shfl_sync(kAll, pass, 8 * (rank < 4 ? rank : 0));
      joins |= __ballot_sync(kAll, in_round && verdict);
      pending &= ~__ballot_sync(kAll, in_round);
    }
    if ((joins >> lane) & 1u) m.queue[queued + __popc(joins & ((1u << lane) - 1))] = v;
    queued += __popc(joins);
    pair = pair + 32 < pairs ? pair + 32 : pairs;
    __syncwarp();  // the queue and the marks, for the next step's threads
  }
  return queued;
}

template <class C>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    grow_shared(const C* __restrict__ z, const LfcdGridView g, int64_t begin, int64_t end, int64_t* __restrict__ sizes,
                int32_t* __restrict__ spilled, int32_t* __restrict__ spilled_count) {
  __shared__ int32_t slots[kWarpsPerBlock][kSlots];
  __shared__ int32_t queue[kWarpsPerBlock][kLfcdSharedVisits];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t seed = begin + static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (seed >= end) return;  // the whole warp
  if (g.constant != nullptr && g.constant[seed]) {
    if (lane == 0) sizes[seed - begin] = 0;
    return;
  }
  for (int q = lane; q < kSlots; q += 32) slots[warp][q] = -1;
  __syncwarp();
  SharedMarks marks{slots[warp], queue[warp]};
  const int64_t size = grow(static_cast<int32_t>(seed), z, g, marks);
  if (lane != 0) return;
  if (size >= 0)
    sizes[seed - begin] = size;
  else
    spilled[atomicAdd(spilled_count, 1)] = static_cast<int32_t>(seed);
}

template <class C>
__global__ void grow_global(const C* __restrict__ z, const LfcdGridView g, const int32_t* __restrict__ spilled,
                            int64_t count, int64_t begin, uint32_t epoch_base, uint32_t* __restrict__ seen,
                            int32_t* __restrict__ queue, int64_t* __restrict__ sizes) {
  const int64_t workers = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
  const int64_t worker = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  GlobalMarks marks{seen + worker * g.n, queue + worker * g.n, 0};
  for (int64_t i = worker; i < count; i += workers) {
    marks.epoch = epoch_base + static_cast<uint32_t>(i) + 1;
    const int32_t seed = spilled[i];
    const int64_t size = grow(seed, z, g, marks);
    if ((threadIdx.x & 31) == 0) sizes[seed - begin] = size;
    __syncwarp();  // the next seed's first marks after this one's last reads
  }
}

template <class C>
cudaError_t launch_shared(const C* z, const LfcdGridView& g, int64_t begin, int64_t end, int64_t* sizes,
                          int32_t* spilled, int32_t* spilled_count, cudaStream_t stream) {
  const int64_t blocks = (end - begin + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > 0)
    grow_shared<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(z, g, begin, end, sizes, spilled,
                                                                                 spilled_count);
  return cudaGetLastError();
}

template <class C>
cudaError_t launch_spilled(const C* z, const LfcdGridView& g, const int32_t* spilled, int64_t count, int64_t begin,
                           uint32_t epoch_base, uint32_t* seen, int32_t* queue, int workers, int64_t* sizes,
                           cudaStream_t stream) {
  // A block per worker: a few hundred warps at most, each with its own marks.
  if (count > 0 && workers > 0)
    grow_global<<<static_cast<unsigned>(workers), 32, 0, stream>>>(
        z, g, spilled, count, begin, epoch_base, seen, queue, sizes);
  return cudaGetLastError();
}

}  // namespace

cudaError_t lfcd_grow_shared(const float* z, const LfcdGridView& g, int64_t begin, int64_t end, int64_t* sizes,
                             int32_t* spilled, int32_t* spilled_count, cudaStream_t stream) {
  return launch_shared(z, g, begin, end, sizes, spilled, spilled_count, stream);
}
cudaError_t lfcd_grow_shared(const double* z, const LfcdGridView& g, int64_t begin, int64_t end, int64_t* sizes,
                             int32_t* spilled, int32_t* spilled_count, cudaStream_t stream) {
  return launch_shared(z, g, begin, end, sizes, spilled, spilled_count, stream);
}
cudaError_t lfcd_grow_spilled(const float* z, const LfcdGridView& g, const int32_t* spilled, int64_t count,
                              int64_t begin, uint32_t epoch_base, uint32_t* seen, int32_t* queue, int workers,
                              int64_t* sizes, cudaStream_t stream) {
  return launch_spilled(z, g, spilled, count, begin, epoch_base, seen, queue, workers, sizes, stream);
}
cudaError_t lfcd_grow_spilled(const double* z, const LfcdGridView& g, const int32_t* spilled, int64_t count,
                              int64_t begin, uint32_t epoch_base, uint32_t* seen, int32_t* queue, int workers,
                              int64_t* sizes, cudaStream_t stream) {
  return launch_spilled(z, g, spilled, count, begin, epoch_base, seen, queue, workers, sizes, stream);
}

}  // namespace kernels
}  // namespace fc
