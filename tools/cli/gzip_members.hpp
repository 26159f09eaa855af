// gzip_members.hpp - a map's voxels compressed on every core, as gzip members appended to a
// .nii.gz whose first member (the header) libnifti2 wrote.
//
// zlib's gzwrite compresses on one thread: a whole-brain map (91 x 109 x 91 floats, 3.6 MB) took
// 25-40 ms at level 1, a third of what the program adds to the library's own time on the GPU
// machine. A gzip file may be a sequence of members, each a complete gzip stream, read back as
// their contents joined (RFC 1952, 2.2): zlib's gzread (libnifti2, FSL, AFNI), Python's gzip
// (nibabel) and gunzip all do. So each thread compresses its own contiguous slice into a member
// of its own, and the members are appended in order.
#pragma once

#include <cstdint>
#include <string>

namespace fcli {

// Appends `bytes` bytes of `data` to the file at `path` as gzip members compressed at `level`
// on up to `threads` threads (slices of at least 256 KiB, so a small map is one member). Every
// write and the close are checked: failure throws Error naming `path` and the reason.
void append_gzip_members(const std::string& path, const void* data, int64_t bytes, int threads, int level);

}  // namespace fcli
