// scan_voxels.cpp - see scan_voxels.hpp.
#include "scan_voxels.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>

#include "errors.hpp"
#include "huge_buffer.hpp"
#include "nifti_io.hpp"
#include "thread_split.hpp"

namespace fcli {
namespace {

// Calls f(const T* data) with the image's voxels as their C type. The datatypes accepted by
// read_header; the others never get here.
template <class F>
void with_voxels(const nifti_image* im, F&& f) {
  const void* d = im->data;
  switch (im->datatype) {
    case DT_UINT8: f(static_cast<const uint8_t*>(d)); break;
    case DT_INT8: f(static_cast<const int8_t*>(d)); break;
    case DT_INT16: f(static_cast<const int16_t*>(d)); break;
    case DT_UINT16: f(static_cast<const uint16_t*>(d)); break;
    case DT_INT32: f(static_cast<const int32_t*>(d)); break;
    case DT_UINT32: f(static_cast<const uint32_t*>(d)); break;
    case DT_INT64: f(static_cast<const int64_t*>(d)); break;
    case DT_UINT64: f(static_cast<const uint64_t*>(d)); break;
    case DT_FLOAT32: f(static_cast<const float*>(d)); break;
    case DT_FLOAT64: f(static_cast<const double*>(d)); break;
    case DT_FLOAT128: f(static_cast<const long double*>(d)); break;
    default: fail(std::string("unsupported NIfTI datatype ") + nifti_datatype_string(im->datatype));
  }
}

// The header's linear scaling, as nibabel applies it: only a finite, nonzero slope scales.
struct Scaling {
  bool on;
  double slope, inter;
};

Scaling scaling_of(const nifti_image* im) {
  const double s = im->scl_slope, b = im->scl_inter;
  if (s != 0.0 && std::isfinite(s)) return {true, s, std::isfinite(b) ? b : 0.0};
  return {false, 1.0, 0.0};
}

double scaled(double raw, const Scaling& sc) { return sc.on ? raw * sc.slope + sc.inter : raw; }

// Whether raw * slope + inter is exactly a float32 for every integer of [lo, hi].
bool scaled_range_exact(int64_t lo, int64_t hi, const Scaling& sc) {
  for (int64_t x = lo; x <= hi; ++x) {
    const double v = scaled(static_cast<double>(x), sc);
    if (static_cast<double>(static_cast<float>(v)) != v) return false;
  }
  return true;
}

// Below this many bytes per thread a file is read by nifti_image_load alone: starting threads
// and opening the file once more would cost more than they save (a mask, a small scan).
constexpr int64_t kMinBytesPerReader = int64_t{1} << 20;

}  // namespace

void load_data(nifti_image* image, const std::string& path, const std::string& role, int threads) {
  const int64_t bytes = nifti_get_volsize(image);
  const char* data_file = image->iname ? image->iname : path.c_str();
  const bool compressed = nifti_is_gzfile(data_file) != 0;
  if (!compressed) {
    // Uncompressed: the file size says exactly how much is missing.
    struct stat st;
    if (stat(data_file, &st) == 0 && static_cast<int64_t>(st.st_size) < image->iname_offset + bytes)
      fail(role + " " + path + ": truncated file: " + std::to_string(bytes) + " bytes of image data expected, " +
           std::to_string(std::max<int64_t>(0, static_cast<int64_t>(st.st_size) - image->iname_offset)) +
           " present");
  }
  auto unreadable = [&] {
    check_cancel();  // Ctrl-C first: an interrupted read is not a corrupt file
    fail(role + " " + path + ": cannot read the image data (truncated or corrupt file, or out of memory for " +
         std::to_string(bytes) + " bytes)");
  };
  const int readers = static_cast<int>(std::min<int64_t>(threads, bytes / kMinBytesPerReader));
  // A negative offset (data at the end of the file: ANALYZE oddities) and .nii.gz stay with
  // libnifti2's own loader.
  if (compressed || readers < 2 || image->iname == nullptr || image->iname_offset < 0) {
    if (nifti_image_load(image) != 0) unreadable();
    return;
  }
  // For free(), as nifti_image_load's malloc: nifti_image_unload/free release it. Not zeroed:
  // each reader fills (and first touches) its own part, on huge pages (huge_buffer.hpp).
  nifti_image_unload(image);
  image->data = huge_alloc(static_cast<size_t>(bytes));
  if (!image->data) unreadable();
  char* data = static_cast<char*>(image->data);
  const int64_t element = image->nbyper;  // parts hold whole values, for the byte swap
  split_over_threads(bytes / element, readers, [&](int64_t begin, int64_t end) {
    const int64_t offset = begin * element, length = (end - begin) * element;
    znzFile fp = znzopen(data_file, "rb", 0);
    if (znz_isnull(fp)) fail(role + " " + path + ": " + system_reason(errno));
    const bool ok = znzseek(fp, static_cast<znz_off_t>(image->iname_offset + offset), SEEK_SET) == 0 &&
                    nifti_read_buffer(fp, data + offset, length, image) == length;
    Xznzclose(&fp);
    if (!ok) unreadable();
  });
}

std::vector<double> first_volume(const nifti_image* image) {
  const int64_t nv = volume_voxels(image);
  const Scaling sc = scaling_of(image);
  std::vector<double> out(static_cast<size_t>(nv));
  with_voxels(image, [&](auto* data) {
    for (int64_t v = 0; v < nv; ++v) out[static_cast<size_t>(v)] = scaled(static_cast<double>(data[v]), sc);
  });
  return out;
}

bool float32_exact(const nifti_image* scan) {
  const Scaling sc = scaling_of(scan);
  switch (scan->datatype) {
    case DT_FLOAT32: return !sc.on || (sc.slope == 1.0 && sc.inter == 0.0);
    case DT_UINT8: return scaled_range_exact(0, 255, sc);
    case DT_INT8: return scaled_range_exact(-128, 127, sc);
    case DT_INT16: return scaled_range_exact(-32768, 32767, sc);
    case DT_UINT16: return scaled_range_exact(0, 65535, sc);
    default: return false;  // 32- and 64-bit integers, float64, float128
  }
}

template <class T>
void gather_series(const nifti_image* scan, const std::string& path, const std::vector<int64_t>& voxels, T* out,
                   int threads) {
  const int64_t nv = volume_voxels(scan), nt = time_points(scan), n = static_cast<int64_t>(voxels.size());
  const Scaling sc = scaling_of(scan);
  // Only float data or a scaling can give NaN or Inf (libnifti2 sets NaN and Inf of float data to
  // 0 while reading, as AFNI does, so this catches what the scaling makes non-finite).
  const bool may_be_nonfinite =
      scan->datatype == DT_FLOAT32 || scan->datatype == DT_FLOAT64 || scan->datatype == DT_FLOAT128 || sc.on;
  // Time-major (out[t * n + s]): each volume is read once, where its voxels lie, and the output
  // is written in order; series-major writes stride by T for every value (the whole-brain gather
  // took 0.6 s that way on the GPU machine). The library takes this layout as it is.
  // The first non-finite value in mask order (s, then t), over every thread's volumes.
  int64_t bad_s = n, bad_t = 0;
  std::mutex bad_mutex;
  with_voxels(scan, [&](auto* data) {
    split_over_threads(nt, threads, [&](int64_t t0, int64_t t1) {
      int64_t my_s = n, my_t = 0;
      for (int64_t t = t0; t < t1; ++t) {
        const auto* vol = data + t * nv;
        T* dst = out + t * n;
        if (sc.on)
          for (int64_t s = 0; s < n; ++s)
            dst[s] = static_cast<T>(static_cast<double>(vol[voxels[static_cast<size_t>(s)]]) * sc.slope + sc.inter);
        else
          for (int64_t s = 0; s < n; ++s) dst[s] = static_cast<T>(vol[voxels[static_cast<size_t>(s)]]);
        if (may_be_nonfinite)
          for (int64_t s = 0; s < my_s; ++s)
            if (!std::isfinite(dst[s])) {
              my_s = s;
              my_t = t;
            }
      }
      const std::lock_guard<std::mutex> lock(bad_mutex);
      if (my_s < bad_s || (my_s == bad_s && my_t < bad_t)) {
        bad_s = my_s;
        bad_t = my_t;
      }
    });
  });
  if (bad_s < n) {
    const T x = out[bad_t * n + bad_s];
    fail("scan " + path + ": voxel " + voxel_text(scan, voxels[static_cast<size_t>(bad_s)]) + " of the mask is " +
         (std::isnan(x) ? "NaN" : "infinite") + " at time point " + std::to_string(bad_t) +
         ": leave it out of the mask (or use --automask)");
  }
}

template void gather_series<float>(const nifti_image*, const std::string&, const std::vector<int64_t>&, float*, int);
template void gather_series<double>(const nifti_image*, const std::string&, const std::vector<int64_t>&, double*, int);

std::vector<int64_t> automatic_mask(const nifti_image* scan, int64_t* n_nonfinite, int threads) {
  const int64_t nv = volume_voxels(scan), nt = time_points(scan);
  const Scaling sc = scaling_of(scan);
  std::vector<double> first(static_cast<size_t>(nv));
  std::vector<unsigned char> varies(static_cast<size_t>(nv), 0), bad(static_cast<size_t>(nv), 0);
  with_voxels(scan, [&](auto* data) {
    // Each thread takes a range of voxels through every volume: the volumes are read in the
    // file's order, and the flags of a voxel have one writer.
    split_over_threads(nv, threads, [&](int64_t v0, int64_t v1) {
      for (int64_t t = 0; t < nt; ++t) {
        const auto* vol = data + t * nv;
        for (int64_t v = v0; v < v1; ++v) {
          const double x = scaled(static_cast<double>(vol[v]), sc);
          if (!std::isfinite(x)) bad[static_cast<size_t>(v)] = 1;
          if (t == 0) first[static_cast<size_t>(v)] = x;
          else if (x != first[static_cast<size_t>(v)]) varies[static_cast<size_t>(v)] = 1;
        }
      }
    });
  });
  std::vector<int64_t> voxels;
  int64_t nonfinite = 0;
  for (int64_t v = 0; v < nv; ++v) {
    if (bad[static_cast<size_t>(v)]) ++nonfinite;
    else if (varies[static_cast<size_t>(v)]) voxels.push_back(v);
  }
  if (n_nonfinite) *n_nonfinite = nonfinite;
  return voxels;
}

}  // namespace fcli
