// dfc_flexibility.hpp - `fastconn dfc --flexibility`: multilayer modularity (Mucha et al. 2010)
// over the sliding windows' networks, each voxel coupled to itself in consecutive windows, and
// each voxel's flexibility (Bassett et al. 2011: the fraction of consecutive window pairs in
// which its module changes).
#pragma once

#include <string>
#include <vector>

#include "session.hpp"

namespace fcli {

// The options of the multilayer step (--flexibility, --module-labels, --omega, --resolution,
// --random-seed, --weights, --multilayer-algorithm).
std::vector<OptionSpec> flexibility_specs();

struct FlexibilitySpec {
  // Version-2 options: --multilayer-algorithm picks FC_LEIDEN_QUEUE (the default,
  // fc_multilayer_modularity's result bit for bit) or FC_LEIDEN_SYNCHRONOUS.
  fc_multilayer_options_v2 options;
  std::string algorithm_name;  // queue | synchronous, for the sidecar
  int weights;               // fc_graph_weights of the windows' networks: binary or abs (weights >= 0)
  std::string weights_name;
};
// Checks and reads the options; refuses them without --flexibility or --module-labels.
FlexibilitySpec flexibility_spec_from(const Args& args);
void describe_flexibility(const FlexibilitySpec& spec, Json& parameters);

struct WindowModules {
  std::vector<float> flexibility;  // per voxel, mask order
  std::vector<int32_t> labels;     // window-major (window k at k * N), modules numbered from 1
};
// Every window's network (fc_dfc_next_graph) under `rule`, then fc_multilayer_modularity_v2 over
// them, with Q and the module count in the sidecar's results (timings "window_graphs" and
// "multilayer").
WindowModules dfc_window_modules(Session& s, const EdgeRule& rule, const FlexibilitySpec& spec, int64_t length,
                                 int64_t step, int taper, double sigma);

}  // namespace fcli
