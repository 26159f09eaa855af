// cmd_modules.cpp - `fastconn modules`: the network of the scan (fc_pcc_graph), or a graph file
// (--graph: fc_graph_load), split into modules by Newman's leading eigenvector (fc_modularity, the
// default) or Leiden (fc_leiden_v2), written as an integer label map (a scan) or a text table of
// labels (a graph file), with Q in the sidecar.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"
#include "network_build.hpp"
#include "session.hpp"
#include "text_file.hpp"

namespace fcli {
namespace {

// The options of one method, filled in the fastconn options struct and the sidecar.
void eigen_options(const Args& args, fc_modularity_options* opt, Json& parameters) {
  check(fc_modularity_options_default(opt), "fc_modularity_options_default");
  if (args.has("resolution")) opt->resolution = args.real("resolution");
  if (args.has("max-modules")) opt->max_communities = args.integer("max-modules", 0, INT64_MAX);
  if (args.has("min-size")) opt->min_community_size = args.integer("min-size", 1, INT64_MAX);
  if (args.has("random-seed")) opt->seed = static_cast<uint64_t>(args.integer("random-seed", 0, INT64_MAX));
  opt->refine = args.has("no-refine") ? 0 : 1;
  parameters.set("resolution", opt->resolution);
  parameters.set("max_modules", opt->max_communities);
  parameters.set("min_size", opt->min_community_size);
  parameters.set("random_seed", static_cast<int64_t>(opt->seed));
  parameters.set("refine", opt->refine != 0);
}

// Version-2 options: --leiden-algorithm picks FC_LEIDEN_QUEUE (the default, fc_leiden's result
// bit for bit) or FC_LEIDEN_SYNCHRONOUS (the device's algorithm on a CUDA context).
void leiden_options(const Args& args, fc_leiden_options_v2* v2, Json& parameters) {
  for (const char* name : {"max-modules", "min-size", "no-refine"})
    if (args.has(name)) fail(std::string("--") + name + " applies to --method eigen only");
  check(fc_leiden_options_v2_default(v2), "fc_leiden_options_v2_default");
  const std::string algorithm = args.choice("leiden-algorithm", {"queue", "synchronous"}, "queue");
  v2->algorithm = algorithm == "synchronous" ? FC_LEIDEN_SYNCHRONOUS : FC_LEIDEN_QUEUE;
  fc_leiden_options* opt = &v2->base;
  if (args.has("resolution")) opt->resolution = args.real("resolution");
  if (args.has("random-seed")) opt->seed = static_cast<uint64_t>(args.integer("random-seed", 0, INT64_MAX));
  if (args.has("max-iterations")) opt->max_iterations = args.integer("max-iterations", 0, 1000);
  const std::string quality = args.choice("quality", {"modularity", "cpm"}, "modularity");
  opt->quality = quality == "cpm" ? FC_LEIDEN_CPM : FC_LEIDEN_MODULARITY;
  parameters.set("resolution", opt->resolution);
  parameters.set("quality", quality);
  parameters.set("random_seed", static_cast<int64_t>(opt->seed));
  parameters.set("max_iterations", opt->max_iterations);
  parameters.set("leiden_algorithm", algorithm);
}

// The chosen method on the graph: labels (modules numbered from 0 by first node) and results.
struct Found {
  std::vector<int64_t> labels;
  int64_t n_modules = 0, n_splits = 0, n_edges = 0;
};

Found find_modules(Session& s, const fc_graph* g, bool leiden, const fc_leiden_options_v2& lo,
                   const fc_modularity_options& eo) {
  Found f;
  check(fc_graph_info(g, nullptr, &f.n_edges), "fc_graph_info");
  fc_modules* raw = nullptr;
  s.progress().begin("modules");
  const double t0 = now_seconds();
  if (leiden)
    check(fc_leiden_v2(s.context(), g, &lo, nullptr, &raw), "fc_leiden_v2");
  else
    check(fc_modularity(s.context(), g, &eo, &raw), "fc_modularity");
  ModulesPtr m(raw);
  s.set_timing("modularity", now_seconds() - t0);
  s.progress().end();
  int64_t n_nodes = 0;
  double q = 0;
  check(fc_modules_info(m.get(), &n_nodes, &f.n_modules, &q, &f.n_splits), "fc_modules_info");
  f.labels.resize(static_cast<size_t>(n_nodes));
  check(fc_modules_labels(m.get(), f.labels.data(), n_nodes), "fc_modules_labels");
  const std::string method = leiden ? "leiden" : "eigen";
  s.results().set("n_edges", f.n_edges);
  s.results().set("n_modules", f.n_modules);
  s.results().set("modularity_q", q);
  if (!leiden) s.results().set("n_splits", f.n_splits);
  s.progress().note("modules (" + method + "): " + std::to_string(f.n_modules) + " modules, Q = " + std::to_string(q) +
                    " (" + std::to_string(f.n_edges) + " edges)");
  return f;
}

// --graph: the labels as text, "node<TAB>module" per line after '#' comment lines; nodes as the
// graph numbers them (from 0, as `fastconn graph --edge-list` writes them), modules from 1 as in
// the label map.
void write_label_table(const Found& f, const std::string& tmp, const std::string& shown, const std::string& what) {
  TextFile out(tmp, shown);
  std::fprintf(out.get(), "# fastconn modules (%s): node<TAB>module, one line per node\n", what.c_str());
  std::fprintf(out.get(), "# nodes as numbered in the graph file (from 0); modules from 1, numbered by first node\n");
  for (size_t v = 0; v < f.labels.size(); ++v) {
    if ((v & 0xFFFFF) == 0) check_cancel();
    std::fprintf(out.get(), "%zu\t%lld\n", v, static_cast<long long>(f.labels[v] + 1));
  }
  out.close();
}

}  // namespace

int run_modules(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + edge_specs() +
                std::vector<OptionSpec>{{"graph", 0, "FILE"},
                                        {"weights", 0, "binary|signed|abs"},
                                        {"method", 0, "eigen|leiden"},
                                        {"resolution", 0, "G"},
                                        {"max-modules", 0, "K"},
                                        {"min-size", 0, "S"},
                                        {"random-seed", 0, "N"},
                                        {"signed-mode", 0, "gomez|rubinov"},
                                        {"no-refine", 0, nullptr},
                                        {"quality", 0, "modularity|cpm"},
                                        {"max-iterations", 0, "P"},
                                        {"leiden-algorithm", 0, "queue|synchronous"}},
            "modules");
  if (args.has("help")) {
    print_command_help("modules");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const bool from_graph = args.has("graph");
  if (from_graph)
    for (const char* name : {"threshold", "signed", "density", "top-k", "weights"})
      if (args.has(name)) fail(std::string("--") + name + " builds a network from a scan; --graph gives the network itself");
  const EdgeRule rule = from_graph ? EdgeRule{} : edge_rule_from(args);
  std::string weights_name;
  const int weights = from_graph ? 0 : graph_weights_code(args, &weights_name);
  const std::string method = args.choice("method", {"eigen", "leiden"}, "eigen");
  if (method == "eigen")
    for (const char* name : {"quality", "max-iterations", "leiden-algorithm"})
      if (args.has(name)) fail(std::string("--") + name + " applies to --method leiden only");
  if (args.has("resolution") && !(args.real("resolution") > 0))
    fail("--resolution: " + args.text("resolution") + " is not > 0");
  const std::string signed_mode = args.choice("signed-mode", {"gomez", "rubinov"}, "gomez");
  const int32_t signed_code = signed_mode == "rubinov" ? FC_SIGNED_RUBINOV : FC_SIGNED_GOMEZ;
  if (from_graph && !nifti_extension(s.output()).empty())
    fail("output " + s.output() + ": a graph's labels are a text table, not a NIfTI map (name it e.g. labels.tsv)");
  const std::string labels_tmp = from_graph ? s.reserve_file(s.output(), "labels") : s.reserve_map(s.output(), "labels");
  if (from_graph) {
    s.parameters().set("graph", s.input());
  } else {
    describe_edge_rule(rule, s.parameters());
    s.parameters().set("weights", weights_name);
  }
  s.parameters().set("method", method == "leiden" ? "leiden (fc_leiden)" : "eigen (fc_modularity)");
  fc_modularity_options eigen;
  fc_leiden_options_v2 leiden;
  if (method == "leiden") {
    leiden_options(args, &leiden, s.parameters());
    leiden.base.signed_mode = signed_code;
  } else {
    eigen_options(args, &eigen, s.parameters());
    eigen.signed_mode = signed_code;
  }
  s.parameters().set("signed_mode", signed_mode);

  if (from_graph) {
    s.parameters().set("labels", "text: node<TAB>module per line, nodes from 0, modules from 1 by first node");
    const double t0 = now_seconds();
    fc_graph* raw = nullptr;
    check(fc_graph_load(s.input().c_str(), &raw), "fc_graph_load");
    GraphPtr g(raw);
    s.set_timing("read", now_seconds() - t0);
    s.open_context_alone();
    const Found f = find_modules(s, g.get(), method == "leiden", leiden, eigen);
    const double t1 = now_seconds();
    write_label_table(f, labels_tmp, s.output(), method + " of " + s.input());
    s.set_timing("write", now_seconds() - t1);
    s.finish();
    return kExitOk;
  }
  s.parameters().set("labels", "module number + 1 inside the mask (modules numbered from 1 by first voxel), 0 outside");
  s.load_scan();
  s.select_voxels();
  s.make_series();
  GraphPtr g = build_graph(s, rule, weights);
  const Found f = find_modules(s, g.get(), method == "leiden", leiden, eigen);
  if (f.n_modules >= INT32_MAX) throw Error(kExitLibrary, "too many modules for an int32 label map");
  std::vector<int32_t> map(f.labels.size());
  for (size_t k = 0; k < f.labels.size(); ++k) map[k] = static_cast<int32_t>(f.labels[k] + 1);  // 0 = outside the mask

  const double t1 = now_seconds();
  s.write_int_map(labels_tmp, map.data(), NIFTI_INTENT_LABEL, "fastconn modules (" + method + "), " + rule.text);
  s.set_timing("write", now_seconds() - t1);
  s.finish();
  return kExitOk;
}

}  // namespace fcli
