// nifti_io.cpp - see nifti_io.hpp.
#include "nifti_io.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "errors.hpp"
#include "gzip_members.hpp"

namespace fcli {
namespace {

bool real_datatype(int dt) {
  switch (dt) {
    case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_INT32: case DT_UINT32:
    case DT_INT64: case DT_UINT64: case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT128:
      return true;
    default:
      return false;
  }
}

int64_t dim(const nifti_image* im, int k) { return k <= im->dim[0] ? im->dim[k] : 1; }

}  // namespace

NiftiPtr read_header(const std::string& path, const std::string& role) {
  // The system's reason first (missing, permission, a directory): libnifti2 would only say NULL.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) fail(role + " " + path + ": " + system_reason(errno));
  if (S_ISDIR(st.st_mode)) fail(role + " " + path + ": is a directory");
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(role + " " + path + ": " + system_reason(errno));
  std::fclose(f);
  NiftiPtr im(nifti_image_read(path.c_str(), 0));
  if (!im) fail(role + " " + path + ": not a readable NIfTI-1 or NIfTI-2 file (.nii, .nii.gz), or its header is truncated");
  // nifti_image_read() reports NIfTI-2 files as nifti_type 1; the header itself says which
  // version the file is, and the maps are written in the scan's version.
  int version = 1;
  if (void* hdr = nifti_read_header(path.c_str(), &version, 0)) {
    free(hdr);
    if (version == 2) im->nifti_type = NIFTI_FTYPE_NIFTI2_1;
  }
  if (!real_datatype(im->datatype))
    fail(role + " " + path + ": voxels of type " + nifti_datatype_string(im->datatype) +
         " are not supported (real-valued data is needed)");
  return im;
}

void require_scan_shape(const nifti_image* scan, const std::string& path) {
  const int nd = static_cast<int>(scan->dim[0]);
  for (int k = 5; k <= nd; ++k)
    if (scan->dim[k] > 1)
      fail("scan " + path + " has " + std::to_string(nd) + " dimensions (" + dims_text(scan) +
           "): a 4D scan (x, y, z, time) is needed");
  if (nd < 4)
    fail("scan " + path + " is " + std::to_string(nd) + "D (" + dims_text(scan) + "): a 4D scan (x, y, z, time) is needed");
  if (dim(scan, 4) < 2)
    fail("scan " + path + " has " + std::to_string(dim(scan, 4)) + " time point (" + dims_text(scan) +
         "): at least 2 are needed");
}

void require_mask_on_grid(const nifti_image* mask, const std::string& path, const std::string& role,
                          const nifti_image* scan, const std::string& scan_path) {
  const int nd = static_cast<int>(mask->dim[0]);
  for (int k = 4; k <= nd; ++k)
    if (mask->dim[k] > 1)
      fail(role + " " + path + " is " + std::to_string(nd) + "D (" + dims_text(mask) + "): a 3D " + role + " is needed");
  for (int k = 1; k <= 3; ++k)
    if (dim(mask, k) != dim(scan, k))
      fail(role + " " + path + " is " + std::to_string(dim(mask, 1)) + "x" + std::to_string(dim(mask, 2)) + "x" +
           std::to_string(dim(mask, 3)) + " voxels, the scan " + scan_path + " is " + std::to_string(dim(scan, 1)) +
           "x" + std::to_string(dim(scan, 2)) + "x" + std::to_string(dim(scan, 3)) +
           ": the " + role + " must be on the scan's grid");
  if (mask->sform_code > 0 || mask->qform_code > 0) {
    const std::array<double, 16> a = world_affine(mask), b = world_affine(scan);
    for (int k = 0; k < 12; ++k)
      if (std::fabs(a[k] - b[k]) > 1e-3 * std::max(1.0, std::fabs(b[k])))
        fail(role + " " + path + " has the scan's dimensions but another voxel-to-world transform (sform/qform): the " +
             role + " must be on the scan's grid (resample it first)");
  }
}

std::string dims_text(const nifti_image* image) {
  std::string s;
  for (int k = 1; k <= image->dim[0] && k <= 7; ++k) s += (k > 1 ? "x" : "") + std::to_string(image->dim[k]);
  return s;
}

int64_t volume_voxels(const nifti_image* image) { return dim(image, 1) * dim(image, 2) * dim(image, 3); }

int64_t time_points(const nifti_image* image) { return dim(image, 4); }

std::string voxel_text(const nifti_image* image, int64_t index) {
  const int64_t nx = dim(image, 1), ny = dim(image, 2);
  return "(" + std::to_string(index % nx) + ", " + std::to_string((index / nx) % ny) + ", " +
         std::to_string(index / (nx * ny)) + ")";
}

double repetition_time_s(const nifti_image* image) {
  const double dt = image->pixdim[4];
  switch (image->time_units) {
    case NIFTI_UNITS_MSEC: return dt * 1e-3;
    case NIFTI_UNITS_USEC: return dt * 1e-6;
    default: return dt;  // seconds, or unknown (most tools then mean seconds)
  }
}

int nifti_version(const nifti_image* image) {
  return (image->nifti_type == NIFTI_FTYPE_NIFTI2_1 || image->nifti_type == NIFTI_FTYPE_NIFTI2_2) ? 2 : 1;
}

std::array<double, 16> world_affine(const nifti_image* image) {
  std::array<double, 16> a{};
  if (image->sform_code > 0 || image->qform_code > 0) {
    const nifti_dmat44& m = image->sform_code > 0 ? image->sto_xyz : image->qto_xyz;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) a[static_cast<size_t>(r * 4 + c)] = m.m[r][c];
  } else {
    a[0] = image->dx;
    a[5] = image->dy;
    a[10] = image->dz;
    a[15] = 1;
  }
  return a;
}

void write_map(const nifti_image* scan, const std::string& path, int datatype, int64_t n_volumes,
               double volume_step, int intent, const void* data, const std::string& description, int threads,
               bool four_d) {
  NiftiPtr out(nifti_copy_nim_info(scan));
  if (!out) throw Error(kExitLibrary, "cannot write " + path + ": out of memory");
  nifti_free_extensions(out.get());  // the scan's extensions describe the scan, not this map
  four_d = four_d || n_volumes > 1;
  out->dim[0] = four_d ? 4 : 3;
  out->dim[4] = n_volumes;
  for (int k = 5; k <= 7; ++k) out->dim[k] = 1;
  if (four_d) out->pixdim[4] = volume_step;
  for (int k = 5; k <= 7; ++k) out->pixdim[k] = 1;
  if (nifti_update_dims_from_array(out.get()) != 0) throw Error(kExitLibrary, "cannot write " + path + ": bad dimensions");
  // nifti_update_dims_from_array drops trailing dimensions of size 1; a 4D map keeps its 4th.
  if (four_d) out->ndim = out->dim[0] = 4;
  out->datatype = datatype;
  nifti_datatype_sizes(datatype, &out->nbyper, &out->swapsize);
  // The values are final: no scaling, no display range, the data's intent.
  out->scl_slope = 1.0;
  out->scl_inter = 0.0;
  out->cal_min = out->cal_max = 0.0;
  out->intent_code = intent;
  out->intent_p1 = out->intent_p2 = out->intent_p3 = 0.0;
  std::memset(out->intent_name, 0, sizeof out->intent_name);
  std::memset(out->descrip, 0, sizeof out->descrip);
  std::strncpy(out->descrip, description.c_str(), sizeof out->descrip - 1);
  if (nifti_set_filenames(out.get(), path.c_str(), 0, 1) != 0)
    throw Error(kExitLibrary, "cannot write " + path + ": libnifti2 rejects the file name");
  // Single-file NIfTI-1, whatever the scan's version: every reader takes it, and libnifti2 3.0
  // writes a single-file NIfTI-2 (nifti_type 4) as if it were a header/image pair, overwriting
  // the header with the data. A map on an fMRI grid fits NIfTI-1's 16-bit dimensions.
  out->nifti_type = NIFTI_FTYPE_NIFTI1_1;

  // nifti_image_write() returns nothing and ignores failed data writes, so: the header through
  // libnifti2 with the file left open (write_opts 2), then the data and the close, each checked
  // (a .nii.gz reports a full disk only when it is closed).
  // A .nii.gz is compressed at zlib level 1, nibabel's default: a map on an fMRI grid is mostly
  // the zeros outside the mask, which level 1 packs nearly as well as zlib's default 6, in a
  // fraction of the time (the mode reaches gzopen through libnifti2's znzopen). Its header is a
  // gzip member of its own, closed here; the voxels follow as members compressed on `threads`
  // threads (gzip_members.hpp).
  constexpr int kGzipLevel = 1;
  const bool gz = nifti_is_gzfile(path.c_str()) != 0;
  znzFile fp = nifti_image_write_hdr_img2(out.get(), 2, gz ? "wb1" : "wb", nullptr, nullptr);
  if (znz_isnull(fp)) throw Error(kExitLibrary, "cannot write " + path + ": the header could not be written");
  const int64_t bytes = static_cast<int64_t>(out->nvox) * out->nbyper;
  errno = 0;
  const bool data_written = gz || nifti_write_buffer(fp, data, bytes) == bytes;  // a .nii.gz's voxels come next
  const int write_errno = errno;
  const int closed = Xznzclose(&fp);
  if (!data_written || closed != 0)
    throw Error(kExitLibrary, "cannot write " + path + ": " +
                                  (write_errno ? system_reason(write_errno) : std::string("write failed (disk full?)")));
  if (gz) append_gzip_members(path, data, bytes, threads, kGzipLevel);
}

}  // namespace fcli
