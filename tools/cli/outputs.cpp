// outputs.cpp - see outputs.hpp.
#include "outputs.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "errors.hpp"

namespace fcli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Extension to keep on a temporary name: the NIfTI one, else the last ".xyz" of the base name.
std::string kept_extension(const std::string& path) {
  const std::string nifti = nifti_extension(path);
  if (!nifti.empty()) return nifti;
  const size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  return (dot == std::string::npos || dot == 0) ? "" : base.substr(dot);
}

// lstat: a dangling symbolic link is an existing name too (rename would replace it).
bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string exists_message(const std::string& path) {
  return path + " exists: give --force to overwrite it, or another output name";
}

}  // namespace

Outputs::~Outputs() {
  if (committed_) return;
  for (const std::string& t : temps_) std::remove(t.c_str());
}

std::string Outputs::reserve(const std::string& final_path) {
  for (const std::string& f : finals_)
    if (f == final_path) fail("two outputs have the same name " + final_path);
  struct stat st;
  if (stat(final_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail("cannot write " + final_path + ": is a directory");
  if (!overwrite_ && exists(final_path)) fail(exists_message(final_path));
  const std::string dir = directory_of(final_path);
  const size_t slash = final_path.find_last_of('/');
  const std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
  const std::string ext = kept_extension(final_path);
  const std::string stem = base.substr(0, base.size() - ext.size());
  // A hidden name beside the output, e.g. .degree.fastconn-Xq3b9Z.nii.gz
  std::string pattern = dir + "/." + stem + ".fastconn-XXXXXX" + ext;
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemps(buf.data(), static_cast<int>(ext.size()));
  if (fd < 0) fail("cannot write " + final_path + ": " + system_reason(errno));
  // mkstemps creates the file 0600; give it the mode any new file of this user gets (0666 less
  // the umask), since it becomes the output that others may need to read.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  temps_.emplace_back(buf.data());
  finals_.push_back(final_path);
  return temps_.back();
}

void Outputs::commit() {
  if (!overwrite_)
    for (const std::string& f : finals_)
      if (exists(f)) fail(exists_message(f));
  for (size_t k = 0; k < temps_.size(); ++k) {
    if (std::rename(temps_[k].c_str(), finals_[k].c_str()) != 0) {
      const int err = errno;
      // the ones already renamed are complete files; drop the rest
      temps_.erase(temps_.begin(), temps_.begin() + static_cast<std::ptrdiff_t>(k));
      throw Error(kExitLibrary, "cannot rename the output into " + finals_[k] + ": " + system_reason(err));
    }
  }
  committed_ = true;
}

std::string nifti_extension(const std::string& path) {
  if (ends_with(path, ".nii.gz")) return ".nii.gz";
  if (ends_with(path, ".nii")) return ".nii";
  return "";
}

std::string sidecar_path(const std::string& output) {
  std::string ext = kept_extension(output);
  if (ext.empty() && ends_with(output, ".gz")) ext = ".gz";
  return output.substr(0, output.size() - ext.size()) + ".json";
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

int64_t free_disk_bytes(const std::string& directory) {
  // FASTCONN_FREE_DISK_BYTES pretends the disk has that much room: the tests exercise the
  // refusal (and --force) without filling a real file system.
  if (const char* fake = std::getenv("FASTCONN_FREE_DISK_BYTES")) return std::atoll(fake);
  struct statvfs vfs;
  if (statvfs(directory.c_str(), &vfs) != 0) return -1;
  return static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize);
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace fcli
