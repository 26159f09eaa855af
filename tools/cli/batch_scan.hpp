// batch_scan.hpp - a subject's series for `fastconn batch`, as fastconn.cohort_pipeline reads a
// NIfTI scan with nibabel: the scan's values (scaled) as float32, of the voxels whose series are
// finite and not constant, in NIfTI order. libnifti2 reads NaN and Inf of float data as 0 (as
// AFNI does), which would keep a voxel that nibabel shows with a NaN; so for float data the
// file's raw values are read once more to leave such voxels out, as the Python runner does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fastconn/fastconn.h>

#include "handles.hpp"

namespace fcli {

// The series on ctx; `voxels` gets the kept voxels' NIfTI indices and `n_time` the time points.
// Throws (exit 1) naming the scan when it is not a readable 4D NIfTI file or keeps no voxel.
SeriesPtr load_subject_series(fc_context* ctx, const std::string& path, int io_threads, std::vector<int64_t>& voxels,
                              int64_t& n_time);

}  // namespace fcli
