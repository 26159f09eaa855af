// cmd_degree.cpp - `fastconn degree`: degree centrality maps (binary and weighted) through one
// fc_pcc_degree call, which never forms the N x N matrix.
#include <algorithm>

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {

int run_degree(int argc, char** argv, int first) {
  Args args(argc, argv, first, common_specs() + edge_specs() + std::vector<OptionSpec>{{"weighted-output", 0, "FILE"}},
            "degree");
  if (args.has("help")) {
    print_command_help("degree");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const EdgeRule rule = edge_rule_from(args);
  const std::string degree_tmp = s.reserve_map(s.output(), "degree");
  const std::string weighted_tmp =
      args.has("weighted-output") ? s.reserve_map(args.text("weighted-output"), "weighted_degree") : std::string();
  describe_edge_rule(rule, s.parameters());
  s.parameters().set("strength",
                     rule.rule == FC_EDGE_THRESHOLD ? "sum of r over the edges" : "sum of |r| over the edges");

  s.load_scan();
  s.select_voxels();
  s.make_series();

  const int64_t n = s.n_voxels();
  std::vector<int64_t> degree(static_cast<size_t>(n));
  std::vector<double> strength(weighted_tmp.empty() ? 0 : static_cast<size_t>(n));
  s.progress().begin("degree");
  const double t0 = now_seconds();
  check(fc_pcc_degree(s.context(), s.series(), rule.rule, rule.param, degree.data(),
                      strength.empty() ? nullptr : strength.data()),
        "fc_pcc_degree");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  s.release_library();

  const double t1 = now_seconds();
  std::vector<float> values(degree.begin(), degree.end());
  s.write_float_map(degree_tmp, values.data(), 1, 0.0, "fastconn degree, " + rule.text);
  if (!weighted_tmp.empty()) {
    std::transform(strength.begin(), strength.end(), values.begin(), [](double v) { return static_cast<float>(v); });
    s.write_float_map(weighted_tmp, values.data(), 1, 0.0, "fastconn weighted degree, " + rule.text);
  }
  s.set_timing("write", now_seconds() - t1);

  int64_t total = 0, max_degree = 0;
  for (int64_t d : degree) {
    total += d;
    max_degree = std::max(max_degree, d);
  }
  s.results().set("n_edges", total / 2);
  s.results().set("mean_degree", static_cast<double>(total) / static_cast<double>(n));
  s.results().set("max_degree", max_degree);
  s.finish();
  return kExitOk;
}

}  // namespace fcli
