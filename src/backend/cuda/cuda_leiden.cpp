// The CUDA engine of the synchronous Leiden (backend/leiden_engine.hpp): the level-0 graph, every
// level and the per-node state live on the device; each step is a few kernels of
// kernels/leiden_sync.cu, and only the counts the driver asks for (moves, active nodes,
// communities) come back, one small copy a step. The results are the host engine's, bit for bit.
#include "backend/cuda/cuda_leiden.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>

#include "backend/cuda/cuda_backend_class.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/leiden_engine.hpp"
#include "kernels/leiden_rules.hpp"
#include "base/error.hpp"
#include "base/parallel_team.hpp"
#include "base/profile.hpp"
#include "kernels/leiden_sync.cuh"

namespace fc {
namespace cuda {

namespace {

using kernels::ull;

template <class T>
T* alloc(DeviceBuffer& b, int device, int64_t count, const char* what) {
  b.allocate(device, sizeof(T) * static_cast<size_t>(count < 1 ? 1 : count), what);
  return b.get<T>();
}

// As alloc, but b is kept when it holds count values already: the aggregation's buffers, reused
// level after level and pass after pass (a cudaMalloc and cudaFree per buffer and level was about
// half of the aggregation's time in the 400 x 100 multilayer call, 273 levels).
template <class T>
T* reserve(DeviceBuffer& b, int device, int64_t count, const char* what) {
  const size_t bytes = sizeof(T) * static_cast<size_t>(count < 1 ? 1 : count);
  if (b.bytes() < bytes) b.allocate(device, bytes, what);
  return b.get<T>();
}

// Host arrays to the device through two pinned chunks: the host threads fill one chunk (converting
// each value to the device's type) while the other is copied. A pageable cudaMemcpy of the
// 50 M-edge graph's 1.2 GB moved about 6.7 GB/s on the H200 machine (0.18 s, most of the call).
// Chunks of 4 MiB at most (no larger than the largest array): pinning memory costs about as much
// as copying it (two 32 MiB chunks took some 40 ms to allocate, most of a 38,400-node call).
class Uploader {
 public:
  Uploader(cudaStream_t stream, int threads, size_t largest_bytes)
      : stream_(stream), threads_(threads), chunk_bytes_(std::clamp<size_t>(largest_bytes, 4096, kChunkBytes)) {
    for (PinnedBuffer& b : stage_) b.allocate(chunk_bytes_);
  }
  // count values of src into dst (device), each converted to D.
  template <class S, class D>
  void copy(const S* src, D* dst, int64_t count) {
    const int64_t per_chunk = int64_t(chunk_bytes_ / sizeof(D));
    for (int64_t first = 0; first < count; first += per_chunk) {
      const int64_t items = std::min(per_chunk, count - first);
      const int b = next_++ & 1;
      FC_CUDA(cudaEventSynchronize(done_[b].get()));  // the chunk's last copy has left it
      D* staged = reinterpret_cast<D*>(stage_[b].get());
      const S* from = src + first;
      const int team = parallel_team(items, threads_);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
      for (int64_t i = 0; i < items; ++i) staged[i] = static_cast<D>(from[i]);
      FC_CUDA(cudaMemcpyAsync(dst + first, staged, sizeof(D) * size_t(items), cudaMemcpyHostToDevice, stream_));
      FC_CUDA(cudaEventRecord(done_[b].get(), stream_));
    }
  }
  void finish() { FC_CUDA(cudaStreamSynchronize(stream_)); }

 private:
  static constexpr size_t kChunkBytes = size_t(4) << 20;
  cudaStream_t stream_;
  int threads_;
  size_t chunk_bytes_;
  PinnedBuffer stage_[2];
  Event done_[2];
  int next_ = 0;
};

struct DeviceLevel {
  int64_t n = 0, entries = 0, layers = 0;
  DeviceBuffer offsets, columns, weights, kp, kn;
  DeviceBuffer lstart, llayer, lweight;  // layered: the node weight lists
  const double* gp = nullptr;             // layered: the layers' coefficients (the engine's)
  kernels::SyncLevel view() const {
    kernels::SyncLevel g;
    g.n = n;
    g.offsets = offsets.get<int64_t>();
    g.columns = columns.get<int32_t>();
    g.weights = weights.get<ull>();
    g.kp = kp.get<ull>();
    g.kn = kn.get<ull>();
    g.layers = layers;
    g.lstart = lstart.get<int64_t>();
    g.llayer = llayer.get<int32_t>();
    g.lweight = lweight.get<ull>();
    g.gp = gp;
    return g;
  }
};

class CudaLeidenEngine final : public LeidenEngine {
 public:
  CudaLeidenEngine(int device, const LeidenLevelZero& z, const kernels::SyncTerms& terms, int threads, PinnedBuffer* staging)
      : device_(device), staging_(staging), t_(terms), n0_(z.n), layers_(z.layers) {
    const cudaStream_t st = stream_.get();
    const int64_t raw = z.offsets[z.n];
    scratch_bytes_ = std::max(kernels::sync_scan_bytes(2 * n0_), kernels::sync_scan32_bytes(2 * n0_));
    alloc<char>(scratch_, device_, int64_t(scratch_bytes_), "the scans' scratch");
    const Clock::time_point start = Clock::now();
    if (layers_ > 0) {
      layered_zero(z, threads);
      copy_seconds_ = since(start);
    } else {
      // Level 0 from the caller's CSR: its arrays copied, the kept entries counted, placed and
      // made fixed point on the device.
      DeviceBuffer kept;
      // Kept for the final checks too (rows_inside reads the caller's entries as the host would).
      int64_t* d_offsets = alloc<int64_t>(raw_offsets_, device_, n0_ + 1, "the graph's offsets");
      int32_t* d_columns = alloc<int32_t>(raw_columns_, device_, raw, "the graph's columns");
      float* d_weights = alloc<float>(raw_weights_, device_, raw, "the graph's weights");
      {
        Uploader up(st, threads, sizeof(int64_t) * size_t(std::max(n0_ + 1, raw)));
        up.copy(z.offsets, d_offsets, n0_ + 1);
        up.copy(z.columns, d_columns, raw);  // int64 -> int32 in the staging (n < 2^30)
        up.copy(z.weights, d_weights, raw);
        up.finish();
      }
      copy_seconds_ = since(start);
      int64_t* d_kept = alloc<int64_t>(kept, device_, n0_ + 1, "the level-0 counts");
      ull* kp = alloc<ull>(zero_.kp, device_, n0_, "the node weights");
      ull* kn = alloc<ull>(zero_.kn, device_, n0_, "the node weights");
      check_cuda(kernels::sync_level0_count(d_offsets, d_columns, d_weights, n0_, z.scale, z.cpm, d_kept, kp, kn, st),
                 "sync_level0_count");
      int64_t* level_offsets = alloc<int64_t>(zero_.offsets, device_, n0_ + 1, "the level-0 offsets");
      check_cuda(kernels::sync_scan(d_kept, level_offsets, n0_, scratch_.get(), scratch_bytes_, st), "sync_scan");
      zero_.n = n0_;
      FC_CUDA(cudaMemcpyAsync(&zero_.entries, level_offsets + n0_, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      FC_CUDA(cudaStreamSynchronize(st));
      int32_t* cols = alloc<int32_t>(zero_.columns, device_, zero_.entries, "the level-0 columns");
      ull* w = alloc<ull>(zero_.weights, device_, zero_.entries, "the level-0 weights");
      check_cuda(kernels::sync_level0_fill(d_offsets, d_columns, d_weights, n0_, z.c_pos, z.c_neg, z.scale, z.cpm,
                                           level_offsets, cols, w, st),
                 "sync_level0_fill");
      FC_CUDA(cudaStreamSynchronize(st));
      level0_seconds_ = since(start) - copy_seconds_;
    }
    const int64_t e0 = zero_.entries, n2 = 2 * n0_, rows = layers_ > 0 ? layers_ : 1;
    s_.label = alloc<int32_t>(label_, device_, n0_, "the labels");
    s_.target = alloc<int32_t>(target_, device_, n0_, "the decisions");
    s_.target_weight = alloc<ull>(target_weight_, device_, n0_, "the decisions' weights");
    s_.active = alloc<uint8_t>(active_, device_, n0_, "the active flags");
    s_.moves_left = alloc<int32_t>(moves_left_, device_, n0_, "the moves left");
    s_.touched = alloc<uint8_t>(touched_, device_, n0_, "the touched flags");
    s_.sum_p = alloc<ull>(sum_p_, device_, n2 * rows, "the community sums");
    s_.sum_n = alloc<ull>(sum_n_, device_, n2, "the community sums");
    s_.size = alloc<int32_t>(size_, device_, n2, "the community sizes");
    s_.refined = alloc<int32_t>(refined_, device_, n0_, "the subcommunities");
    s_.ext = alloc<ull>(ext_, device_, n0_, "the subcommunities' weights");
    s_.sub_p = alloc<ull>(sub_p_, device_, n0_ * rows, "the subcommunities' sums");
    if (layers_ > 0) s_.own = alloc<double>(own_, device_, n0_, "the subcommunities' own terms");
    s_.sub_n = alloc<ull>(sub_n_, device_, n0_, "the subcommunities' sums");
    s_.sub_size = alloc<int32_t>(sub_size_, device_, n0_, "the subcommunities' sizes");
    s_.table_keys = alloc<int32_t>(table_keys_, device_, 4 * e0, "the rows' hash tables");
    s_.table_values = alloc<ull>(table_values_, device_, 4 * e0, "the rows' hash tables");
    s_.counters = alloc<ull>(counters_, device_, 4 * kBatch, "the counters");
    FC_CUDA(cudaMemsetAsync(s_.table_keys, 0xFF, sizeof(int32_t) * size_t(4 * e0), st));
    FC_CUDA(cudaMemsetAsync(s_.table_values, 0, sizeof(ull) * size_t(4 * e0), st));
    alloc<uint8_t>(used_, device_, (n2 + 3) & ~int64_t(3), "the used flags");
    alloc<int32_t>(flags_, device_, n2 + 1, "the aggregation's flags");
    alloc<int32_t>(id_, device_, n2 + 1, "the aggregation's ids");
    alloc<int32_t>(map_, device_, n0_, "the aggregation's map");
    alloc<int32_t>(level_of_, device_, n0_, "the level-0 map");
    alloc<int32_t>(out_, device_, n0_, "the labels out");
    for (int h = 0; h < 2; ++h) {
      keys_[h] = alloc<uint64_t>(key_buffer_[h], device_, e0, "the aggregation's keys");
      values_[h] = alloc<ull>(value_buffer_[h], device_, e0, "the aggregation's values");
    }
    const size_t sort_bytes = kernels::sync_sort_bytes(e0, 64);
    if (sort_bytes > scratch_bytes_) {
      scratch_bytes_ = sort_bytes;
      alloc<char>(scratch_, device_, int64_t(scratch_bytes_), "the sort's scratch");
    }
    FC_CUDA(cudaStreamSynchronize(st));
    build_seconds_ = since(start);
  }

  void start_pass(const std::vector<int64_t>& labels) override {
    DeviceScope scope(device_);
    level_ = nullptr;
    std::vector<int32_t> l(labels.begin(), labels.end()), iota(static_cast<size_t>(n0_));
    for (int64_t v = 0; v < n0_; ++v) iota[static_cast<size_t>(v)] = int32_t(v);
    const cudaStream_t st = stream_.get();
    FC_CUDA(cudaMemcpyAsync(s_.label, l.data(), sizeof(int32_t) * l.size(), cudaMemcpyHostToDevice, st));
    FC_CUDA(cudaMemcpyAsync(level_of_.get(), iota.data(), sizeof(int32_t) * iota.size(), cudaMemcpyHostToDevice, st));
    FC_CUDA(cudaStreamSynchronize(st));  // the host vectors go out of scope, the staging is free again
  }
  int64_t level_nodes() const override { return g().n; }

  void begin_moves() override {
    DeviceScope scope(device_);
    check_cuda(kernels::sync_begin_moves(g().view(), s_, t_.max_node_moves, stream_.get()), "sync_begin_moves");
  }

  LeidenRound move_round(uint64_t salt, int64_t round) override {
    DeviceScope scope(device_);
    const Timed timed(move_seconds_);
    const ull* c = counted([&](cudaStream_t st) { return kernels::sync_move_round(g().view(), s_, t_, salt, round, st); },
                           "sync_move_round");
    return LeidenRound{int64_t(c[0]), int64_t(c[1])};
  }

  int64_t round_batch() const override { return kBatch; }

  void move_rounds(uint64_t salt, int64_t first, int64_t count, LeidenRound* out) override {
    DeviceScope scope(device_);
    const Timed timed(move_seconds_);
    const ull* c = batched(count, [&](const kernels::SyncState& s, int64_t i, cudaStream_t st) {
      return kernels::sync_move_round(g().view(), s, t_, salt, first + i, st);
    });
    for (int64_t i = 0; i < count; ++i) out[i] = LeidenRound{int64_t(c[4 * i]), int64_t(c[4 * i + 1])};
  }

  void refine_rounds(uint64_t salt, int64_t first, int64_t count, LeidenRound* out) override {
    DeviceScope scope(device_);
    const Timed timed(refine_seconds_);
    const ull* c = batched(count, [&](const kernels::SyncState& s, int64_t i, cudaStream_t st) {
      return kernels::sync_refine_round(g().view(), s, t_, salt, first + i, st);
    });
    for (int64_t i = 0; i < count; ++i) out[i] = LeidenRound{int64_t(c[4 * i]), 0};
  }

  int64_t communities() override {
    DeviceScope scope(device_);
    const ull* c = counted(
        [&](cudaStream_t st) {
          return kernels::sync_count_distinct(s_.label, g().n, used_.get<uint8_t>(), 2 * g().n, s_.counters + 2, st);
        },
        "sync_count_distinct");
    return int64_t(c[2]);
  }

  void begin_refine() override {
    DeviceScope scope(device_);
    check_cuda(kernels::sync_begin_refine(g().view(), s_, stream_.get()), "sync_begin_refine");
  }

  LeidenRound refine_round(uint64_t salt, int64_t round) override {
    DeviceScope scope(device_);
    const Timed timed(refine_seconds_);
    const ull* c = counted([&](cudaStream_t st) { return kernels::sync_refine_round(g().view(), s_, t_, salt, round, st); },
                           "sync_refine_round");
    return LeidenRound{int64_t(c[0]), 0};
  }

  int64_t subcommunities() override {
    DeviceScope scope(device_);
    const ull* c = counted([&](cudaStream_t st) { return kernels::sync_count_founders(s_.refined, g().n, s_.counters + 2, st); },
                           "sync_count_founders");
    return int64_t(c[2]);
  }

  void aggregate() override {
    DeviceScope scope(device_);
    const Timed timed(aggregate_seconds_);
    const cudaStream_t st = stream_.get();
    const DeviceLevel& l = g();
    const kernels::SyncLevel view = l.view();
    const int64_t n = l.n;
    int32_t* flags = flags_.get<int32_t>();
    int32_t* id = id_.get<int32_t>();
    // New ids of the subcommunities, in order of their first nodes.
    check_cuda(kernels::sync_founder_flags(s_.refined, n, flags, st), "sync_founder_flags");
    check_cuda(kernels::sync_scan32(flags, id, n, scratch_.get(), scratch_bytes_, st), "sync_scan32");
    int32_t k32 = 0;
    FC_CUDA(cudaMemcpyAsync(&k32, id + n, sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    const int64_t k = k32;
    // Community ids in order of their values: flags over 2n ids, scanned into `community`.
    int32_t* community_id = reserve<int32_t>(community_, device_, 2 * n + 1, "the aggregation's community ids");
    check_cuda(kernels::sync_used_flags(s_.label, n, flags, 2 * n, st), "sync_used_flags");
    check_cuda(kernels::sync_scan32(flags, community_id, 2 * n, scratch_.get(), scratch_bytes_, st), "sync_scan32");
    DeviceLevel& next = level_ == &levels_[0] ? levels_[1] : levels_[0];
    next.n = k;
    ull* kp = reserve<ull>(next.kp, device_, k, "an aggregate's node weights");
    ull* kn = reserve<ull>(next.kn, device_, k, "an aggregate's node weights");
    int32_t* nl = reserve<int32_t>(new_label_, device_, k, "an aggregate's labels");
    check_cuda(kernels::sync_new_nodes(view, s_, id, community_id, map_.get<int32_t>(), k, kp, kn, nl, st), "sync_new_nodes");
    if (layers_ > 0) {
      // Each new node's list: its subcommunity's row without zeros.
      next.layers = layers_;
      next.gp = gp_.get<double>();
      int64_t* c = reserve<int64_t>(counts_buffer_, device_, k + 1, "an aggregate's list counts");
      FC_CUDA(cudaMemsetAsync(c, 0, sizeof(int64_t) * size_t(k + 1), st));
      check_cuda(kernels::sync_list_counts(view, s_, id, c, st), "sync_list_counts");
      int64_t* ls = reserve<int64_t>(next.lstart, device_, k + 1, "an aggregate's list offsets");
      check_cuda(kernels::sync_scan(c, ls, k, scratch_.get(), scratch_bytes_, st), "sync_scan");
      int64_t total = 0;
      FC_CUDA(cudaMemcpyAsync(&total, ls + k, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
      FC_CUDA(cudaStreamSynchronize(st));
      check_cuda(kernels::sync_list_fill(view, s_, id, ls, reserve<int32_t>(next.llayer, device_, total, "an aggregate's lists"),
                                         reserve<ull>(next.lweight, device_, total, "an aggregate's lists"), st),
                 "sync_list_fill");
    }
    check_cuda(kernels::sync_map_level0(level_of_.get<int32_t>(), n0_, map_.get<int32_t>(), st), "sync_map_level0");
    // The entries between new nodes, sorted by (row, column) and summed.
    check_cuda(kernels::sync_pairs(view, map_.get<int32_t>(), keys_[0], values_[0], s_.counters + 3, st), "sync_pairs");
    ull items = 0;
    FC_CUDA(cudaMemcpyAsync(&items, s_.counters + 3, sizeof(ull), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    int bits = 1;
    while ((int64_t(1) << bits) < k) ++bits;
    int out = 0;
    check_cuda(kernels::sync_sort_reduce(keys_, values_, int64_t(items), 32 + bits, s_.counters + 2, scratch_.get(),
                                         scratch_bytes_, &out, st),
               "sync_sort_reduce");
    ull entries = 0;
    FC_CUDA(cudaMemcpyAsync(&entries, s_.counters + 2, sizeof(ull), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    if (items == 0) entries = 0;
    next.entries = int64_t(entries);
    int64_t* c = reserve<int64_t>(counts_buffer_, device_, k + 1, "an aggregate's row counts");
    int32_t* cols = reserve<int32_t>(next.columns, device_, next.entries, "an aggregate's columns");
    ull* w = reserve<ull>(next.weights, device_, next.entries, "an aggregate's weights");
    check_cuda(kernels::sync_rows(keys_[out], values_[out], next.entries, k, c, cols, w, st), "sync_rows");
    int64_t* offsets = reserve<int64_t>(next.offsets, device_, k + 1, "an aggregate's offsets");
    check_cuda(kernels::sync_scan(c, offsets, k, scratch_.get(), scratch_bytes_, st), "sync_scan");
    FC_CUDA(cudaMemcpyAsync(s_.label, nl, sizeof(int32_t) * size_t(k), cudaMemcpyDeviceToDevice, st));
    FC_CUDA(cudaStreamSynchronize(st));
    level_ = &next;
  }

  int64_t pieces(const std::vector<int64_t>& labels) override {
    DeviceScope scope(device_);
    const Timed timed(check_seconds_);
    const cudaStream_t st = stream_.get();
    int32_t* l = upload_labels(labels);
    int32_t* comp = s_.refined;  // free after the passes
    check_cuda(kernels::sync_components_start(comp, n0_, st), "sync_components_start");
    // Rounds in batches (one more round than needed changes nothing) until one changes nothing.
    for (bool changed = true; changed;) {
      const ull* c = batched(kBatch, [&](const kernels::SyncState& s, int64_t, cudaStream_t st) {
        return kernels::sync_components_round(zero_.view(), l, comp, s.counters, st);
      });
      changed = c[4 * (kBatch - 1)] != 0;
    }
    return int64_t(
        counted([&](cudaStream_t s) { return kernels::sync_count_founders(comp, n0_, s_.counters + 2, s); }, "sync_count_founders")[2]);
  }

  bool piece_labels(std::vector<int64_t>& out) override {
    DeviceScope scope(device_);
    const Timed timed(check_seconds_);
    std::vector<int32_t> comp(static_cast<size_t>(n0_));
    FC_CUDA(cudaMemcpyAsync(comp.data(), s_.refined, sizeof(int32_t) * comp.size(), cudaMemcpyDeviceToHost, stream_.get()));
    FC_CUDA(cudaStreamSynchronize(stream_.get()));
    out.assign(comp.begin(), comp.end());
    return true;
  }

  bool rows_inside(const std::vector<int64_t>& labels, std::vector<double>& row_pos, std::vector<double>& row_neg) override {
    if (layers_ > 0) return false;
    DeviceScope scope(device_);
    const Timed timed(check_seconds_);
    const cudaStream_t st = stream_.get();
    int32_t* l = upload_labels(labels);
    // The state's 8-byte arrays are free after the passes.
    double* pos = reinterpret_cast<double*>(s_.ext);
    double* neg = reinterpret_cast<double*>(s_.sub_p);
    check_cuda(kernels::sync_rows_inside(raw_offsets_.get<int64_t>(), raw_columns_.get<int32_t>(), raw_weights_.get<float>(),
                                         n0_, l, pos, neg, st),
               "sync_rows_inside");
    row_pos.resize(static_cast<size_t>(n0_));
    row_neg.resize(static_cast<size_t>(n0_));
    FC_CUDA(cudaMemcpyAsync(row_pos.data(), pos, sizeof(double) * size_t(n0_), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaMemcpyAsync(row_neg.data(), neg, sizeof(double) * size_t(n0_), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    return true;
  }

  void report_phases() override {
    std::fprintf(stderr,
                 "leiden (synchronous) CUDA engine: built in %.4f s (graph copied in %.4f s, level 0 %.4f s); moves %.4f s, "
                 "refinement %.4f s, aggregation %.4f s, final checks %.4f s\n",
                 build_seconds_, copy_seconds_, level0_seconds_, move_seconds_, refine_seconds_, aggregate_seconds_,
                 check_seconds_);
  }

  void labels(std::vector<int64_t>& out) override {
    DeviceScope scope(device_);
    const cudaStream_t st = stream_.get();
    check_cuda(kernels::sync_gather_labels(s_.label, level_of_.get<int32_t>(), n0_, out_.get<int32_t>(), st),
               "sync_gather_labels");
    std::vector<int32_t> l(static_cast<size_t>(n0_));
    FC_CUDA(cudaMemcpyAsync(l.data(), out_.get(), sizeof(int32_t) * l.size(), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    out.assign(l.begin(), l.end());
  }

 private:
  const DeviceLevel& g() const { return level_ != nullptr ? *level_ : zero_; }

  // Layered level 0: the caller's entries, already fixed point and all kept, copied as they are;
  // each node's list (its weight in its layer, none when 0) made on the host, and the layers'
  // coefficients.
  void layered_zero(const LeidenLevelZero& z, int threads) {
    const cudaStream_t st = stream_.get();
    const int64_t e = z.offsets[z.n];
    zero_.n = n0_;
    zero_.entries = e;
    zero_.layers = layers_;
    std::vector<int64_t> lstart(static_cast<size_t>(n0_ + 1), 0), lweight;
    std::vector<int32_t> llayer;
    for (int64_t v = 0; v < n0_; ++v) {
      if (z.node_weight[v] != 0) {
        llayer.push_back(z.node_layer[v]);
        lweight.push_back(z.node_weight[v]);
      }
      lstart[static_cast<size_t>(v + 1)] = int64_t(llayer.size());
    }
    const int64_t listed = int64_t(llayer.size());
    double* gp = alloc<double>(gp_, device_, layers_, "the layers' coefficients");
    zero_.gp = gp;
    int64_t* offsets = alloc<int64_t>(zero_.offsets, device_, n0_ + 1, "the level-0 offsets");
    int32_t* columns = alloc<int32_t>(zero_.columns, device_, e, "the level-0 columns");
    ull* weights = alloc<ull>(zero_.weights, device_, e, "the level-0 weights");
    int64_t* ls = alloc<int64_t>(zero_.lstart, device_, n0_ + 1, "the level-0 lists");
    int32_t* ll = alloc<int32_t>(zero_.llayer, device_, listed, "the level-0 lists");
    ull* lw = alloc<ull>(zero_.lweight, device_, listed, "the level-0 lists");
    // Through the context's pinned staging (kept from call to call; grown here when too small):
    // pageable copies, or pinning two staging chunks per call as Uploader does for a large graph,
    // took most of the 11 ms this copy took at 400 x 100 (1.7 M entries). Each array gets its own
    // region, so every copy is queued before the one synchronization.
    const size_t bytes = 8 * (2 * size_t(n0_ + 1) + size_t(e) + size_t(listed) + size_t(layers_) + 8) + 4 * (size_t(e) + size_t(listed) + 8);
    if (staging_ == nullptr || staging_->bytes() < bytes) {
      if (staging_ == nullptr) staging_ = &own_staging_;
      staging_->allocate(bytes);
    }
    char* next = staging_->get();
    const int team = parallel_team(e + n0_, threads);
    auto place = [&](const auto* src, auto* dst, int64_t count) {
      using D = std::remove_pointer_t<decltype(dst)>;
      D* staged = reinterpret_cast<D*>(next);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1 && count > 65536)
      for (int64_t x = 0; x < count; ++x) staged[x] = static_cast<D>(src[x]);
      FC_CUDA(cudaMemcpyAsync(dst, staged, sizeof(D) * size_t(count), cudaMemcpyHostToDevice, st));
      next += (sizeof(D) * size_t(count) + 7) & ~size_t(7);
    };
    place(z.offsets, offsets, n0_ + 1);
    place(z.columns, columns, e);  // int64 -> int32 (n < 2^30)
    place(z.fixed, weights, e);    // int64 -> its two's complement word
    place(lstart.data(), ls, n0_ + 1);
    place(llayer.data(), ll, listed);
    place(lweight.data(), lw, listed);
    place(z.layer_gp, gp, layers_);
    FC_CUDA(cudaStreamSynchronize(st));  // the host vectors go out of scope
  }

  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  // Adds the scope's wall time to a phase (every step ends on a stream synchronization).
  struct Timed {
    double& total;
    Clock::time_point start = Clock::now();
    explicit Timed(double& t) : total(t) {}
    ~Timed() { total += since(start); }
  };

  // labels (n0 ids < n0) as int32 in the state's target array (free after the passes).
  int32_t* upload_labels(const std::vector<int64_t>& labels) {
    if (uploaded_ != labels) {
      const std::vector<int32_t> l(labels.begin(), labels.end());
      FC_CUDA(cudaMemcpyAsync(s_.target, l.data(), sizeof(int32_t) * l.size(), cudaMemcpyHostToDevice, stream_.get()));
      FC_CUDA(cudaStreamSynchronize(stream_.get()));
      uploaded_ = labels;
    }
    return s_.target;
  }

  // count rounds launch(state, i, stream) back to back, round i's counters at s_.counters + 4 i
  // (from zero), read back once: round i's counts at [4 i .. 4 i + 3] of the result.
  template <class Launch>
  const ull* batched(int64_t count, Launch launch) {
    const cudaStream_t st = stream_.get();
    FC_CUDA(cudaMemsetAsync(s_.counters, 0, sizeof(ull) * 4 * size_t(count), st));
    for (int64_t i = 0; i < count; ++i) {
      kernels::SyncState si = s_;
      si.counters = s_.counters + 4 * i;
      check_cuda(launch(si, i, st), "a batch of rounds");
    }
    FC_CUDA(cudaMemcpyAsync(batch_counts_, s_.counters, sizeof(ull) * 4 * size_t(count), cudaMemcpyDeviceToHost, st));
    FC_CUDA(cudaStreamSynchronize(st));
    return batch_counts_;
  }

  // The counters after launch(stream) from zero: a step's counts, read back (the step's end).
  template <class Launch>
  const ull* counted(Launch launch, const char* what) {
    FC_CUDA(cudaMemsetAsync(s_.counters, 0, sizeof(ull) * 4, stream_.get()));
    check_cuda(launch(stream_.get()), what);
    FC_CUDA(cudaMemcpyAsync(counts_, s_.counters, sizeof(counts_), cudaMemcpyDeviceToHost, stream_.get()));
    FC_CUDA(cudaStreamSynchronize(stream_.get()));
    return counts_;
  }

  int device_;
  PinnedBuffer* staging_;     // the context's (may be null: own_staging_ then)
  PinnedBuffer own_staging_;
  Stream stream_;  // made on the engine's device (make_leiden_engine's scope)
  kernels::SyncTerms t_;
  int64_t n0_;
  int64_t layers_ = 0;
  DeviceLevel zero_, levels_[2];
  const DeviceLevel* level_ = nullptr;
  kernels::SyncState s_;
  DeviceBuffer label_, target_, target_weight_, active_, touched_, sum_p_, sum_n_, size_, refined_, ext_, sub_p_, sub_n_,
      sub_size_, own_, gp_, moves_left_, table_keys_, table_values_, counters_, used_, flags_, id_, map_, level_of_, out_, key_buffer_[2],
      value_buffer_[2], scratch_, community_, new_label_, counts_buffer_;
  uint64_t* keys_[2] = {nullptr, nullptr};
  ull* values_[2] = {nullptr, nullptr};
  size_t scratch_bytes_ = 0;
  ull counts_[4] = {0, 0, 0, 0};
  static constexpr int64_t kBatch = 4;  // rounds launched between two reads of their counts
  ull batch_counts_[4 * kBatch] = {};
  DeviceBuffer raw_offsets_, raw_columns_, raw_weights_;
  std::vector<int64_t> uploaded_;  // the labels now in s_.target (the final checks')
  double copy_seconds_ = 0, level0_seconds_ = 0, build_seconds_ = 0, move_seconds_ = 0, refine_seconds_ = 0,
         aggregate_seconds_ = 0, check_seconds_ = 0;
};

}  // namespace

int64_t leiden_engine_bytes(const LeidenLevelZero& z) {
  const int64_t raw = z.offsets[z.n], n = z.n;
  // The caller's arrays (int32 columns, float weights), level 0, two aggregates at most as large, the tables, the
  // sort's halves, the per-node state; the scratch is small beside them.
  // Layered: the community sums' 2 n rows of L and the subcommunities' n rows, 8 bytes a value.
  const int64_t rows = z.layers > 0 ? 24 * n * z.layers : 0;
  return raw * 8 + raw * (12 + 2 * 12 + 4 * 12 + 2 * 16) + n * 120 + rows + (int64_t(64) << 20);
}

std::unique_ptr<LeidenEngine> make_leiden_engine(int device, const LeidenLevelZero& z, const kernels::SyncTerms& terms,
                                                 int64_t memory_limit, int threads, PinnedBuffer* staging) {
  if (z.n >= (int64_t(1) << 30)) return nullptr;  // int32 ids below 2n
  const int64_t bytes = leiden_engine_bytes(z);
  if (memory_limit > 0 && bytes > memory_limit) return nullptr;
  DeviceScope scope(device);
  size_t free_bytes = 0, total = 0;
  FC_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (bytes > int64_t(free_bytes)) return nullptr;
  return std::make_unique<CudaLeidenEngine>(device, z, terms, threads, staging);
}

std::unique_ptr<LeidenEngine> CudaBackend::leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                                         const RunSettings& run) {
  if (std::unique_ptr<LeidenEngine> e = make_leiden_engine(device_, g, terms, run.memory_limit, run.threads, &leiden_staging_))
    return e;
  return make_cpu_leiden_engine(g, terms, run.threads);
}

}  // namespace cuda
}  // namespace fc
