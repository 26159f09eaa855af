// nifti_io.hpp - NIfTI-1 and NIfTI-2 files through Debian's libnifti2 (nifti2_io.h), which reads
// both versions, compressed or not, into one nifti_image with 64-bit dimensions. This file
// checks what fastconn needs of a scan or a mask (with one clear message per problem) and
// writes float32 / int32 maps with the scan's geometry; scan_voxels.hpp reads the voxels.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nifti2_io.h>

namespace fcli {

struct NiftiFree {
  void operator()(nifti_image* p) const { nifti_image_free(p); }
};
using NiftiPtr = std::unique_ptr<nifti_image, NiftiFree>;

// The header of `path` (data not loaded). `role` names the file in messages ("scan", "mask",
// "seed mask"). Throws (exit 1) if the file is missing, unreadable, not NIfTI, or its voxels are
// not real numbers (complex, RGB).
NiftiPtr read_header(const std::string& path, const std::string& role);

// The scan must be 4D (x, y, z, time) with at least 2 time points.
void require_scan_shape(const nifti_image* scan, const std::string& path);

// A mask or seed mask must be 3D (a 4D file with one volume is accepted) on the scan's grid:
// the same x, y, z dimensions and, when the file has an orientation, the same voxel-to-world
// transform (within 1e-3).
void require_mask_on_grid(const nifti_image* mask, const std::string& path, const std::string& role,
                          const nifti_image* scan, const std::string& scan_path);

std::string dims_text(const nifti_image* image);        // "10x10x18x40"
int64_t volume_voxels(const nifti_image* image);        // nx * ny * nz
int64_t time_points(const nifti_image* image);          // nt (1 for a 3D file)
std::string voxel_text(const nifti_image* image, int64_t index);  // "(i, j, k)", 0-based
double repetition_time_s(const nifti_image* image);     // pixdim[4] in seconds (0 if unknown)
int nifti_version(const nifti_image* image);            // 1 or 2 (ANALYZE counts as 1)
// The voxel-to-world transform nibabel reports as img.affine: the sform when its code is set,
// else the qform, else the voxel sizes.
std::array<double, 16> world_affine(const nifti_image* image);

// Writes a map of `n_volumes` volumes on the scan's grid: `data` holds nx*ny*nz*n_volumes values
// of `datatype` (DT_FLOAT32 or DT_INT32). The header is the scan's (qform, sform, voxel size,
// units) with the new dimensions, as single-file NIfTI-1 (also for a NIfTI-2 scan); `volume_step` is the 4th voxel size (the time
// between volumes, in the scan's time units). One volume is a 3D map unless `four_d` (a series
// of volumes that happens to have one, such as dfc's single window). Written to `path` (a .nii
// or .nii.gz name) with every write checked: a full disk or any short write throws. A .nii.gz is
// compressed on `threads` threads.
void write_map(const nifti_image* scan, const std::string& path, int datatype, int64_t n_volumes,
               double volume_step, int intent, const void* data, const std::string& description, int threads,
               bool four_d = false);

}  // namespace fcli
