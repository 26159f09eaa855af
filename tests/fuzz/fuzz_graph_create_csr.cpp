// fc_graph_create_csr on arbitrary arrays: offsets, columns and weights (NaN, Inf, asymmetric,
// unsorted, out of range, self-loops) and node counts. The fuzzer passes only memory it owns:
// n_nodes + 1 offsets and, when the last offset is a count it can back, that many columns and
// weights; inputs whose arrays the library would be entitled to read past that are skipped.
// A graph that is accepted must read back as a valid symmetric CSR.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fastconn/fastconn.h"
#include "fuzz_input.hpp"

namespace {
void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_graph_create_csr: %s (fc_last_error: %s)\n", what, fc_last_error());
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const int64_t n = in.size_like(40);
  const uint8_t flags = in.take<uint8_t>();
  std::vector<int64_t> offsets;
  if (n >= 0) {
    if (n > 4096) return 0;  // the library reads n + 1 offsets
    offsets.resize(static_cast<size_t>(n) + 1);
    // small steps (mostly valid CSR) or raw values
    int64_t at = 0;
    for (auto& o : offsets) {
      o = (flags & 1) ? in.take<int64_t>() : (at += in.take<uint8_t>() % 5);
    }
    if (!(flags & 1)) offsets[0] = 0;
  }
  const int64_t entries = offsets.empty() ? 0 : offsets.back();
  if (entries > 4096) return 0;  // valid-looking offsets could ask us to back more than we have
  const size_t count = entries > 0 ? static_cast<size_t>(entries) : 0;
  std::vector<int64_t> columns(count + 1);
  std::vector<float> weights(count + 1);
  for (size_t k = 0; k < count; ++k) {
    columns[k] = (flags & 2) ? in.take<int64_t>() : static_cast<int64_t>(in.take<uint8_t>()) % (n > 0 ? n : 1);
    weights[k] = (flags & 4) ? in.take<float>() : 1.0f + static_cast<float>(in.take<uint8_t>() % 3);
  }
  // no offsets at all for n < 0: pass a valid one-element array so only n is wrong
  static const int64_t zero = 0;
  const int64_t* offsets_arg = offsets.empty() ? &zero : offsets.data();
  fc_graph* untouched = reinterpret_cast<fc_graph*>(&in);
  fc_graph* g = untouched;
  const fc_status status = fc_graph_create_csr(n, offsets_arg, columns.data(), (flags & 8) ? nullptr : weights.data(), &g);
  if (status != FC_OK) {
    require(status == FC_ERR_INVALID_ARG || status == FC_ERR_NULL_ARG || status == FC_ERR_OUT_OF_MEMORY,
            "unexpected status");
    require(g == untouched, "a failed call wrote its output");
    return 0;
  }
  int64_t nodes = -1, edges = -1;
  require(fc_graph_info(g, &nodes, &edges) == FC_OK && nodes == n && 2 * edges == entries, "fc_graph_info");
  std::vector<int64_t> o(static_cast<size_t>(nodes) + 1), c(static_cast<size_t>(2 * edges) + 1);
  std::vector<float> w(static_cast<size_t>(2 * edges) + 1);
  require(fc_graph_csr(g, o.data(), c.data(), w.data(), 2 * edges) == FC_OK, "fc_graph_csr");
  for (int64_t i = 0; i < nodes; ++i)
    for (int64_t x = o[static_cast<size_t>(i)]; x < o[static_cast<size_t>(i) + 1]; ++x)
      require(c[static_cast<size_t>(x)] != i && c[static_cast<size_t>(x)] >= 0 && c[static_cast<size_t>(x)] < nodes,
              "an accepted graph has a self-loop or a column out of range");
  if (edges > 0) require(fc_graph_csr(g, o.data(), c.data(), w.data(), 2 * edges - 1) == FC_ERR_BUFFER_TOO_SMALL, "capacity");
  fc_graph_destroy(g);
  return 0;
}
