// cmd_seed.cpp - `fastconn seed`: seed-to-voxel correlation maps (r, and Fisher z) through
// fc_pcc_cross of the seed against every voxel of the mask.
#include <cmath>

#include "commands.hpp"
#include "errors.hpp"
#include "seed.hpp"
#include "session.hpp"

namespace fcli {

int run_seed(int argc, char** argv, int first) {
  Args args(argc, argv, first,
            common_specs() + std::vector<OptionSpec>{{"seed-voxel", 0, "I,J,K"},
                                                     {"seed-mask", 0, "FILE"},
                                                     {"seed-ts", 0, "FILE"},
                                                     {"z-output", 0, "FILE"}},
            "seed");
  if (args.has("help")) {
    print_command_help("seed");
    return kExitOk;
  }
  Session s(argc, argv, args);
  if (args.has("seed-voxel") + args.has("seed-mask") + args.has("seed-ts") != 1)
    fail("give one seed: --seed-voxel I,J,K, --seed-mask FILE or --seed-ts FILE");
  const std::string r_tmp = s.reserve_map(s.output(), "r");
  const std::string z_tmp = args.has("z-output") ? s.reserve_map(args.text("z-output"), "fisher_z") : std::string();

  s.load_scan();
  // The seed comes from the scan's voxels, before make_series() releases them.
  Seed seed;
  if (args.has("seed-voxel")) seed = seed_from_voxel(s.scan(), s.scan_path(), args.text("seed-voxel"));
  else if (args.has("seed-mask")) seed = seed_from_roi(s.scan(), s.scan_path(), args.text("seed-mask"), s.io_threads());
  else seed = seed_from_file(args.text("seed-ts"), s.n_time());
  require_varying(seed);
  s.parameters().set("seed_kind", seed.kind);
  s.parameters().set("seed", seed.description);
  s.parameters().set("seed_voxels", seed.n_voxels);
  s.parameters().set("fisher_z", "atanh(r), r clipped to [-(1 - 1e-7), 1 - 1e-7]");
  s.progress().note("seed: " + seed.description);

  s.select_voxels();
  s.make_series();
  fc_series* seed_raw = nullptr;
  check(fc_series_create_f64(s.context(), seed.series.data(), 1, s.n_time(), s.n_time(), 1, &seed_raw),
        "fc_series_create_f64 (seed)");
  SeriesPtr seed_series(seed_raw);

  const int64_t n = s.n_voxels();
  std::vector<float> r(static_cast<size_t>(n));
  s.progress().begin("seed");
  const double t0 = now_seconds();
  check(fc_pcc_cross(s.context(), seed_series.get(), s.series(), r.data(), n), "fc_pcc_cross");
  s.set_timing("compute", now_seconds() - t0);
  s.progress().end();
  seed_series.reset();
  s.release_library();

  const double t1 = now_seconds();
  s.write_float_map(r_tmp, r.data(), 1, 0.0, "fastconn seed r, " + seed.description);
  if (!z_tmp.empty()) {
    // atanh(+-1) is infinite (the seed voxel itself): clip as AFNI's -Fisher does, so the map
    // holds finite numbers (|z| <= 8.4).
    const double lim = 1.0 - 1e-7;
    std::vector<float> z(r.size());
    for (size_t k = 0; k < r.size(); ++k)
      z[k] = static_cast<float>(std::atanh(std::min(lim, std::max(-lim, static_cast<double>(r[k])))));
    s.write_float_map(z_tmp, z.data(), 1, 0.0, "fastconn seed Fisher z, " + seed.description);
  }
  s.set_timing("write", now_seconds() - t1);
  s.finish();
  return kExitOk;
}

}  // namespace fcli
