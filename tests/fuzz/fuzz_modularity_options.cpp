// fc_modularity with arbitrary options (thresholds, resolution, limits, seed, signed_mode and
// refine as any bits, NaN and Inf included) on small graphs: a ring of cliques, optionally with
// negative weights. FC_OK with labels 0 .. K-1 numbered by first appearance and K within the
// limits asked for, or FC_ERR_INVALID_ARG with the output untouched.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fastconn/fastconn.h"
#include "fuzz_input.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_modularity_options: %s (fc_last_error: %s)\n", what, fc_last_error());
    std::abort();
  }
}

// Cliques of `size` nodes joined in a ring; `negative`: the ring's links weigh -1.
fc_graph* ring_of_cliques(int cliques, int size, bool negative) {
  const int n = cliques * size;
  std::vector<std::vector<std::pair<int64_t, float>>> adj(static_cast<size_t>(n));
  auto link = [&](int a, int b, float w) {
    adj[static_cast<size_t>(a)].push_back({b, w});
    adj[static_cast<size_t>(b)].push_back({a, w});
  };
  for (int c = 0; c < cliques; ++c) {
    for (int i = 0; i < size; ++i)
      for (int j = i + 1; j < size; ++j) link(c * size + i, c * size + j, 1.0f);
    if (cliques > 1) link(c * size, ((c + 1) % cliques) * size + size - 1, negative ? -1.0f : 1.0f);
  }
  std::vector<int64_t> offsets{0}, columns;
  std::vector<float> weights;
  for (auto& row : adj) {
    std::sort(row.begin(), row.end());
    for (auto& [j, w] : row) {
      columns.push_back(j);
      weights.push_back(w);
    }
    offsets.push_back(static_cast<int64_t>(columns.size()));
  }
  fc_graph* g = nullptr;
  require(fc_graph_create_csr(n, offsets.data(), columns.data(), weights.data(), &g) == FC_OK, "fc_graph_create_csr");
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fc_context* ctx = [] {
    fc_context* c = nullptr;
    require(fc_context_create(FC_BACKEND_CPU, -1, &c) == FC_OK, "fc_context_create");
    return c;
  }();
  static fc_graph* graphs[3] = {ring_of_cliques(4, 5, false), ring_of_cliques(3, 4, true), ring_of_cliques(1, 1, false)};
  FuzzInput in(data, size);
  fc_graph* g = graphs[in.take<uint8_t>() % 3];
  fc_modularity_options o;
  require(fc_modularity_options_default(&o) == FC_OK, "fc_modularity_options_default");
  const uint8_t which = in.take<uint8_t>();
  if (which & 1) o.eigen_threshold = in.take<double>();
  if (which & 2) o.resolution = in.take<double>();
  if (which & 4) o.max_communities = in.size_like(30);
  if (which & 8) o.min_community_size = in.size_like(30);
  if (which & 16) o.seed = in.take<uint64_t>();
  if (which & 32) o.signed_mode = in.take<uint8_t>() < 200 ? in.take<uint8_t>() % 3 : in.take<int32_t>();
  if (which & 64) o.refine = in.take<uint8_t>() < 200 ? in.take<uint8_t>() % 3 : in.take<int32_t>();

  fc_modules* untouched = reinterpret_cast<fc_modules*>(&in);
  fc_modules* m = untouched;
  const fc_status status = fc_modularity(ctx, g, (which & 128) ? nullptr : &o, &m);
  if (status != FC_OK) {
    require(status == FC_ERR_INVALID_ARG, "unexpected status");
    require(m == untouched, "a failed call wrote its output");
    return 0;
  }
  int64_t n = 0, k = 0, splits = -1;
  double q = NAN;
  require(fc_modules_info(m, &n, &k, &q, &splits) == FC_OK, "fc_modules_info");
  require(k >= 1 && k <= n && splits >= 0 && std::isfinite(q) && q <= 1.0 + 1e-9, "modules info out of range");
  std::vector<int64_t> labels(static_cast<size_t>(n));
  require(fc_modules_labels(m, labels.data(), n) == FC_OK, "fc_modules_labels");
  int64_t next = 0;
  for (int64_t v : labels) {
    require(v >= 0 && v < k && v <= next, "labels not numbered 0 .. K-1 by first appearance");
    if (v == next) ++next;
  }
  require(next == k, "fewer labels than K");
  double q2 = NAN;
  require(fc_modularity_score(g, labels.data(), (which & 2) && !(which & 128) ? o.resolution : 1.0, &q2) == FC_OK,
          "fc_modularity_score of the result");
  fc_modules_destroy(m);
  return 0;
}
