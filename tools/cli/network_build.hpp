// network_build.hpp - the scan's network as the graph, modules and dfc commands build it: the
// --weights option's code, and one fc_pcc_graph call timed as "compute".
#pragma once

#include <string>
#include <vector>

#include "handles.hpp"
#include "session.hpp"

namespace fcli {

// --weights among `choices` (binary, signed, abs; the first is the default) as an fc_graph_weights
// code; *name gets the word given.
int graph_weights_code(const Args& args, std::string* name,
                       const std::vector<std::string>& choices = {"binary", "signed", "abs"});

// The network of the session's series under `rule` (fc_pcc_graph), with its progress and timing.
GraphPtr build_graph(Session& s, const EdgeRule& rule, int weights);

}  // namespace fcli
