#include "batch_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "errors.hpp"

namespace fcli {

const char* const kMarkerName = "subject.json";
const char* const kManifestName = "manifest.json";

namespace {

const char* const kTemporaryTag = ".tmp-";

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

std::string temporary_name(const std::string& folder, const std::string& name) {
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  std::random_device random;
  char token[16];
  std::snprintf(token, sizeof token, "%08x", static_cast<unsigned>(random()));
  return folder + "/." + name + kTemporaryTag + host + "-" + std::to_string(getpid()) + "-" + token;
}

void write_all(int fd, const void* data, size_t bytes, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, std::min<size_t>(bytes, size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + path + ": " + system_reason(n < 0 ? errno : ENOSPC));
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace

Sha256::Sha256() {
  const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::copy(init, init + 8, h_);
}

void Sha256::block(const unsigned char* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t{p[4 * i]} << 24) | (uint32_t{p[4 * i + 1]} << 16) | (uint32_t{p[4 * i + 2]} << 8) | p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h_[0] += a; h_[1] += b; h_[2] += c; h_[3] += d; h_[4] += e; h_[5] += f; h_[6] += g; h_[7] += h;
}

void Sha256::update(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  total_ += bytes;
  if (used_ > 0) {
    const size_t take = std::min(bytes, 64 - used_);
    std::memcpy(buffer_ + used_, p, take);
    used_ += take; p += take; bytes -= take;
    if (used_ < 64) return;
    block(buffer_);
    used_ = 0;
  }
  for (; bytes >= 64; p += 64, bytes -= 64) block(p);
  std::memcpy(buffer_, p, bytes);
  used_ = bytes;
}

std::string Sha256::hex() {
  const uint64_t bits = total_ * 8;
  const unsigned char pad = 0x80, zero = 0;
  update(&pad, 1);
  while (used_ != 56) update(&zero, 1);
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(length, 8);
  std::string out;
  char buf[9];
  for (uint32_t v : h_) {
    std::snprintf(buf, sizeof buf, "%08x", v);
    out += buf;
  }
  return out;
}

std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read " + path);
  Sha256 sha;
  std::vector<char> chunk(size_t{1} << 22);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    sha.update(chunk.data(), static_cast<size_t>(in.gcount()));
  }
  return sha.hex();
}

std::string npy_header(const std::string& descr, const std::vector<int64_t>& shape) {
  // numpy.lib.format._write_array_header: repr of the sorted dict, then spare spaces for the
  // first axis to grow to 21 digits, padded so that the data starts at a multiple of 64.
  std::string dims;
  for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  if (!shape.empty()) header.append(21 - std::to_string(shape[0]).size(), ' ');
  const size_t hlen = header.size() + 1;
  const size_t padlen = 64 - ((6 + 2 + 2 + hlen) % 64);
  header.append(padlen, ' ');
  header += '\n';
  const size_t stored = header.size();
  std::string prefix = "\x93NUMPY";
  prefix += '\x01';
  prefix += '\x00';
  prefix += static_cast<char>(stored & 0xFF);
  prefix += static_cast<char>((stored >> 8) & 0xFF);
  return prefix + header;
}

JValue write_atomically(const std::string& folder, const std::string& name,
                        const std::vector<std::pair<const void*, size_t>>& parts) {
  const std::string temporary = temporary_name(folder, name), path = folder + "/" + name;
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + temporary + ": " + system_reason(errno));
  Sha256 sha;
  int64_t bytes = 0;
  try {
    for (const auto& [data, size] : parts) {
      write_all(fd, data, size, path);
      sha.update(data, size);
      bytes += static_cast<int64_t>(size);
    }
    if (::fsync(fd) != 0) fail("cannot write " + path + ": " + system_reason(errno));
    if (::close(fd) != 0) {
      ::unlink(temporary.c_str());
      fail("cannot write " + path + ": " + system_reason(errno));
    }
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    fail("cannot rename " + temporary + " to " + path + ": " + system_reason(err));
  }
  JValue record = JValue::object();
  record.set("bytes", bytes);
  record.set("sha256", sha.hex());
  return record;
}

JValue write_npy(const std::string& folder, const std::string& name, const std::string& descr,
                 const std::vector<int64_t>& shape, const void* data, size_t bytes) {
  const std::string header = npy_header(descr, shape);
  return write_atomically(folder, name, {{header.data(), header.size()}, {data, bytes}});
}

void write_json_atomically(const std::string& folder, const std::string& name, const JValue& value) {
  const std::string text = value.dump();
  write_atomically(folder, name, {{text.data(), text.size()}});
}

JValue read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return JValue();
  std::stringstream text;
  text << in.rdbuf();
  try {
    return JValue::parse(text.str());
  } catch (const std::exception&) {
    return JValue();
  }
}

std::vector<std::string> temporary_files(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > 1 && name[0] == '.' && name.find(kTemporaryTag) != std::string::npos) names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> remove_temporary(const std::string& folder) {
  std::vector<std::string> removed;
  for (const std::string& name : temporary_files(folder))
    if (::unlink((folder + "/" + name).c_str()) == 0) removed.push_back(name);
  return removed;
}

void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void make_folder(const std::string& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) fail("cannot create the folder " + folder + ": " + error.message());
}

std::string absolute_path(const std::string& path) {
  std::string text = std::filesystem::absolute(path).lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

JValue scan_fingerprint(const std::string& path) {
  JValue v = JValue::object();
  v.set("path", absolute_path(path));
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    v.set("missing", true);
    return v;
  }
  v.set("bytes", static_cast<int64_t>(info.st_size));
  v.set("mtime_ns", static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + static_cast<int64_t>(info.st_mtim.tv_nsec));
  return v;
}

Completeness check_complete(const std::string& folder, const JValue& expected, bool verify_sha256) {
  Completeness c;
  c.marker = read_json_file(folder + "/" + kMarkerName);
  if (c.marker.kind() != JValue::Kind::Object) {
    c.marker = JValue();
    c.reason = "no done-marker";
    return c;
  }
  for (const char* key : {"input", "pipeline", "settings", "fastconn"}) {
    const JValue* have = c.marker.find(key);
    const JValue* want = expected.find(key);
    if (!have || !want || *have != *want) {
      c.reason = std::string("its ") + key + " changed";
      return c;
    }
  }
  const JValue* outputs = c.marker.find("outputs");
  if (!outputs || outputs->kind() != JValue::Kind::Object || outputs->members().empty()) {
    c.reason = "the done-marker lists no output";
    return c;
  }
  for (const auto& [name, record] : outputs->members()) {
    const std::string path = folder + "/" + name;
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
      c.reason = name + " is missing";
      return c;
    }
    const JValue* bytes = record.find("bytes");
    const JValue* sha = record.find("sha256");
    if (!bytes || !bytes->is_number() || static_cast<double>(info.st_size) != bytes->number()) {
      c.reason = name + " has " + std::to_string(info.st_size) + " bytes, not the recorded size";
      return c;
    }
    if (verify_sha256 && (!sha || sha->kind() != JValue::Kind::String || file_sha256(path) != sha->string())) {
      c.reason = name + " does not match its SHA-256";
      return c;
    }
  }
  c.complete = true;
  c.reason = "complete";
  return c;
}

}  // namespace fcli
