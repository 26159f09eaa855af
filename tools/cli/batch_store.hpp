// batch_store.hpp - the files of a cohort run as fastconn.cohort_store (bindings/python) writes
// them, so that `fastconn batch` and `python3 -m fastconn.cohort` resume each other's runs:
// - OUT/<subject>/<step>.<array>.npy: numpy's .npy format 1.0, byte for byte as np.save writes it;
// - every file written to ".<name>.tmp-<host>-<pid>-<hex>" in its folder, fsync'ed, then renamed
//   over its name (a reader sees the old file or the whole new one, never half of one);
// - OUT/<subject>/subject.json, the done-marker, written last: input fingerprint, pipeline,
//   settings, fastconn version and every output's size and SHA-256;
// - OUT/manifest.json, rewritten the same way after each subject.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "batch_json.hpp"

namespace fcli {

extern const char* const kMarkerName;    // "subject.json"
extern const char* const kManifestName;  // "manifest.json"

// Hex SHA-256 of a buffer fed in parts (FIPS 180-4).
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t bytes);
  std::string hex();  // once, at the end

 private:
  void block(const unsigned char* p);
  uint32_t h_[8];
  unsigned char buffer_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

std::string file_sha256(const std::string& path);  // throws (exit 1) when unreadable

// np.save's header for a C-order array of numpy dtype `descr` ("<i8", "<f8", "<f4").
std::string npy_header(const std::string& descr, const std::vector<int64_t>& shape);

// Writes `parts` (pointer, bytes) one after another to folder/name atomically; returns
// {"bytes": ..., "sha256": ...}. Throws (exit 1) naming the file; no temporary file remains.
JValue write_atomically(const std::string& folder, const std::string& name,
                        const std::vector<std::pair<const void*, size_t>>& parts);
JValue write_npy(const std::string& folder, const std::string& name, const std::string& descr,
                 const std::vector<int64_t>& shape, const void* data, size_t bytes);
void write_json_atomically(const std::string& folder, const std::string& name, const JValue& value);
// The JSON in `path`, or null when missing or unreadable (the subject is then redone).
JValue read_json_file(const std::string& path);

std::vector<std::string> temporary_files(const std::string& folder);  // .<name>.tmp-*, sorted
std::vector<std::string> remove_temporary(const std::string& folder);
void sync_folder(const std::string& folder);
void make_folder(const std::string& folder);  // mkdir -p; throws naming it

// os.path.abspath: absolute and lexically normal, symbolic links kept.
std::string absolute_path(const std::string& path);
// fastconn.cohort_pipeline.scan_fingerprint of a path: {"path", "bytes", "mtime_ns"} or
// {"path", "missing": true}.
JValue scan_fingerprint(const std::string& path);

struct Completeness {
  bool complete = false;
  JValue marker;       // null when there is none
  std::string reason;  // what is missing or different
};
// cohort_store.check_complete: a done-marker whose input, pipeline, settings and fastconn
// version equal `expected`'s, and every output it lists with its size (and SHA-256 when
// `verify_sha256`).
Completeness check_complete(const std::string& folder, const JValue& expected, bool verify_sha256);

}  // namespace fcli
