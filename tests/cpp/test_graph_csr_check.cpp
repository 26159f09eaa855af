// fc_graph_create_csr's mirror check (graph.cpp: a cursor per row, one pass) against the plain
// check it replaced, a binary search per entry for its mirror, on random graphs with random
// defects: a missing entry, an extra one, a changed weight, several at once. Both must accept the
// same inputs and name the same first bad entry with the same message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fastconn/fastconn.h"

namespace {

struct Csr {
  int64_t n = 0;
  std::vector<int64_t> offsets, columns;
  std::vector<float> weights;
};

std::string text(float w) {
  // As the library prints a weight (exact_text: the shortest text that reads back the same float).
  char buffer[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, static_cast<double>(w));
    if (std::strtof(buffer, nullptr) == w) break;
  }
  return buffer;
}

// The first entry, in entry order, whose mirror is missing or weighs differently: the message the
// binary-search check gave, or "" when every entry has its mirror.
std::string reference(const Csr& g) {
  for (int64_t i = 0; i < g.n; ++i)
    for (int64_t x = g.offsets[size_t(i)]; x < g.offsets[size_t(i) + 1]; ++x) {
      const int64_t j = g.columns[size_t(x)];
      const auto b = g.columns.begin() + g.offsets[size_t(j)], e = g.columns.begin() + g.offsets[size_t(j) + 1];
      const auto at = std::lower_bound(b, e, i);
      const std::string where = "columns[" + std::to_string(x) + "] (row " + std::to_string(i) + ")";
      if (at == e || *at != i)
        return where + " = " + std::to_string(j) + ": the entry (" + std::to_string(i) + ", " + std::to_string(j) +
               ") has no mirror (" + std::to_string(j) + ", " + std::to_string(i) + ")";
      const float mirror = g.weights[size_t(at - g.columns.begin())];
      if (mirror != g.weights[size_t(x)])
        return "weights[" + std::to_string(x) + "] of the entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
               text(g.weights[size_t(x)]) + " but its mirror's weight is " + text(mirror);
    }
  return "";
}

Csr from_sets(const std::vector<std::set<int64_t>>& rows, const std::vector<std::vector<float>>& w) {
  Csr g;
  g.n = int64_t(rows.size());
  g.offsets.push_back(0);
  for (size_t i = 0; i < rows.size(); ++i) {
    size_t k = 0;
    for (int64_t j : rows[i]) {
      g.columns.push_back(j);
      g.weights.push_back(w[i][k++]);
    }
    g.offsets.push_back(int64_t(g.columns.size()));
  }
  return g;
}

TEST(GraphCsrCheck, TheFirstEntryWithoutAMirrorAsASearchPerEntryFindsIt) {
  std::mt19937_64 rng(20261127);
  int rejected = 0, accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t n = 2 + int64_t(rng() % 40);
    const double p = 0.05 + 0.4 * double(rng() % 100) / 100.0;
    std::vector<std::set<int64_t>> rows{static_cast<size_t>(n)};
    auto weight_of = [&](int64_t a, int64_t b) { return float(1 + (a * 31 + b * 17) % 13) / 4.0f; };
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = a + 1; b < n; ++b)
        if (double(rng() % 1000) / 1000.0 < p) {
          rows[size_t(a)].insert(b);
          rows[size_t(b)].insert(a);
        }
    // Defects: 0 to 3 entries dropped, added (one-sided) or re-weighted.
    std::vector<std::pair<int64_t, int64_t>> reweight;
    const int defects = int(rng() % 4);
    for (int d = 0; d < defects; ++d) {
      const int64_t a = int64_t(rng() % uint64_t(n)), b = int64_t(rng() % uint64_t(n));
      if (a == b) continue;
      switch (rng() % 3) {
        case 0: rows[size_t(a)].erase(b); break;
        case 1: rows[size_t(a)].insert(b); break;
        default: reweight.push_back({a, b}); break;
      }
    }
    std::vector<std::vector<float>> w{static_cast<size_t>(n)};
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b : rows[size_t(a)]) {
        float x = weight_of(std::min(a, b), std::max(a, b));
        for (const auto& r : reweight)
          if (r.first == a && r.second == b) x += 0.5f;
        w[size_t(a)].push_back(x);
      }
    const Csr g = from_sets(rows, w);
    const std::string want = reference(g);
    fc_graph* out = nullptr;
    const fc_status st = fc_graph_create_csr(g.n, g.offsets.data(), g.columns.empty() ? nullptr : g.columns.data(),
                                             g.weights.empty() ? nullptr : g.weights.data(), &out);
    if (want.empty()) {
      ++accepted;
      EXPECT_EQ(st, FC_OK) << "trial " << trial << ": " << fc_last_error();
    } else {
      ++rejected;
      EXPECT_EQ(st, FC_ERR_INVALID_ARG) << "trial " << trial;
      EXPECT_NE(std::string(fc_last_error()).find(want), std::string::npos)
          << "trial " << trial << "\n  got:  " << fc_last_error() << "\n  want: " << want;
    }
    fc_graph_destroy(out);
  }
  EXPECT_GT(accepted, 300);
  EXPECT_GT(rejected, 300);
}

}  // namespace
