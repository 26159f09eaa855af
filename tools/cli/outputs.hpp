// outputs.hpp - all-or-nothing output files.
//
// Every output is written to a temporary name in its own directory (so the final rename is
// atomic: same file system) and renamed into place only when every output of the run is
// complete. On any failure or Ctrl-C the destructor deletes the temporary files, so neither a
// partial map nor a map without its sidecar is ever left behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fcli {

class Outputs {
 public:
  Outputs() = default;
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;
  ~Outputs();

  // Whether an existing file may be replaced (--force). Without it an output or sidecar that
  // already exists is refused at reserve() and, in case one appeared meanwhile, again at commit().
  void set_overwrite(bool overwrite) { overwrite_ = overwrite; }

  // Creates (empty, exclusively) the temporary file for `final_path` and returns its name, which
  // keeps the final name's extension (".nii.gz" tells libnifti2 to compress). Reserving at the
  // start makes an unwritable directory or an existing output fail before any computation.
  // Throws on failure (exit 1).
  std::string reserve(const std::string& final_path);

  // Renames every temporary file to its final name, in the order reserved; without overwrite,
  // renames none if any final name exists by now.
  void commit();

  const std::vector<std::string>& finals() const { return finals_; }

 private:
  std::vector<std::string> temps_;
  std::vector<std::string> finals_;
  bool committed_ = false;
  bool overwrite_ = false;
};

// The extension of a NIfTI file name: ".nii.gz" or ".nii", or "" if it is neither.
std::string nifti_extension(const std::string& path);

// The sidecar of an output: its name without the extension (.nii.gz, .nii, or the last one) plus
// ".json", as BIDS names sidecars (degree.nii.gz -> degree.json).
std::string sidecar_path(const std::string& output);

// The directory part of a path ("." when it has none).
std::string directory_of(const std::string& path);

// Bytes available to this user on the file system holding `directory`; -1 if unknown.
int64_t free_disk_bytes(const std::string& directory);

// "1.5 GiB" etc.
std::string human_bytes(double bytes);

}  // namespace fcli
