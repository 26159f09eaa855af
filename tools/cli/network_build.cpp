// network_build.cpp - see network_build.hpp.
#include "network_build.hpp"

#include "errors.hpp"

namespace fcli {

int graph_weights_code(const Args& args, std::string* name, const std::vector<std::string>& choices) {
  *name = args.choice("weights", choices, choices.front());
  return *name == "signed" ? FC_GRAPH_WEIGHTED : *name == "abs" ? FC_GRAPH_WEIGHTED_ABS : FC_GRAPH_BINARY;
}

GraphPtr build_graph(Session& s, const EdgeRule& rule, int weights) {
  fc_graph* g = nullptr;
  s.progress().begin("network");
  const double t0 = now_seconds();
  check(fc_pcc_graph(s.context(), s.series(), rule.rule, rule.param, weights, &g), "fc_pcc_graph");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  return GraphPtr(g);
}

}  // namespace fcli
