#include "graph/graph_file.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include "base/error.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the graph file format is little-endian; add byte swapping for this host"
#endif

namespace fc {
namespace {

constexpr char kMagic[8] = {'F', 'C', 'G', 'R', 'A', 'P', 'H', '1'};
constexpr uint32_t kVersion = 1;

[[noreturn]] void io_fail(const std::string& what, const std::string& path) {
  fail(FC_ERR_IO, what + " '" + path + "': " + std::strerror(errno));
}

// Closes the FILE on every path out.
struct File {
  std::FILE* f;
  ~File() {
    if (f != nullptr) std::fclose(f);
  }
};

void write_all(std::FILE* f, const void* p, size_t bytes, const std::string& path) {
  if (bytes > 0 && std::fwrite(p, 1, bytes, f) != bytes) io_fail("cannot write", path);
}

void read_all(std::FILE* f, void* p, size_t bytes, const std::string& path) {
  if (bytes > 0 && std::fread(p, 1, bytes, f) != bytes) {
    if (std::feof(f)) fail(FC_ERR_IO, "'" + path + "' is truncated: not a complete fastconn graph file");
    io_fail("cannot read", path);
  }
}

}  // namespace

void save_graph(const GraphData& g, const std::string& path) {
  const std::string temporary = path + ".fastconn-tmp";
  {
    File file{std::fopen(temporary.c_str(), "wb")};
    if (file.f == nullptr) io_fail("cannot create", temporary);
    const uint32_t header[2] = {kVersion, 0};
    const int64_t sizes[2] = {g.n, g.n_edges};
    write_all(file.f, kMagic, sizeof kMagic, temporary);
    write_all(file.f, header, sizeof header, temporary);
    write_all(file.f, sizes, sizeof sizes, temporary);
    write_all(file.f, g.offsets.data(), g.offsets.size() * sizeof(int64_t), temporary);
    write_all(file.f, g.columns.data(), g.columns.size() * sizeof(int64_t), temporary);
    write_all(file.f, g.weights.data(), g.weights.size() * sizeof(float), temporary);
    const int closed = std::fclose(file.f);
    file.f = nullptr;
    if (closed != 0) {
      std::remove(temporary.c_str());
      io_fail("cannot write", temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    errno = saved;
    io_fail("cannot rename the finished file to", path);
  }
}

std::shared_ptr<GraphData> load_graph(const std::string& path) {
  File file{std::fopen(path.c_str(), "rb")};
  if (file.f == nullptr) io_fail("cannot open", path);
  char magic[8];
  uint32_t header[2];
  int64_t sizes[2];
  read_all(file.f, magic, sizeof magic, path);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) fail(FC_ERR_IO, "'" + path + "' is not a fastconn graph file");
  read_all(file.f, header, sizeof header, path);
  if (header[0] != kVersion)
    fail(FC_ERR_IO, "'" + path + "' has graph format version " + std::to_string(header[0]) + "; this fastconn reads version " +
                        std::to_string(kVersion));
  read_all(file.f, sizes, sizeof sizes, path);
  const int64_t n = sizes[0], edges = sizes[1];
  if (n < 0 || edges < 0 || n > (int64_t(1) << 40) || edges > (int64_t(1) << 50))
    fail(FC_ERR_IO, "'" + path + "' is corrupt: " + std::to_string(n) + " nodes, " + std::to_string(edges) + " edges");
  // The counts say how long the file is: check before allocating (a corrupt or hostile header
  // would otherwise ask for terabytes; found by tests/fuzz/fuzz_graph_load.cpp).
  struct stat info;
  if (::fstat(::fileno(file.f), &info) == 0 && S_ISREG(info.st_mode)) {
    const int64_t expected = static_cast<int64_t>(sizeof magic + sizeof header + sizeof sizes) + (n + 1) * 8 + 2 * edges * 12;
    if (static_cast<int64_t>(info.st_size) < expected)
      fail(FC_ERR_IO, "'" + path + "' is truncated: " + std::to_string(n) + " nodes and " + std::to_string(edges) +
                          " edges need " + std::to_string(expected) + " bytes but the file has " + std::to_string(info.st_size) +
                          "; not a complete fastconn graph file");
    if (static_cast<int64_t>(info.st_size) > expected) fail(FC_ERR_IO, "'" + path + "' has trailing bytes after the graph");
  }
  std::vector<int64_t> offsets(static_cast<size_t>(n) + 1), columns(static_cast<size_t>(2 * edges));
  std::vector<float> weights(static_cast<size_t>(2 * edges));
  read_all(file.f, offsets.data(), offsets.size() * sizeof(int64_t), path);
  if (offsets[static_cast<size_t>(n)] != 2 * edges)
    fail(FC_ERR_IO, "'" + path + "' is corrupt: its offsets end at " + std::to_string(offsets[static_cast<size_t>(n)]) +
                        " but it holds " + std::to_string(edges) + " edges (" + std::to_string(2 * edges) + " entries)");
  read_all(file.f, columns.data(), columns.size() * sizeof(int64_t), path);
  read_all(file.f, weights.data(), weights.size() * sizeof(float), path);
  if (std::fgetc(file.f) != EOF) fail(FC_ERR_IO, "'" + path + "' has trailing bytes after the graph");
  try {
    return graph_from_csr(n, offsets.data(), columns.data(), weights.data());
  } catch (const Error& e) {
    fail(FC_ERR_IO, "'" + path + "' holds an invalid graph: " + e.what());
  }
}

}  // namespace fc
