// Multilayer modularity by the synchronous Leiden (fc_multilayer_modularity_v2 with
// FC_LEIDEN_SYNCHRONOUS): the supra-graph of multilayer_supra.hpp in fixed point, driven through a
// backend's engine in layered mode (backend/leiden_engine.hpp), so the host and the device give
// the same labels.
#pragma once

#include <vector>

#include "backend/modules_backend.hpp"
#include "modules/multilayer.hpp"

namespace fc {

// As find_multilayer (the input checked by the caller), its passes synchronous.
Multilayer find_multilayer_sync(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                                const fc_multilayer_options& options, ModulesBackend& backend, const RunSettings& run,
                                Progress& progress);

}  // namespace fc
