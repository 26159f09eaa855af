// Host memory of destroyed graphs, kept by the context that built them for its next graphs.
//
// A graph's arrays are 12 bytes an edge each way (1 GB for 41 M edges). Fresh memory costs a page
// fault and a zero-fill by the kernel per page on its first touch, about 5 GB/s on the H100
// machine: more than the whole device assembly and copy of a graph. A sliding-window loop (build
// a window's graph, use it, destroy it, next window) pays it every window unless the next graph
// writes into the memory the last one left, which is what this keeps: the arrays of up to
// kKept destroyed graphs (the largest; more on a context over several parts, keep_up_to), each at
// least kMinEntries long. Shared by the copies of a context's state (per-window and per-part
// views) and freed with the last of them, i.e. by
// fc_context_destroy once no iterator of the context is alive. Thread-safe: a graph may be
// destroyed on any thread.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"

namespace fc {

class GraphRecycler {
 public:
  static constexpr size_t kKept = 2;
  static constexpr size_t kMinEntries = size_t(1) << 20;

  // Moves the largest kept arrays into `csr` (its columns and weights must be empty; they come
  // back empty, with that capacity), or leaves it as it is when none is kept.
  void take(SymmetricCsr& csr);
  // Keeps `csr`'s arrays if they are large enough and among the kKept largest; frees the rest.
  void give(SymmetricCsr& csr) noexcept;
  // Keeps up to `graphs` destroyed graphs' arrays from now on (never fewer than kKept): a context
  // over D parts builds D window graphs at once (dfc/window_graphs.hpp), each wanting arrays.
  void keep_up_to(size_t graphs);
  // After a graph is built into taken arrays: when they are far larger than it (more than twice
  // its entries and kMinEntries past them), it moves to arrays of its size and the large ones are
  // kept again, so that a small graph never holds on to a large graph's memory.
  void fit(SymmetricCsr& csr);

 private:
  struct Arrays {
    EdgeArray<int64_t> columns;
    EdgeArray<float> weights;
  };
  std::mutex mutex_;
  size_t limit_ = kKept;
  std::vector<Arrays> kept_;  // at most limit_, reserved up front (give never allocates)
};

}  // namespace fc
