// cmd_lfcd.cpp - `fastconn lfcd`: the local functional connectivity density map (Tomasi and Volkow
// 2010, AFNI's 3dLFCD) through one fc_pcc_lfcd call on the mask's voxels, whose (i, j, k) on the
// scan's grid are the coordinates.
#include <algorithm>

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {

int run_lfcd(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + std::vector<OptionSpec>{{"threshold", 0, "R"}, {"abs", 0, nullptr}, {"neighbourhood", 0, "N"}},
            "lfcd");
  if (args.has("help")) {
    print_command_help("lfcd");
    return kExitOk;
  }
  Session s(argc, argv, args);
  if (!args.has("threshold")) fail("no threshold: give --threshold R (r >= R; with --abs |r| >= R)");
  const double r = args.real("threshold");
  const bool absolute = args.has("abs");
  if (r < (absolute ? 0.0 : -1.0) || r > 1.0)
    fail("--threshold: " + args.text("threshold") + (absolute ? " is not in [0, 1] (|r| >= R with --abs)" : " is not in [-1, 1]"));
  const int64_t neighbourhood = args.has("neighbourhood") ? args.integer("neighbourhood", 6, 26) : 26;
  if (neighbourhood != 6 && neighbourhood != 18 && neighbourhood != 26)
    fail("--neighbourhood: " + args.text("neighbourhood") + " is not 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners)");
  const fc_edge_rule rule = absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD;
  const std::string rule_text = (absolute ? "|r| >= " : "r >= ") + args.text("threshold");
  const std::string lfcd_tmp = s.reserve_map(s.output(), "lfcd");
  s.parameters().set("edge_rule", absolute ? "abs_threshold" : "threshold");
  s.parameters().set("edge_parameter", r);
  s.parameters().set("edge_rule_text", rule_text);
  s.parameters().set("neighbourhood", neighbourhood);
  s.parameters().set("seed_counts_itself", true);

  s.load_scan();
  s.select_voxels();
  s.make_series();

  // The mask's voxels in NIfTI storage order (x fastest): voxel v is (v % nx, v / nx % ny, v / (nx ny)).
  const int64_t n = s.n_voxels();
  const int64_t dims[3] = {s.scan()->dim[1], s.scan()->dim[2], s.scan()->dim[3]};  // a 4D scan: x y z time
  std::vector<int32_t> coords(static_cast<size_t>(3 * n));
  for (int64_t v = 0; v < n; ++v) {
    const int64_t at = s.voxels()[static_cast<size_t>(v)];
    coords[static_cast<size_t>(3 * v)] = static_cast<int32_t>(at % dims[0]);
    coords[static_cast<size_t>(3 * v + 1)] = static_cast<int32_t>(at / dims[0] % dims[1]);
    coords[static_cast<size_t>(3 * v + 2)] = static_cast<int32_t>(at / (dims[0] * dims[1]));
  }
  std::vector<int64_t> lfcd(static_cast<size_t>(n));
  s.progress().begin("lfcd");
  const double t0 = now_seconds();
  check(fc_pcc_lfcd(s.context(), s.series(), coords.data(), dims, static_cast<int>(neighbourhood), rule, r, lfcd.data()),
        "fc_pcc_lfcd");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  s.release_library();

  const double t1 = now_seconds();
  std::vector<float> values(lfcd.begin(), lfcd.end());
  s.write_float_map(lfcd_tmp, values.data(), 1, 0.0,
                    "fastconn lfcd, " + rule_text + ", " + std::to_string(neighbourhood) + " neighbours");
  s.set_timing("write", now_seconds() - t1);

  int64_t total = 0, largest = 0;
  for (int64_t c : lfcd) {
    total += c;
    largest = std::max(largest, c);
  }
  s.results().set("mean_lfcd", static_cast<double>(total) / static_cast<double>(n));
  s.results().set("max_lfcd", largest);
  s.finish();
  return kExitOk;
}

}  // namespace fcli
