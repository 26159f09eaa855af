#include "graph/graph_recycler.hpp"

#include <algorithm>
#include <utility>

namespace fc {

void GraphRecycler::take(SymmetricCsr& csr) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.empty() || !csr.columns.empty() || !csr.weights.empty()) return;
  auto largest = std::max_element(kept_.begin(), kept_.end(),
                                  [](const Arrays& a, const Arrays& b) { return a.columns.capacity() < b.columns.capacity(); });
  csr.columns.swap(largest->columns);
  csr.weights.swap(largest->weights);
  kept_.erase(largest);
}

void GraphRecycler::give(SymmetricCsr& csr) noexcept {
  if (csr.columns.capacity() < kMinEntries || csr.weights.capacity() < csr.columns.capacity()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.capacity() < limit_) {
    try {
      kept_.reserve(limit_);
    } catch (...) {
      return;  // no room to keep it: it is freed with the graph
    }
  }
  auto smallest = std::min_element(kept_.begin(), kept_.end(),
                                   [](const Arrays& a, const Arrays& b) { return a.columns.capacity() < b.columns.capacity(); });
  if (kept_.size() >= limit_) {
    if (smallest->columns.capacity() >= csr.columns.capacity()) return;
    kept_.erase(smallest);  // freed here; this graph's arrays are larger
  }
  kept_.emplace_back();
  kept_.back().columns.swap(csr.columns);
  kept_.back().weights.swap(csr.weights);
  kept_.back().columns.clear();
  kept_.back().weights.clear();
}

void GraphRecycler::keep_up_to(size_t graphs) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = std::max(limit_, graphs);
}

void GraphRecycler::fit(SymmetricCsr& csr) {
  const size_t size = csr.columns.size();
  if (csr.columns.capacity() <= 2 * size + kMinEntries) return;
  SymmetricCsr small;
  small.columns.assign(csr.columns.begin(), csr.columns.end());
  small.weights.assign(csr.weights.begin(), csr.weights.end());
  csr.columns.swap(small.columns);
  csr.weights.swap(small.weights);
  give(small);
}

}  // namespace fc
