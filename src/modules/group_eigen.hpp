// A group's leading eigenpair for a bisection: on the host from its subgraph, or on a backend's
// device engine with the same bits (group_eigen.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/modules_backend.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/local_graph.hpp"
#include "modules/modularity.hpp"
#include "modules/phases.hpp"

namespace fc {

// The leading eigenpair of the group's B^(g) on the host, from its subgraph lg.
EigenResult host_eigenpair(const LocalGraph& lg, const ModularityTerms& t, const ThreadCount& threads,
                           const EigenOptions& eo, const EarlyAccept& accept, Phases& phases);

// The leading eigenpair of the group (nodes: ascending global ids) on a backend's device engine.
EigenResult device_eigenpair(GroupProducts& device, const std::vector<int64_t>& nodes, const ModularityTerms& t,
                             const EigenOptions& eo, const EarlyAccept& accept);

// The eigensolver's settings for a group of n nodes with this seed and warm start (empty: none).
EigenOptions eigen_options(uint64_t seed, const std::vector<double>& warm, int64_t n, int threads);

}  // namespace fc
