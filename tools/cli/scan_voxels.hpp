// scan_voxels.hpp - the voxel values of a scan or mask read through libnifti2: loading them (an
// uncompressed file on several threads), converting any real datatype with the header's scaling,
// the automatic mask, and the gather of the masked voxels' series that fc_series_create_* takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nifti2_io.h>

namespace fcli {

// Loads the image data; throws (exit 1) on a truncated or corrupt file. An uncompressed file is
// read by `threads` threads, each with its own libnifti2 file handle and a contiguous part of
// the data (nifti_read_buffer: the byte swapping and float repair of nifti_image_load); a
// .nii.gz, which can only be read from its start, goes through nifti_image_load.
void load_data(nifti_image* image, const std::string& path, const std::string& role, int threads);

// The first volume as float64, scaled (for masks: a voxel is in when its value is nonzero).
std::vector<double> first_volume(const nifti_image* image);

// Whether every value the scan can hold, scaled by its header, is exactly a float32: then a
// float32 gather gives the library the very numbers a float64 one would (the library normalizes
// in float64 either way) in half the memory. True for float32 data without scaling and for 8-
// and 16-bit integers unless the scaling makes some value inexact (all 2^16 are tried).
bool float32_exact(const nifti_image* scan);

// The given voxels' series, scaled, as T (float or double), time-major: value (s, t) at
// out[t * N + s] (numpy's (T, N) layout: fc_series_create_* with series_stride 1 and time_stride
// N). `out` may be uninitialized memory: the volumes are split over `threads` threads, each
// writing (and first touching) its own rows. Throws (exit 1) naming the first voxel (in mask
// order) and its first time point whose value is NaN or infinite.
template <class T>
void gather_series(const nifti_image* scan, const std::string& path, const std::vector<int64_t>& voxels, T* out,
                   int threads);

// The automatic mask: voxels whose series are finite and not constant (so not all zero).
// `n_nonfinite` counts voxels left out for NaN or Inf values. Voxels are split over `threads`.
std::vector<int64_t> automatic_mask(const nifti_image* scan, int64_t* n_nonfinite, int threads);

}  // namespace fcli
