#include "batch_scan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <nifti2_io.h>

#include "errors.hpp"
#include "nifti_io.hpp"
#include "outputs.hpp"
#include "scan_voxels.hpp"

namespace fcli {
namespace {

template <class T>
void mark_nonfinite(const unsigned char* bytes, int64_t count, int64_t first, int64_t n_volume, bool swap,
                    std::vector<char>& bad) {
  for (int64_t k = 0; k < count; ++k) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, bytes + k * static_cast<int64_t>(sizeof(T)), sizeof(T));
    if (swap) std::reverse(raw, raw + sizeof(T));
    T value;
    std::memcpy(&value, raw, sizeof(T));
    if (!std::isfinite(value)) bad[static_cast<size_t>((first + k) % n_volume)] = 1;
  }
}

// Per voxel of a float32 / float64 scan: whether the file holds a NaN or Inf in its series.
std::vector<char> nonfinite_voxels(const nifti_image* scan, const std::string& path) {
  const int64_t n_volume = volume_voxels(scan), total = n_volume * time_points(scan);
  std::vector<char> bad(static_cast<size_t>(n_volume), 0);
  if (scan->datatype != DT_FLOAT32 && scan->datatype != DT_FLOAT64) return bad;
  const size_t size = scan->datatype == DT_FLOAT32 ? 4 : 8;
  znzFile fp = znzopen(scan->iname, "rb", nifti_is_gzfile(scan->iname));
  if (znz_isnull(fp)) fail("cannot read " + path);
  if (znzseek(fp, static_cast<znz_off_t>(scan->iname_offset), SEEK_SET) < 0) {
    Xznzclose(&fp);
    fail("cannot read " + path);
  }
  const bool swap = scan->byteorder != nifti_short_order();
  std::vector<unsigned char> chunk(size_t{1} << 24);
  const int64_t per_chunk = static_cast<int64_t>(chunk.size() / size);
  for (int64_t done = 0; done < total;) {
    const int64_t count = std::min(per_chunk, total - done);
    if (znzread(chunk.data(), size, static_cast<size_t>(count), fp) != static_cast<size_t>(count)) {
      Xznzclose(&fp);
      fail("scan " + path + ": the file is shorter than its header says");
    }
    if (size == 4) mark_nonfinite<float>(chunk.data(), count, done, n_volume, swap, bad);
    else mark_nonfinite<double>(chunk.data(), count, done, n_volume, swap, bad);
    done += count;
  }
  Xznzclose(&fp);
  return bad;
}

}  // namespace

SeriesPtr load_subject_series(fc_context* ctx, const std::string& path, int io_threads, std::vector<int64_t>& voxels,
                              int64_t& n_time) {
  const size_t length = path.size();
  if (length >= 4 && path.compare(length - 4, 4, ".npy") == 0)
    fail("fastconn batch reads NIfTI scans (.nii, .nii.gz); run .npy scans with python3 -m fastconn.cohort");
  if (nifti_extension(path).empty()) fail(path + ": not a .nii, .nii.gz or .npy file");
  NiftiPtr scan = read_header(path, "scan");
  require_scan_shape(scan.get(), path);
  load_data(scan.get(), path, "scan", io_threads);
  int64_t nonfinite = 0;
  voxels = automatic_mask(scan.get(), &nonfinite, io_threads);
  const std::vector<char> bad = nonfinite_voxels(scan.get(), path);
  voxels.erase(std::remove_if(voxels.begin(), voxels.end(), [&](int64_t v) { return bad[static_cast<size_t>(v)] != 0; }),
               voxels.end());
  if (voxels.empty()) fail("scan " + path + ": no voxel has a finite, non-constant time series");
  n_time = time_points(scan.get());
  const int64_t n = static_cast<int64_t>(voxels.size());
  std::vector<float> data(static_cast<size_t>(n * n_time));
  gather_series(scan.get(), path, voxels, data.data(), io_threads);
  scan.reset();
  fc_series* s = nullptr;
  check(fc_series_create_f32(ctx, data.data(), n, n_time, 1, n, &s), "fc_series_create_f32");
  return SeriesPtr(s);
}

}  // namespace fcli
