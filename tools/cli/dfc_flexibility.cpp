// dfc_flexibility.cpp - see dfc_flexibility.hpp.
#include "dfc_flexibility.hpp"

#include "errors.hpp"
#include "handles.hpp"
#include "network_build.hpp"

namespace fcli {

std::vector<OptionSpec> flexibility_specs() {
  return {{"flexibility", 0, "FILE"}, {"module-labels", 0, "FILE"}, {"omega", 0, "W"}, {"resolution", 0, "G"}, {"random-seed", 0, "N"},
          {"weights", 0, "binary|abs"}, {"multilayer-algorithm", 0, "queue|synchronous"}};
}

FlexibilitySpec flexibility_spec_from(const Args& args) {
  if (!args.has("flexibility") && !args.has("module-labels"))
    for (const char* name : {"omega", "resolution", "random-seed", "weights", "multilayer-algorithm"})
      if (args.has(name)) fail(std::string("--") + name + " applies to --flexibility and --module-labels only");
  FlexibilitySpec spec;
  check(fc_multilayer_options_v2_default(&spec.options), "fc_multilayer_options_v2_default");
  spec.algorithm_name = args.choice("multilayer-algorithm", {"queue", "synchronous"}, "queue");
  spec.options.algorithm = spec.algorithm_name == "synchronous" ? FC_LEIDEN_SYNCHRONOUS : FC_LEIDEN_QUEUE;
  fc_multilayer_options& o = spec.options.base;
  if (args.has("omega")) {
    o.omega = args.real("omega");
    if (!(o.omega >= 0)) fail("--omega: " + args.text("omega") + " is not >= 0");
  }
  if (args.has("resolution")) {
    o.resolution = args.real("resolution");
    if (!(o.resolution >= 0)) fail("--resolution: " + args.text("resolution") + " is not >= 0");
  }
  if (args.has("random-seed")) o.seed = static_cast<uint64_t>(args.integer("random-seed", 0, INT64_MAX));
  spec.weights = graph_weights_code(args, &spec.weights_name, {"binary", "abs"});
  return spec;
}

void describe_flexibility(const FlexibilitySpec& spec, Json& parameters) {
  Json& p = parameters.member("window_modules");
  p.set("method", "multilayer modularity over the windows' networks (fc_multilayer_modularity_v2, ordinal coupling)");
  p.set("network_weights", spec.weights_name);
  p.set("omega", spec.options.base.omega);
  p.set("resolution", spec.options.base.resolution);
  p.set("random_seed", static_cast<int64_t>(spec.options.base.seed));
  p.set("multilayer_algorithm", spec.algorithm_name);
  p.set("flexibility", "the fraction of consecutive window pairs in which the voxel's module changes, 0 outside the mask");
  p.set("module_labels", "volume k: window k's module + 1 (ids shared across windows, numbered by first appearance), 0 outside the mask");
}

WindowModules dfc_window_modules(Session& s, const EdgeRule& rule, const FlexibilitySpec& spec, int64_t length,
                                 int64_t step, int taper, double sigma) {
  s.progress().begin("window networks");
  const double t0 = now_seconds();
  fc_dfc* raw_dfc = nullptr;
  check(fc_dfc_begin(s.context(), s.series(), length, step, taper, sigma, &raw_dfc), "fc_dfc_begin");
  DfcPtr windows(raw_dfc);
  std::vector<GraphPtr> graphs;
  for (;;) {
    fc_graph* g = nullptr;
    int64_t window = 0;
    const fc_status status = fc_dfc_next_graph(windows.get(), rule.rule, rule.param, spec.weights, &g, &window);
    if (status == FC_DONE) break;
    check(status, "fc_dfc_next_graph");
    graphs.emplace_back(g);
  }
  s.set_timing("window_graphs", now_seconds() - t0);
  s.progress().end();

  std::vector<const fc_graph*> layers;
  int64_t n_edges = 0;
  for (const GraphPtr& g : graphs) {
    int64_t e = 0;
    check(fc_graph_info(g.get(), nullptr, &e), "fc_graph_info");
    n_edges += e;
    layers.push_back(g.get());
  }
  s.progress().begin("multilayer modules");
  const double t1 = now_seconds();
  fc_multilayer* raw = nullptr;
  check(fc_multilayer_modularity_v2(s.context(), layers.data(), static_cast<int64_t>(layers.size()), nullptr,
                                    &spec.options, &raw),
        "fc_multilayer_modularity_v2");
  MultilayerPtr m(raw);
  s.set_timing("multilayer", now_seconds() - t1);
  s.progress().end();
  int64_t n = 0, k = 0;
  double q = 0;
  check(fc_multilayer_info(m.get(), &n, nullptr, &k, &q), "fc_multilayer_info");
  if (k >= INT32_MAX) throw Error(kExitLibrary, "too many modules for an int32 label map");
  WindowModules out;
  std::vector<double> flexibility(static_cast<size_t>(n));
  check(fc_multilayer_flexibility(m.get(), flexibility.data(), n), "fc_multilayer_flexibility");
  out.flexibility.assign(flexibility.begin(), flexibility.end());
  std::vector<int64_t> labels(static_cast<size_t>(n) * layers.size());
  check(fc_multilayer_labels(m.get(), labels.data(), static_cast<int64_t>(labels.size())), "fc_multilayer_labels");
  out.labels.resize(labels.size());
  for (size_t x = 0; x < labels.size(); ++x) out.labels[x] = static_cast<int32_t>(labels[x] + 1);  // 0 = outside the mask
  Json& r = s.results().member("window_modules");
  r.set("multilayer_q", q);
  r.set("n_modules", k);
  r.set("n_window_edges", n_edges);
  double mean = 0;
  for (double f : flexibility) mean += f;
  r.set("mean_flexibility", n > 0 ? mean / static_cast<double>(n) : 0.0);
  s.progress().note("window modules: " + std::to_string(k) + " modules over " + std::to_string(layers.size()) +
                    " windows, multilayer Q = " + std::to_string(q));
  return out;
}

}  // namespace fcli
