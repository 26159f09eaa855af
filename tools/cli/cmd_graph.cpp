// cmd_graph.cpp - `fastconn graph`: the network as fastconn's graph file and a text edge list,
// built with fc_pcc_graph, without the N x N matrix (`fastconn modules` is in cmd_modules.cpp).
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"
#include "network_build.hpp"
#include "session.hpp"
#include "text_file.hpp"

namespace fcli {
namespace {

void write_edge_list(const fc_graph* g, int64_t n_edges, const std::string& tmp, const std::string& shown,
                     const std::string& rule_text) {
  std::vector<int64_t> i(static_cast<size_t>(n_edges)), j(static_cast<size_t>(n_edges));
  std::vector<float> w(static_cast<size_t>(n_edges));
  check(fc_graph_edges(g, i.data(), j.data(), w.data(), n_edges), "fc_graph_edges");
  TextFile f(tmp, shown);
  std::fprintf(f.get(), "# fastconn edge list (%s): node_i node_j weight, one undirected edge per line, i < j\n",
               rule_text.c_str());
  std::fprintf(f.get(), "# nodes are the mask's voxels in NIfTI storage order (x fastest), numbered from 0\n");
  for (int64_t e = 0; e < n_edges; ++e) {
    if ((e & 0xFFFFF) == 0) check_cancel();
    std::fprintf(f.get(), "%lld %lld %.9g\n", static_cast<long long>(i[static_cast<size_t>(e)]),
                 static_cast<long long>(j[static_cast<size_t>(e)]), static_cast<double>(w[static_cast<size_t>(e)]));
  }
  f.close();
}

void write_nodes(Session& s, const std::string& tmp, const std::string& shown) {
  TextFile f(tmp, shown);
  const int64_t nx = s.scan()->dim[1], ny = s.scan()->dim[2];
  std::fprintf(f.get(), "# fastconn nodes: node i j k (0-based voxel indices of the scan %s)\n", s.scan_path().c_str());
  for (int64_t n = 0; n < s.n_voxels(); ++n) {
    const int64_t v = s.voxels()[static_cast<size_t>(n)];
    std::fprintf(f.get(), "%lld %lld %lld %lld\n", static_cast<long long>(n), static_cast<long long>(v % nx),
                 static_cast<long long>((v / nx) % ny), static_cast<long long>(v / (nx * ny)));
  }
  f.close();
}

}  // namespace

int run_graph(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + edge_specs() +
                std::vector<OptionSpec>{{"weights", 0, "binary|signed|abs"}, {"edge-list", 0, "FILE"}, {"nodes", 0, "FILE"}},
            "graph");
  if (args.has("help")) {
    print_command_help("graph");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const EdgeRule rule = edge_rule_from(args);
  std::string weights_name;
  const int weights = graph_weights_code(args, &weights_name);
  const std::string graph_tmp = s.reserve_file(s.output(), "graph");
  const std::string edges_tmp = args.has("edge-list") ? s.reserve_file(args.text("edge-list"), "edge_list") : "";
  const std::string nodes_tmp = args.has("nodes") ? s.reserve_file(args.text("nodes"), "nodes") : "";
  describe_edge_rule(rule, s.parameters());
  s.parameters().set("weights", weights_name);
  s.parameters().set("graph_format", "fastconn graph file (fc_graph_save; magic FCGRAPH1, CSR arrays)");
  s.parameters().set("node_order", "mask voxels in NIfTI storage order (x fastest), numbered from 0");

  s.load_scan();
  s.select_voxels();
  s.make_series();
  GraphPtr g = build_graph(s, rule, weights);
  int64_t n_nodes = 0, n_edges = 0;
  check(fc_graph_info(g.get(), &n_nodes, &n_edges), "fc_graph_info");

  const double t1 = now_seconds();
  check(fc_graph_save(g.get(), graph_tmp.c_str()), "fc_graph_save");
  if (!edges_tmp.empty()) write_edge_list(g.get(), n_edges, edges_tmp, args.text("edge-list"), rule.text);
  if (!nodes_tmp.empty()) write_nodes(s, nodes_tmp, args.text("nodes"));
  s.set_timing("write", now_seconds() - t1);
  s.results().set("n_nodes", n_nodes);
  s.results().set("n_edges", n_edges);
  s.progress().note("network: " + std::to_string(n_nodes) + " nodes, " + std::to_string(n_edges) + " edges");
  s.finish();
  return kExitOk;
}

}  // namespace fcli
