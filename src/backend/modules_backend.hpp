// The modules capability of a backend: an engine for the group products of the modularity
// eigensolver on a device (cuda/cuda_modules.cpp; the CPU backend has none: the host does them,
// modules/modularity.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/eigen_space.hpp"
#include "backend/graph_backend.hpp"
#include "backend/leiden_engine.hpp"
#include "base/run_settings.hpp"

namespace fc {


// The terms of Newman's B^(g) x for one group (modules/modularity.cpp), n values each, host memory:
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

class ModulesBackend {
 public:
  virtual ~ModulesBackend() = default;

  // --- modules (modules/modularity.cpp drives it)

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

  // The engine of the synchronous Leiden (leiden_engine.hpp) for level-0 graph g: the host's
  // unless the backend runs it on a device (every engine gives the same labels).
  virtual std::unique_ptr<LeidenEngine> leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                                      const RunSettings& run) {
    // Inline, as every member here: an out-of-line virtual would be the class's key function,
    // its type information then emitted in the library alone (hidden), and a backend a test
    // derives (tests/cpp/test_split.cpp) would not link under clang.
    return make_cpu_leiden_engine(g, terms, run.threads);
  }
};

}  // namespace fc
