// cmd_ecm.cpp - `fastconn ecm`: eigenvector centrality maps. Without an edge rule the fast ECM
// (fc_pcc_ecm: the leading eigenvector of (R + 1) / 2, never forming R); with --threshold,
// --density or --top-k the thresholded ECM (fc_pcc_ecm_thresholded: of the network's adjacency,
// binarized, or weighted with --weighted).
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {

int run_ecm(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + edge_specs() + std::vector<OptionSpec>{{"weighted", 0, nullptr}, {"tolerance", 0, "X"}},
            "ecm");
  if (args.has("help")) {
    print_command_help("ecm");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const bool thresholded = args.has("threshold") || args.has("density") || args.has("top-k");
  if (!thresholded && (args.has("weighted") || args.has("signed")))
    fail("--weighted and --signed apply to the thresholded ECM: give --threshold R, --density D or --top-k K");
  // The library checks the tolerance's range and names the value; 0 is its default.
  const double tolerance = args.has("tolerance") ? args.real("tolerance") : 0.0;
  EdgeRule rule{FC_EDGE_DENSITY, 0.0, ""};
  int weights = FC_GRAPH_BINARY;
  if (thresholded) {
    rule = edge_rule_from(args);
    if (args.has("weighted")) weights = rule.rule == FC_EDGE_THRESHOLD ? FC_GRAPH_WEIGHTED : FC_GRAPH_WEIGHTED_ABS;
  }
  const std::string map_tmp = s.reserve_map(s.output(), "ecm");
  s.parameters().set("method", thresholded ? "thresholded ECM (Lohmann et al. 2010)" : "fast ECM (Wink et al. 2012)");
  if (thresholded) {
    describe_edge_rule(rule, s.parameters());
    s.parameters().set("edge_weights", weights == FC_GRAPH_BINARY ? "binary" : weights == FC_GRAPH_WEIGHTED ? "r" : "|r|");
  }
  s.parameters().set("tolerance", tolerance == 0.0 ? 1e-10 : tolerance);
  s.parameters().set("scaling", "unit L2 norm, entries >= 0 (AFNI 3dECM)");

  s.load_scan();
  s.select_voxels();
  s.make_series();

  const int64_t n = s.n_voxels();
  std::vector<double> centrality(static_cast<size_t>(n));
  double lambda = 0;
  s.progress().begin(thresholded ? "network and eigenvector" : "eigenvector");
  const double t0 = now_seconds();
  if (thresholded)
    check(fc_pcc_ecm_thresholded(s.context(), s.series(), rule.rule, rule.param, weights, tolerance, centrality.data(),
                                 n, &lambda),
          "fc_pcc_ecm_thresholded");
  else
    check(fc_pcc_ecm(s.context(), s.series(), tolerance, centrality.data(), n, &lambda), "fc_pcc_ecm");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  s.release_library();

  const double t1 = now_seconds();
  const std::vector<float> values(centrality.begin(), centrality.end());
  s.write_float_map(map_tmp, values.data(), 1, 0.0,
                    thresholded ? "fastconn thresholded ECM, " + rule.text : std::string("fastconn fast ECM"));
  s.set_timing("write", now_seconds() - t1);
  s.results().set("eigenvalue", lambda);
  s.finish();
  return kExitOk;
}

}  // namespace fcli
