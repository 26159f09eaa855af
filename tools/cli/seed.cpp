// seed.cpp - see seed.hpp.
#include "seed.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>

#include "errors.hpp"
#include "options.hpp"

namespace fcli {

Seed seed_from_voxel(const nifti_image* scan, const std::string& scan_path, const std::string& ijk) {
  std::string text = ijk;
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  std::string a, b, c, extra;
  if (!(in >> a >> b >> c) || (in >> extra)) fail("--seed-voxel: '" + ijk + "' is not I,J,K (three voxel indices)");
  const int64_t dims[3] = {scan->dim[1], scan->dim[2], scan->dim[3]};
  const int64_t i = parse_integer(a, "--seed-voxel I", 0, dims[0] - 1);
  const int64_t j = parse_integer(b, "--seed-voxel J", 0, dims[1] - 1);
  const int64_t k = parse_integer(c, "--seed-voxel K", 0, dims[2] - 1);
  const int64_t index = i + dims[0] * (j + dims[1] * k);
  Seed seed;
  seed.series.resize(static_cast<size_t>(time_points(scan)));
  gather_series(scan, scan_path, {index}, seed.series.data(), 1);
  seed.kind = "voxel";
  seed.description = "voxel " + voxel_text(scan, index);
  seed.n_voxels = 1;
  return seed;
}

Seed seed_from_roi(const nifti_image* scan, const std::string& scan_path, const std::string& roi_path, int threads) {
  NiftiPtr roi = read_header(roi_path, "seed mask");
  require_mask_on_grid(roi.get(), roi_path, "seed mask", scan, scan_path);
  load_data(roi.get(), roi_path, "seed mask", threads);
  const std::vector<double> values = first_volume(roi.get());
  std::vector<int64_t> voxels;
  for (size_t v = 0; v < values.size(); ++v)
    if (values[v] != 0.0) voxels.push_back(static_cast<int64_t>(v));
  if (voxels.empty()) fail("seed mask " + roi_path + " is empty (no nonzero voxel)");
  const int64_t nt = time_points(scan);
  std::vector<double> all(voxels.size() * static_cast<size_t>(nt));
  gather_series(scan, scan_path, voxels, all.data(), threads);
  Seed seed;
  seed.series.assign(static_cast<size_t>(nt), 0.0);
  for (size_t s = 0; s < voxels.size(); ++s)
    for (int64_t t = 0; t < nt; ++t) seed.series[static_cast<size_t>(t)] += all[static_cast<size_t>(t) * voxels.size() + s];
  for (double& x : seed.series) x /= static_cast<double>(voxels.size());
  seed.kind = "roi";
  seed.description = "mean of " + std::to_string(voxels.size()) + " voxels of " + roi_path;
  seed.n_voxels = static_cast<int64_t>(voxels.size());
  return seed;
}

Seed seed_from_file(const std::string& path, int64_t n_time) {
  std::ifstream in(path);
  if (!in) fail("seed file " + path + ": " + system_reason(errno));
  Seed seed;
  std::string line;
  int64_t line_no = 0, data_lines = 0;
  size_t widest = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::istringstream words(line);
    std::string w;
    size_t count = 0;
    while (words >> w) {
      seed.series.push_back(parse_real(w, "seed file " + path + " line " + std::to_string(line_no)));
      ++count;
    }
    if (count > 0) ++data_lines;
    widest = std::max(widest, count);
  }
  if (in.bad()) fail("seed file " + path + ": read error");
  if (widest > 1 && data_lines > 1)
    fail("seed file " + path + " has " + std::to_string(widest) + " columns: one time series (one column) is needed");
  if (static_cast<int64_t>(seed.series.size()) != n_time)
    fail("seed file " + path + " has " + std::to_string(seed.series.size()) + " values; the scan has " +
         std::to_string(n_time) + " time points");
  seed.kind = "file";
  seed.description = "time series from " + path;
  return seed;
}

void require_varying(const Seed& seed) {
  for (double x : seed.series)
    if (x != seed.series[0]) return;
  fail("seed (" + seed.description + ") is constant over time: its correlations are undefined");
}

}  // namespace fcli
