// The one interface every compute backend implements (cpu/ always, cuda/ when built).
//
// The core (src/core/) validates arguments, normalizes the input in float64 and decides what
// to compute; a backend stores normalized series and computes products of them. A backend
// never calls the public API and never sees unvalidated input.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/host_pins.hpp"
#include "core/leading_eigen.hpp"
#include "core/run_settings.hpp"
#include "fastconn/fastconn.h"

namespace fc {

// Normalized series as a backend stores them: row s holds z_s = (x_s - mean_s) / ||x_s - mean_s||
// (all zeros for a constant series), so that r(a, b) = <z_a, z_b>.
class SeriesStorage {
 public:
  virtual ~SeriesStorage() = default;
};

// What a backend needs to know about a series set besides its storage.
struct SeriesView {
  int64_t n = 0;                        // number of series
  int64_t t = 0;                        // samples per series
  fc_precision precision = FC_PRECISION_FP32;  // precision the storage was created in
  const std::vector<uint8_t>* constant = nullptr;  // constant[s] != 0: series s has zero variance
  int64_t n_constant = 0;
  const SeriesStorage* storage = nullptr;
};

enum class ScalarType { F32, F64 };

// Where results go: host memory the caller owns (typed), or device memory (CUDA backend only).
struct Output {
  void* data = nullptr;
  ScalarType type = ScalarType::F32;
  bool on_device = false;
};

// An edge test applied to r (after clamping): |r| >= threshold, or r >= threshold. Pairs with a
// constant series never pass, whatever the constant policy.
struct EdgeTest {
  bool absolute = true;
  float threshold = 0.0f;
};

// An allocator whose resize leaves new elements uninitialized. Edge arrays are filled right after
// growing, by several threads; a value-initializing resize would add a single-threaded pass over
// hundreds of MB (measured on the H100 machine: about the whole gap between graph build and the
// GEMMs) and do the first touch on one thread.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialization: no write for int64_t / float
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  // Memory a backend page-locked for its copies is unlocked before it is freed (host_pins.hpp).
  void deallocate(T* p, size_t n) {
    HostPins::instance().release(p);
    std::allocator<T>::deallocate(p, n);
  }
};
template <class T>
using EdgeArray = std::vector<T, UninitializedAllocator<T>>;

// Edges of the strict upper triangle, grouped by row: row i's edges (i, j), j > i ascending, are
// columns/values [sum(row_count[0..i)), + row_count[i]). values hold r (clamped, float).
struct UpperEdges {
  std::vector<int64_t> row_count;  // n entries
  EdgeArray<int64_t> columns;
  EdgeArray<float> values;
};

// An undirected graph as symmetric CSR (core/graph.hpp's GraphData holds one): row u holds its
// lower neighbours (the w < u with an edge (w, u), ascending) and then its upper ones
// (ascending), so columns come out sorted; each edge's weight is fc_graph_weights's of its r
// (1, r or |r|) in both rows.
struct SymmetricCsr {
  std::vector<int64_t> offsets;  // n + 1 entries
  EdgeArray<int64_t> columns;
  EdgeArray<float> weights;
};

// Histogram of |r| over every pair of non-constant series, bins by the float bit pattern of |r|:
// bin = bits(|r|) >> kAbsHistogramShift (|r| in [0, 1], so bits <= 0x3F800000). Pairs with a
// constant series are not counted. The bit pattern of a non-negative float orders like its value,
// so "bin >= b" is exactly "|r| >= float_from_bits(b << kAbsHistogramShift)".
constexpr int kAbsHistogramShift = 14;
constexpr int64_t kAbsHistogramBins = (int64_t(0x3F800000) >> kAbsHistogramShift) + 1;

// The terms of Newman's B^(g) x for one group (core/modularity.cpp), n values each, host memory:
//   (B^(g) x)_i = ((s_i - (gd_pos k_pos_i) p) + (gd_neg k_neg_i) q) - r_i x_i,
// p = k_pos . x and q = k_neg . x (q = 0 when gd_neg == 0) summed as leading_eigen.hpp's
// EigenSpace sums, and s_i the sparse sum: over row nodes[i]'s entries e, in row order, whose column
// is in the group and whose weight w_e != 0, of cw(w_e) * x[local index of the column], with
// cw(w) = c_pos * w for w > 0, else c_neg * w (in double); every product and sum rounded once.
// r null: the engine computes r itself from the graph (the host's subgraph, which gives it, is
// then still being made): r_i = rs_i - gamma ((d_pos k_pos_i) group_pos - (d_neg k_neg_i)
// group_neg), rs_i the sum of cw(w_e) over row nodes[i]'s entries in the group, in row order.
struct GroupTerms {
  const double* k_pos = nullptr;
  const double* k_neg = nullptr;
  const double* r = nullptr;
  double gd_pos = 0, gd_neg = 0;
  double gamma = 0, d_pos = 0, d_neg = 0, group_pos = 0, group_neg = 0;  // for r null
};

// A backend's engine for the eigensolver of modularity groups, away from the host: the group's
// vectors live on its device and every operation has the host's bits (EigenSpace), so both
// backends find the same modules.
class GroupProducts {
 public:
  virtual ~GroupProducts() = default;
  // Groups with fewer stored entries than this are solved on the host (a device round trip per
  // operation costs more than their work).
  int64_t min_entries = 0;
  // The space of the group (ascending global ids; local index i is nodes[i]) whose operator is
  // B^(g) with `terms` (copied; nodes too). Valid until the next select.
  virtual EigenSpace& select(const std::vector<int64_t>& nodes, const GroupTerms& terms) = 0;
  // Another engine for a concurrent analysis, over the same device copy of the graph (null when
  // the device lacks the memory for its own buffers).
  virtual std::unique_ptr<GroupProducts> another() const = 0;
};

// A graph's symmetric CSR kept on a backend's device (Backend::threshold_graph_device).
class DeviceCsr {
 public:
  virtual ~DeviceCsr() = default;
  int64_t n = 0, n_edges = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual fc_backend kind() const = 0;
  virtual std::string describe() const = 0;  // e.g. "CPU (OpenBLAS, 2 threads)"

  // Row blocks that are multiples of this many rows compute no row twice (a backend that works
  // on a fixed grid recomputes a partly requested grid tile); automatic block sizes use it.
  virtual int64_t block_row_granularity() const { return 1; }

  // Storage for n series of t samples in `precision`; rows are filled by upload_rows.
  virtual std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) = 0;
  // Copy `rows` normalized rows (row-major, contiguous, rows x t) into rows
  // [row_begin, row_begin + rows) of the storage.
  virtual void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) = 0;

  // The triangle's slice for "rows" [row_begin, row_end):
  //   FC_TRIU_ROW: every pair (i, j), j > i, for i in the range, ordered by i then j;
  //   FC_TRIU_COL: every pair (i, j), i < j, for j in the range, ordered by j then i.
  // Both are contiguous slices of the ordered triangle; `out` points at the slice's first value.
  // Values clamped to [-1, 1]; pairs with a constant series follow run.constant_policy.
  virtual void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end,
                    const Output& out, const RunSettings& run) = 0;

  // The triangles of windows of the stored series s, as triu gives them for the windows that
  // create_window makes ([begins[k], begins[k] + length) of s's rows, weights as there): window
  // k's rows [row_begin, row_end) into out + k * per_window values, progress counting every
  // window's values. For fc_dfc_triu: a backend that can overlaps one window's output with the
  // next window's work (one triu call a window drains its pipeline in between). false: no such
  // path here, nothing done (the caller makes each window and calls triu).
  virtual bool triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length, const double* weights,
                            fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                            int64_t per_window, const RunSettings& run) {
    (void)s, (void)begins, (void)length, (void)weights, (void)order, (void)row_begin, (void)row_end, (void)out,
        (void)per_window, (void)run;
    return false;
  }

  // out[(i - a_begin) * ld + j] = r(a_i, b_j) for i in [a_begin, a_end), j in [0, b.n).
  // same_set: a and b are the same series set, so the diagonal (i == j) is set to exactly 1
  // (or the constant policy's value for constant series).
  virtual void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end,
                     bool same_set, const Output& out, int64_t ld, const RunSettings& run) = 0;

  // --- networks (src/core/graph.cpp drives these). Every result must be deterministic: the same
  // input and settings give the same edges, counts and bit-identical sums. Progress is reported
  // in pairs of the triangle, as for triu.

  // Every pair (i < j) passing `test`, in row order, into `out` (replaced).
  virtual void threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) = 0;

  // threshold_graph in two halves, for a sequence of graphs (fc_dfc_next_graph builds the next
  // window's graph while this one is copied out). threshold_graph_device: the graph's CSR made and
  // kept on the backend's device; null when the backend has no such path or this graph cannot
  // stay there (the caller then calls threshold_graph). copy_device_csr: that CSR into `csr`, as
  // threshold_graph fills it, calling meanwhile() on this thread while the copy runs where it can
  // (else after it).
  virtual std::unique_ptr<DeviceCsr> threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                            const RunSettings& run) {
    (void)s, (void)test, (void)weights, (void)run;
    return nullptr;
  }
  virtual void copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) {
    (void)g, (void)csr;
    if (meanwhile) meanwhile();
  }

  // The graph of every pair passing `test` with fc_graph_weights `weights`. A backend that can
  // assemble the symmetric CSR itself (CUDA: on the device, copied to the host once) fills `csr`
  // and returns true; otherwise it fills `edges` as threshold_edges does and returns false, and
  // the caller assembles the CSR on the host. Both give the same graph, bit for bit.
  virtual bool threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr,
                               UpperEdges& edges, const RunSettings& run) {
    (void)weights;
    (void)csr;
    threshold_edges(s, test, edges, run);
    return false;
  }

  // degree[i] = number of j != i with (i, j) passing `test`; strength[i] = sum over them of r
  // (test.absolute == false) or |r| (true), summed in double (or finer) in an order-independent
  // way so that the bits never depend on scheduling. Either may be null.
  virtual void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                                const RunSettings& run) = 0;

  // counts (kAbsHistogramBins entries, replaced) of |r| over the pairs i < j of non-constant series.
  virtual void abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) = 0;

  // For every series i: the k series j != i of largest |r(i, j)| (ties: smaller j first), in that
  // order, into columns[i*k .. i*k+k) and their r into values. Constant series (as i or j) are
  // never chosen: a row with fewer than k candidates is padded with column -1 and value 0.
  // Progress is reported in rows.
  virtual void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) = 0;

  // --- windows and low rank (src/core/window.cpp and src/core/lowrank.cpp drive these;
  // cpu/cpu_window.cpp, cuda/cuda_window.cpp implement them).

  // A new storage of s.n rows of `length` samples in s.precision: for each row x of s's
  // normalized rows, y = x[begin .. begin + length), m = sum(w y) / sum(w), and the stored row is
  // sqrt(w) (y - m) / ||sqrt(w) (y - m)||, computed in float64 (weights: `length` values > 0, or
  // null for all 1). Rows whose window holds equal values (compared exactly, as stored) are
  // stored as zeros and flagged: constant[i] = 1, else 0 (s.n entries, written by the backend).
  // The results must not depend on the thread count (same bits run to run).
  virtual std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length,
                                                       const double* weights, uint8_t* constant,
                                                       const RunSettings& run) = 0;

  // gram (s.t x s.t, row-major, float64) = Z^T Z, Z the n x t normalized rows, summed in float64.
  virtual void gram(const SeriesView& s, double* gram, const RunSettings& run) = 0;

  // factor (s.n x l, row-major, float) = Z * basis, basis t x l row-major float64; the products
  // summed in float64, then rounded.
  virtual void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) = 0;

  // --- modules (core/modularity.cpp drives it)

  // An engine for the group products of the graph (n nodes, symmetric CSR g) with the weight
  // coefficients c_pos, c_neg, or null where the host should do them (the CPU backend; a graph
  // that does not fit the memory limit or the device). The graph is copied to the device once;
  // `engines` of them (this and its another()s) must fit the memory limit together.
  virtual std::unique_ptr<GroupProducts> group_products(const SymmetricCsr& g, int64_t n, double c_pos, double c_neg,
                                                        int engines, const RunSettings& run) {
    (void)g;
    (void)n;
    (void)c_pos;
    (void)c_neg;
    (void)engines;
    (void)run;
    return nullptr;
  }
};

// Creates a backend; throws fc::Error(FC_ERR_BACKEND_UNAVAILABLE) with the reason when the kind
// is not built in or has no usable device. AUTO is resolved by the caller (core/context.cpp).
std::shared_ptr<Backend> make_cpu_backend();
std::shared_ptr<Backend> make_cuda_backend(int device);  // src/backend/cuda/
bool cuda_backend_compiled();

}  // namespace fc
