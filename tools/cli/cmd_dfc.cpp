// cmd_dfc.cpp - `fastconn dfc`: sliding-window (dynamic) degree centrality, a 4D map with one
// volume per window, through one fc_dfc_degree call for all windows. Per-pair summaries
// (fc_dfc_summary) are N(N-1)/2 values and have no voxel map; the per-voxel mean degree over the
// windows is offered instead.
#include "commands.hpp"
#include "dfc_flexibility.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {

int run_dfc(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + edge_specs() +
                std::vector<OptionSpec>{{"window", 0, "L"},
                                        {"step", 0, "S"},
                                        {"taper", 0, "rectangular|gaussian"},
                                        {"sigma", 0, "SD"},
                                        {"weighted-output", 0, "FILE"},
                                        {"mean-degree", 0, "FILE"}} +
                flexibility_specs(),
            "dfc");
  if (args.has("help")) {
    print_command_help("dfc");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const EdgeRule rule = edge_rule_from(args);
  if (!args.has("window")) fail("no window length: give --window L (time points per window)");
  const int64_t length = args.integer("window", 2, INT64_MAX);
  const int64_t step = args.has("step") ? args.integer("step", 1, INT64_MAX) : 1;
  const std::string taper_name = args.choice("taper", {"rectangular", "gaussian"}, "rectangular");
  const int taper = taper_name == "gaussian" ? FC_TAPER_GAUSSIAN : FC_TAPER_RECTANGULAR;
  double sigma = 0.0;
  if (taper == FC_TAPER_GAUSSIAN) {
    sigma = args.has("sigma") ? args.real("sigma") : 3.0;
    if (!(sigma > 0)) fail("--sigma: " + args.text("sigma") + " is not > 0");
  } else if (args.has("sigma")) {
    fail("--sigma applies to --taper gaussian only");
  }
  const std::string degree_tmp = s.reserve_map(s.output(), "degree");
  const std::string weighted_tmp =
      args.has("weighted-output") ? s.reserve_map(args.text("weighted-output"), "weighted_degree") : "";
  const std::string mean_tmp = args.has("mean-degree") ? s.reserve_map(args.text("mean-degree"), "mean_degree") : "";
  const FlexibilitySpec flex = flexibility_spec_from(args);
  const std::string flex_tmp = args.has("flexibility") ? s.reserve_map(args.text("flexibility"), "flexibility") : "";
  const std::string labels_tmp =
      args.has("module-labels") ? s.reserve_map(args.text("module-labels"), "module_labels") : "";
  const bool window_modules = !flex_tmp.empty() || !labels_tmp.empty();
  describe_edge_rule(rule, s.parameters());
  s.parameters().set("window_length", length);
  s.parameters().set("window_step", step);
  s.parameters().set("taper", taper_name);
  if (taper == FC_TAPER_GAUSSIAN) s.parameters().set("sigma", sigma);
  if (window_modules) describe_flexibility(flex, s.parameters());

  s.load_scan();
  const int64_t windows = fc_window_count(s.n_time(), length, step);
  if (windows < 1)
    fail("--window " + std::to_string(length) + " is longer than the scan's " + std::to_string(s.n_time()) +
         " time points");
  s.select_voxels();
  s.make_series();

  const int64_t n = s.n_voxels();
  std::vector<int64_t> degree(static_cast<size_t>(windows * n));
  std::vector<double> strength(weighted_tmp.empty() ? 0 : static_cast<size_t>(windows * n));
  s.progress().begin("windows");
  const double t0 = now_seconds();
  check(fc_dfc_degree(s.context(), s.series(), length, step, taper, sigma, rule.rule, rule.param, degree.data(),
                      strength.empty() ? nullptr : strength.data()),
        "fc_dfc_degree");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  const WindowModules modules =
      window_modules ? dfc_window_modules(s, rule, flex, length, step, taper, sigma) : WindowModules();
  s.release_library();

  // Window k is volume k (degree[k * N + s] is already volume-major); the 4th voxel size is the
  // time between window starts. Always 4D, one window included: scripts read shape[3].
  const double t1 = now_seconds();
  const double volume_step = static_cast<double>(s.scan()->pixdim[4]) * static_cast<double>(step);
  std::vector<float> values(degree.begin(), degree.end());
  s.write_float_map(degree_tmp, values.data(), windows, volume_step, "fastconn dfc degree, " + rule.text, true);
  if (!weighted_tmp.empty()) {
    for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(strength[k]);
    s.write_float_map(weighted_tmp, values.data(), windows, volume_step, "fastconn dfc weighted degree, " + rule.text,
                      true);
  }
  if (!mean_tmp.empty()) {
    std::vector<float> mean(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v) {
      double sum = 0;
      for (int64_t k = 0; k < windows; ++k) sum += static_cast<double>(degree[static_cast<size_t>(k * n + v)]);
      mean[static_cast<size_t>(v)] = static_cast<float>(sum / static_cast<double>(windows));
    }
    s.write_float_map(mean_tmp, mean.data(), 1, 0.0, "fastconn dfc mean degree, " + rule.text);
  }
  if (!flex_tmp.empty())
    s.write_float_map(flex_tmp, modules.flexibility.data(), 1, 0.0, "fastconn dfc flexibility, " + rule.text);
  if (!labels_tmp.empty())
    s.write_int_map(labels_tmp, modules.labels.data(), NIFTI_INTENT_LABEL, "fastconn dfc window modules, " + rule.text,
                    windows, volume_step, true);
  s.set_timing("write", now_seconds() - t1);
  Json starts = Json::array();
  for (int64_t k = 0; k < windows; ++k) starts.push(fc_window_begin(s.n_time(), length, step, k));
  s.results().set("n_windows", windows);
  s.results().set("window_starts", starts);
  s.progress().note(std::to_string(windows) + " windows of " + std::to_string(length) + " time points every " +
                    std::to_string(step));
  s.finish();
  return kExitOk;
}

}  // namespace fcli
