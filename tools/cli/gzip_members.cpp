// gzip_members.cpp - see gzip_members.hpp.
#include "gzip_members.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include "errors.hpp"
#include "thread_split.hpp"

namespace fcli {
namespace {

constexpr int64_t kMinSlice = int64_t{256} << 10;  // below this a member's own header costs more than a thread saves
constexpr int64_t kMaxPass = int64_t{1} << 30;     // zlib's avail_in is 32-bit: feed at most 1 GiB at a time

// One complete gzip member (windowBits 15 + 16: zlib writes the gzip header and trailer) of the
// `bytes` bytes at `in`.
std::string gzip_member(const unsigned char* in, int64_t bytes, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error(kExitLibrary, "zlib could not start a compressor (out of memory?)");
  std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, deflateEnd);
  std::string out;
  out.resize(static_cast<size_t>(deflateBound(&z, static_cast<uLong>(std::min(bytes, kMaxPass)))) + 64);
  int64_t used = 0, fed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const int64_t pass = std::min(bytes - fed, kMaxPass);
    z.next_in = const_cast<unsigned char*>(in + fed);  // zlib's API is not const-correct; it only reads
    z.avail_in = static_cast<uInt>(pass);
    const int flush = fed + pass == bytes ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (used == static_cast<int64_t>(out.size())) out.resize(out.size() * 2);
      z.next_out = reinterpret_cast<unsigned char*>(&out[static_cast<size_t>(used)]);
      z.avail_out = static_cast<uInt>(std::min<int64_t>(static_cast<int64_t>(out.size()) - used, kMaxPass));
      const uInt before = z.avail_out;
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) throw Error(kExitLibrary, "zlib's compressor failed");
      used += before - z.avail_out;
    } while (z.avail_in > 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    fed += pass;
  }
  out.resize(static_cast<size_t>(used));
  return out;
}

}  // namespace

void append_gzip_members(const std::string& path, const void* data, int64_t bytes, int threads, int level) {
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(threads, bytes / kMinSlice));
  std::vector<std::string> members(static_cast<size_t>(slices));
  const auto* in = static_cast<const unsigned char*>(data);
  split_over_threads(slices, static_cast<int>(slices), [&](int64_t first, int64_t last) {
    for (int64_t k = first; k < last; ++k) {
      const int64_t begin = bytes * k / slices, end = bytes * (k + 1) / slices;
      members[static_cast<size_t>(k)] = gzip_member(in + begin, end - begin, level);
    }
  });
  FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) throw Error(kExitLibrary, "cannot write " + path + ": " + system_reason(errno));
  errno = 0;
  bool ok = true;
  for (const std::string& m : members) ok = ok && std::fwrite(m.data(), 1, m.size(), f) == m.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    const int why = write_errno ? write_errno : errno;
    throw Error(kExitLibrary, "cannot write " + path + ": " +
                                  (why ? system_reason(why) : std::string("write failed (disk full?)")));
  }
}

}  // namespace fcli
