// The networks capability of a backend: edges, graphs, degree, histograms and top-k chosen from
// the pairs without the N x N matrix (cpu/cpu_graph.cpp, cuda/cuda_graph.cpp; graph/graph.cpp
// drives it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "backend/host_pins.hpp"
#include "backend/series_storage.hpp"
#include "base/run_settings.hpp"

namespace fc {

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

// An undirected graph as symmetric CSR (graph/graph.hpp's GraphData holds one): row u holds its
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

// A graph's symmetric CSR kept on a backend's device (Backend::threshold_graph_device).
class DeviceCsr {
 public:
  virtual ~DeviceCsr() = default;
  int64_t n = 0, n_edges = 0;
};

class GraphBackend {
 public:
  virtual ~GraphBackend() = default;

  // --- networks (src/graph/graph.cpp drives these). Every result must be deterministic: the same
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

  // The density rule's threshold guessed from a sample of pairs (density_guess.hpp): a value t at
  // which, almost surely, at least `target` of the `eligible` pairs have |r| >= t, and not many
  // more. Only a guess: the rule counts the pairs that pass it and falls back to abs_histogram
  // when they are too few, so the answer never depends on it. False: no guess (the rule then takes
  // the histogram's two passes). Reports no progress.
  virtual bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess, const RunSettings& run) {
    (void)s, (void)target, (void)eligible, (void)guess, (void)run;
    return false;
  }

  // For every series i: the k series j != i of largest |r(i, j)| (ties: smaller j first), in that
  // order, into columns[i*k .. i*k+k) and their r into values. Constant series (as i or j) are
  // never chosen: a row with fewer than k candidates is padded with column -1 and value 0.
  // Progress is reported in rows.
  virtual void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) = 0;

  // --- row bands: one call's work split across devices (backend/split_backend.hpp runs a band per
  // device and joins them). A band is the pairs (i, j), j > i, with i in [row_begin, row_end) (top_k:
  // the rows i in the band, every j). Bands start at multiples of graph_row_granularity(s, run)
  // (the last ends at s.n), so a backend can keep its own tile grid and give the whole call's bits.
  // Each returns false where the backend offers no band path (nothing written; the caller then
  // runs the whole call on one device).
  virtual int64_t graph_row_granularity(const SeriesView& s, const RunSettings& run) const {
    (void)s, (void)run;
    return 1;
  }
  // The band's edges as threshold_edges gives them: out.row_count has row_end - row_begin entries
  // (replaced); concatenating the bands' edges in row order gives threshold_edges's.
  virtual bool threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                    UpperEdges& out, const RunSettings& run) {
    (void)s, (void)test, (void)row_begin, (void)row_end, (void)out, (void)run;
    return false;
  }
  // The band's share of threshold_degree, ADDED into s.n-entry arrays: degree[x] += the band's
  // passing pairs with x at either end; strength_fixed[x] += their weights as the backend's
  // exact fixed point (strength_fraction_bits(s) bits after the point, rounded as threshold_degree
  // rounds its partial sums). Summing every band's arrays, then strength = ldexp(fixed, -bits),
  // gives threshold_degree's bits. Either array may be null.
  virtual bool threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                     int64_t* degree, int64_t* strength_fixed, const RunSettings& run) {
    (void)s, (void)test, (void)row_begin, (void)row_end, (void)degree, (void)strength_fixed, (void)run;
    return false;
  }
  virtual int strength_fraction_bits(const SeriesView& s) const {
    (void)s;
    return 0;
  }
  // The band's |r| histogram ADDED into counts (kAbsHistogramBins entries).
  virtual bool abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                                  const RunSettings& run) {
    (void)s, (void)row_begin, (void)row_end, (void)counts, (void)run;
    return false;
  }
  // top_k's rows [row_begin, row_end): row i's k columns and values at (i - row_begin) * k.
  virtual bool top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns,
                          float* values, const RunSettings& run) {
    (void)s, (void)k, (void)row_begin, (void)row_end, (void)columns, (void)values, (void)run;
    return false;
  }
};

}  // namespace fc
