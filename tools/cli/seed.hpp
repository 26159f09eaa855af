// seed.hpp - the seed of a seed-to-voxel map: one voxel, the mean of a ROI mask, or a time series
// from a text file (AFNI's .1D: one value per line, '#' comments; a single row also works).
#pragma once

#include <string>
#include <vector>

#include "nifti_io.hpp"
#include "scan_voxels.hpp"

namespace fcli {

struct Seed {
  std::vector<double> series;  // T values
  std::string kind;            // "voxel", "roi", "file"
  std::string description;     // for the sidecar and messages
  int64_t n_voxels = 0;        // voxels averaged (voxel: 1, roi: its size, file: 0)
};

// "I,J,K" (0-based voxel indices, as FSL's and AFNI's ijk) of the scan, whose data is loaded.
Seed seed_from_voxel(const nifti_image* scan, const std::string& scan_path, const std::string& ijk);
// The mean series of the nonzero voxels of a ROI mask on the scan's grid (read and gathered on
// `threads` threads).
Seed seed_from_roi(const nifti_image* scan, const std::string& scan_path, const std::string& roi_path, int threads);
// T numbers from a text file.
Seed seed_from_file(const std::string& path, int64_t n_time);

// Throws (exit 1) if the seed series is constant (its correlations are undefined).
void require_varying(const Seed& seed);

}  // namespace fcli
