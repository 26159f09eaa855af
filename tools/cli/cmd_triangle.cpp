// cmd_triangle.cpp - `fastconn triangle`: every pair's r, the strict upper triangle in row order,
// as raw little-endian float32, streamed block by block (fc_pcc_blocks_*) so the N(N-1)/2 values
// never sit in memory. The size is said before anything is computed, and a triangle larger than
// the free disk is refused unless --force.
#include <cerrno>
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace fcli {

int run_triangle(int argc, char** argv, int first) {
  Args args(argc, argv, first, common_specs(), "triangle");  // --force is common: overwrite, and here: disk
  if (args.has("help")) {
    print_command_help("triangle");
    return kExitOk;
  }
  Session s(argc, argv, args);
  const std::string tmp = s.reserve_file(s.output(), "triangle");
  s.parameters().set("order", "row: (0,1), (0,2), ..., (0,N-1), (1,2), ... (scipy's squareform, R's dist)");
  s.parameters().set("format", "raw float32 in the machine's byte order (little-endian on x86-64 and arm64), no header");
  s.parameters().set("node_order", "mask voxels in NIfTI storage order (x fastest), numbered from 0");

  s.load_scan();
  s.select_voxels();
  const int64_t n = s.n_voxels();
  if (n < 2) fail("the mask has " + std::to_string(n) + " voxel: a triangle needs at least 2");
  const int64_t pairs = fc_triu_size(n);
  if (pairs < 0 || pairs > INT64_MAX / 4) fail("the triangle of " + std::to_string(n) + " voxels does not fit in 64 bits");
  const int64_t bytes = pairs * 4;
  const std::string dir = directory_of(s.output());
  const int64_t free_bytes = free_disk_bytes(dir);
  // Said even with --quiet: it is the one number to know before a triangle is written.
  std::fprintf(stderr, "fastconn: triangle of %lld voxels: %lld pairs, %lld bytes (%s) of float32 to %s; %s free there\n",
               static_cast<long long>(n), static_cast<long long>(pairs), static_cast<long long>(bytes),
               human_bytes(static_cast<double>(bytes)).c_str(), s.output().c_str(),
               free_bytes < 0 ? "unknown" : human_bytes(static_cast<double>(free_bytes)).c_str());
  if (free_bytes >= 0 && bytes > free_bytes && !args.has("force"))
    fail("the triangle needs " + human_bytes(static_cast<double>(bytes)) + " but " + dir + " has " +
         human_bytes(static_cast<double>(free_bytes)) + " free: use a smaller mask, another disk, or --force");
  s.results().set("n_pairs", pairs);
  s.results().set("bytes", bytes);

  s.make_series();
  fc_blocks* raw = nullptr;
  check(fc_pcc_blocks_begin(s.context(), s.series(), 0, &raw), "fc_pcc_blocks_begin");
  BlocksPtr blocks(raw);
  int64_t capacity = 0;
  check(fc_blocks_max_count(blocks.get(), &capacity), "fc_blocks_max_count");
  std::vector<float> buf(static_cast<size_t>(capacity));

  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(kExitLibrary, "cannot write " + s.output() + ": " + system_reason(errno));
  std::unique_ptr<FILE, int (*)(FILE*)> file(f, &std::fclose);
  s.progress().begin("triangle");
  const double t0 = now_seconds();
  for (;;) {
    fc_block_info info;
    const fc_status st = fc_blocks_next(blocks.get(), buf.data(), capacity, &info);
    if (st == FC_DONE) break;
    check(st, "fc_blocks_next");
    if (std::fwrite(buf.data(), sizeof(float), static_cast<size_t>(info.count), f) != static_cast<size_t>(info.count))
      throw Error(kExitLibrary, "cannot write " + s.output() + ": " + system_reason(errno));
    if (s.progress().update(info.triu_offset + info.count, pairs) != 0) cancelled();
  }
  if (std::fclose(file.release()) != 0) throw Error(kExitLibrary, "cannot write " + s.output() + ": " + system_reason(errno));
  s.set_timing("compute_and_write", now_seconds() - t0);
  s.progress().end();
  s.finish();
  return kExitOk;
}

}  // namespace fcli
