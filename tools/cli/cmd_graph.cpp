// cmd_graph.cpp - `fastconn graph` (the network as fastconn's graph file and a text edge list)
// and `fastconn modules` (Newman's modularity on that network, labels as an integer map). Both
// build the network with fc_pcc_graph, without the N x N matrix.
#include <cerrno>
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {
namespace {

int weights_code(const Args& args, std::string* name) {
  *name = args.choice("weights", {"binary", "signed", "abs"}, "binary");
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

// A text file written with every call checked (a full disk shows up at the latest in fclose).
class TextFile {
 public:
  TextFile(const std::string& tmp, const std::string& shown) : shown_(shown), f_(std::fopen(tmp.c_str(), "wb")) {
    if (!f_) throw Error(kExitLibrary, "cannot write " + shown_ + ": " + system_reason(errno));
  }
  ~TextFile() {
    if (f_) std::fclose(f_);
  }
  FILE* get() { return f_; }
  void close() {
    const bool bad = std::ferror(f_) != 0;
    const int rc = std::fclose(f_);
    f_ = nullptr;
    if (bad || rc != 0) throw Error(kExitLibrary, "cannot write " + shown_ + ": " + system_reason(errno));
  }

 private:
  std::string shown_;
  FILE* f_;
};

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
  const int weights = weights_code(args, &weights_name);
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

int run_modules(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + edge_specs() +
                std::vector<OptionSpec>{{"weights", 0, "binary|signed|abs"},
                                        {"resolution", 0, "G"},
                                        {"max-modules", 0, "K"},
                                        {"min-size", 0, "S"},
                                        {"random-seed", 0, "N"},
                                        {"signed-mode", 0, "gomez|rubinov"},
                                        {"no-refine", 0, nullptr}},
            "modules");
  if (args.has("help")) {
    print_command_help("modules");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const EdgeRule rule = edge_rule_from(args);
  std::string weights_name;
  const int weights = weights_code(args, &weights_name);
  fc_modularity_options opt;
  check(fc_modularity_options_default(&opt), "fc_modularity_options_default");
  if (args.has("resolution")) {
    opt.resolution = args.real("resolution");
    if (!(opt.resolution > 0)) fail("--resolution: " + args.text("resolution") + " is not > 0");
  }
  if (args.has("max-modules")) opt.max_communities = args.integer("max-modules", 0, INT64_MAX);
  if (args.has("min-size")) opt.min_community_size = args.integer("min-size", 1, INT64_MAX);
  if (args.has("random-seed")) opt.seed = static_cast<uint64_t>(args.integer("random-seed", 0, INT64_MAX));
  const std::string signed_mode = args.choice("signed-mode", {"gomez", "rubinov"}, "gomez");
  opt.signed_mode = signed_mode == "rubinov" ? FC_SIGNED_RUBINOV : FC_SIGNED_GOMEZ;
  opt.refine = args.has("no-refine") ? 0 : 1;
  const std::string labels_tmp = s.reserve_map(s.output(), "labels");
  describe_edge_rule(rule, s.parameters());
  s.parameters().set("weights", weights_name);
  s.parameters().set("resolution", opt.resolution);
  s.parameters().set("max_modules", opt.max_communities);
  s.parameters().set("min_size", opt.min_community_size);
  s.parameters().set("random_seed", static_cast<int64_t>(opt.seed));
  s.parameters().set("signed_mode", signed_mode);
  s.parameters().set("refine", opt.refine != 0);
  s.parameters().set("labels", "module number + 1 inside the mask (modules numbered from 1 by first voxel), 0 outside");

  s.load_scan();
  s.select_voxels();
  s.make_series();
  GraphPtr g = build_graph(s, rule, weights);
  int64_t n_edges = 0;
  check(fc_graph_info(g.get(), nullptr, &n_edges), "fc_graph_info");

  fc_modules* raw = nullptr;
  s.progress().begin("modules");
  const double t0 = now_seconds();
  check(fc_modularity(s.context(), g.get(), &opt, &raw), "fc_modularity");
  ModulesPtr m(raw);
  s.set_timing("modularity", now_seconds() - t0);
  s.progress().end();
  int64_t n_nodes = 0, n_modules = 0, n_splits = 0;
  double q = 0;
  check(fc_modules_info(m.get(), &n_nodes, &n_modules, &q, &n_splits), "fc_modules_info");
  std::vector<int64_t> labels(static_cast<size_t>(n_nodes));
  check(fc_modules_labels(m.get(), labels.data(), n_nodes), "fc_modules_labels");
  if (n_modules >= INT32_MAX) throw Error(kExitLibrary, "too many modules for an int32 label map");
  std::vector<int32_t> map(labels.size());
  for (size_t k = 0; k < labels.size(); ++k) map[k] = static_cast<int32_t>(labels[k] + 1);  // 0 = outside the mask

  const double t1 = now_seconds();
  s.write_int_map(labels_tmp, map.data(), NIFTI_INTENT_LABEL, "fastconn modules, " + rule.text);
  s.set_timing("write", now_seconds() - t1);
  s.results().set("n_edges", n_edges);
  s.results().set("n_modules", n_modules);
  s.results().set("modularity_q", q);
  s.results().set("n_splits", n_splits);
  s.progress().note("modules: " + std::to_string(n_modules) + " modules, Q = " + std::to_string(q) + " (" +
                    std::to_string(n_edges) + " edges)");
  s.finish();
  return kExitOk;
}

}  // namespace fcli
