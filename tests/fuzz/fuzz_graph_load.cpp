// fc_graph_load on arbitrary bytes (through a temporary file): FC_OK with a graph that round-trips
// through fc_graph_save, or an error (FC_ERR_IO) with the output untouched; never a crash, a
// sanitizer report or an allocation the file cannot back.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastconn/fastconn.h"

namespace {

std::string temporary(const char* tag) {
  std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/fastconn-fuzz-" + tag + "-" +
                     std::to_string(static_cast<long>(getpid())) + ".fcg";
  return path;
}

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_graph_load: %s (fc_last_error: %s)\n", what, fc_last_error());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = temporary("in"), copy = temporary("copy");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return 0;

  fc_graph* untouched = reinterpret_cast<fc_graph*>(&f);
  fc_graph* g = untouched;
  const fc_status status = fc_graph_load(path.c_str(), &g);
  std::remove(path.c_str());  // each input's file goes with it: none is left in TMPDIR when the run ends
  if (status != FC_OK) {
    require(status >= 100, "a failed load returned a non-error status");
    require(g == untouched, "a failed load wrote its output");
    return 0;
  }
  int64_t n = -1, edges = -1;
  require(fc_graph_info(g, &n, &edges) == FC_OK && n >= 0 && edges >= 0, "fc_graph_info");
  // (+1: valid pointers when the graph has no edges)
  std::vector<int64_t> offsets(static_cast<size_t>(n) + 1), columns(static_cast<size_t>(2 * edges) + 1);
  std::vector<float> weights(static_cast<size_t>(2 * edges) + 1);
  require(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * edges) == FC_OK, "fc_graph_csr");
  require(offsets[0] == 0 && offsets[static_cast<size_t>(n)] == 2 * edges, "CSR offsets");
  std::vector<int64_t> i(static_cast<size_t>(edges) + 1), j(static_cast<size_t>(edges) + 1);
  require(fc_graph_edges(g, i.data(), j.data(), nullptr, edges) == FC_OK, "fc_graph_edges");
  for (size_t e = 0; e < static_cast<size_t>(edges); ++e) require(0 <= i[e] && i[e] < j[e] && j[e] < n, "edge outside i < j < n");
  // what loads, saves to the same bytes
  require(fc_graph_save(g, copy.c_str()) == FC_OK, "fc_graph_save of a loaded graph");
  std::FILE* c = std::fopen(copy.c_str(), "rb");
  std::vector<uint8_t> saved(size + 1);
  const size_t got = c ? std::fread(saved.data(), 1, saved.size(), c) : 0;
  if (c) std::fclose(c);
  std::remove(copy.c_str());
  // (bytes 12-15 are the reserved field, which a load ignores and a save writes as 0)
  require(got == size && size >= 16 && std::equal(data, data + 12, saved.begin()) &&
              std::equal(data + 16, data + size, saved.begin() + 16),
          "save(load(bytes)) != bytes");
  fc_graph_destroy(g);
  return 0;
}
