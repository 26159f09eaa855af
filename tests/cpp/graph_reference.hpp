// Shared by test_graph.cpp and test_degree.cpp: the networks' one-call wrappers over the public
// API, the edge sets a float64 reference implies, the library's own triangle as a second
// reference for the rules that rank pairs (density, top-k), and the real voxel data.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"

namespace fctest {

// The symmetric CSR of a graph, copied out.
struct Csr {
  int64_t n = 0, n_edges = 0;
  std::vector<int64_t> offsets, columns;
  std::vector<float> weights;

  // Upper-triangle pairs (i < j) -> weight.
  std::map<std::pair<int64_t, int64_t>, float> upper() const {
    std::map<std::pair<int64_t, int64_t>, float> m;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t x = offsets[i]; x < offsets[i + 1]; ++x)
        if (columns[x] > i) m[{i, columns[x]}] = weights[x];
    return m;
  }
};

inline Csr copy_out(const fc_graph* g) {
  Csr c;
  check(fc_graph_info(g, &c.n, &c.n_edges), "fc_graph_info");
  c.offsets.assign(static_cast<size_t>(c.n + 1), -1);
  c.columns.assign(static_cast<size_t>(std::max<int64_t>(1, 2 * c.n_edges)), -1);
  c.weights.assign(c.columns.size(), -7.0f);
  check(fc_graph_csr(g, c.offsets.data(), c.columns.data(), c.weights.data(), static_cast<int64_t>(c.columns.size())), "fc_graph_csr");
  c.columns.resize(static_cast<size_t>(2 * c.n_edges));
  c.weights.resize(static_cast<size_t>(2 * c.n_edges));
  return c;
}

// fc_pcc_degree's two outputs, starting at values no degree or strength can be.
struct DegreeOut {
  std::vector<int64_t> degree;
  std::vector<double> strength;
};
inline DegreeOut pcc_degree(const Context& ctx, const Series& s, fc_edge_rule rule, double param) {
  const int64_t n = s.n_series();
  DegreeOut o{std::vector<int64_t>(static_cast<size_t>(n), -1), std::vector<double>(static_cast<size_t>(n), -1.0)};
  check(fc_pcc_degree(ctx.get(), s.get(), rule, param, o.degree.data(), o.strength.data()), "fc_pcc_degree");
  return o;
}

inline Csr pcc_graph(const Context& ctx, const Series& s, fc_edge_rule rule, double param, int weights) {
  fc_graph* g = nullptr;
  check(fc_pcc_graph(ctx.get(), s.get(), rule, param, weights, &g), "fc_pcc_graph");
  std::unique_ptr<fc_graph, void (*)(fc_graph*)> owner(g, fc_graph_destroy);
  return copy_out(g);
}

// The CSR is well formed: fc_graph_create_csr (which validates sorted, unique, in-range columns,
// no self-loops and mirrored entries with equal weights) accepts it and gives it back unchanged.
inline ::testing::AssertionResult well_formed(const Csr& c) {
  fc_graph* g = nullptr;
  const fc_status st = fc_graph_create_csr(c.n, c.offsets.data(), c.columns.data(), c.weights.data(), &g);
  if (st != FC_OK) return ::testing::AssertionFailure() << "fc_graph_create_csr rejects it: " << fc_last_error();
  std::unique_ptr<fc_graph, void (*)(fc_graph*)> owner(g, fc_graph_destroy);
  const Csr back = copy_out(g);
  if (back.offsets != c.offsets || back.columns != c.columns || back.n_edges != c.n_edges)
    return ::testing::AssertionFailure() << "fc_graph_create_csr changed the graph";
  return ::testing::AssertionSuccess();
}

// Pairs (i < j) of a float64 dense reference (NaN where a series is constant) that pass the
// test, and those whose r lies within `margin` of the threshold: a float32 product may fall on
// either side of it there (|r32 - r64| <= 1e-5 by contract, typically < 1e-6), so the
// comparison skips them. Margin 1e-6 as issue 4 documents; `ambiguous` counts them.
struct ReferenceEdges {
  std::set<std::pair<int64_t, int64_t>> edges, ambiguous;
};

inline ReferenceEdges reference_edges(const std::vector<double>& dense, int64_t n, bool absolute, double threshold,
                                      double margin) {
  ReferenceEdges r;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double v = dense[static_cast<size_t>(i * n + j)];
      if (std::isnan(v)) continue;
      const double x = absolute ? std::fabs(v) : v;
      if (std::fabs(x - threshold) <= margin) r.ambiguous.insert({i, j});
      else if (x >= threshold) r.edges.insert({i, j});
    }
  return r;
}

// The graph's edge set equals the reference's outside the ambiguous band.
inline ::testing::AssertionResult same_edges(const Csr& c, const ReferenceEdges& ref) {
  const auto got = c.upper();
  int64_t extra = 0, missing = 0;
  std::string first;
  for (const auto& [p, w] : got)
    if (!ref.ambiguous.count(p) && !ref.edges.count(p)) {
      if (extra++ == 0) first = "extra (" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
    }
  for (const auto& p : ref.edges)
    if (!got.count(p)) {
      if (missing++ == 0 && first.empty()) first = "missing (" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
    }
  if (extra + missing > 0)
    return ::testing::AssertionFailure() << extra << " extra and " << missing << " missing edges, first " << first;
  return ::testing::AssertionSuccess() << got.size() << " edges, " << ref.ambiguous.size() << " ambiguous pairs skipped";
}

// The rank order of the ranking rules: larger |r| first, then the smaller index.
inline bool ranks_before(float a, int64_t ia, float b, int64_t ib) {
  return std::fabs(a) > std::fabs(b) || (std::fabs(a) == std::fabs(b) && ia < ib);
}

// The density rule computed from the library's own row-order triangle (the r every decision is
// made on): the `count` best non-constant pairs by (|r| desc, pair index asc).
inline std::set<std::pair<int64_t, int64_t>> density_from_triangle(const std::vector<float>& tri, int64_t n,
                                                                    const std::vector<uint8_t>& constant, int64_t count) {
  std::vector<int64_t> idx;
  std::vector<std::pair<int64_t, int64_t>> pair_of;
  for (int64_t i = 0, k = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j, ++k) {
      pair_of.push_back({i, j});
      if (!constant[i] && !constant[j]) idx.push_back(k);
    }
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return ranks_before(tri[a], a, tri[b], b); });
  std::set<std::pair<int64_t, int64_t>> out;
  for (int64_t x = 0; x < std::min<int64_t>(count, static_cast<int64_t>(idx.size())); ++x) out.insert(pair_of[idx[x]]);
  return out;
}

// The union of every series' k best partners, from the library's own triangle.
inline std::set<std::pair<int64_t, int64_t>> top_k_from_triangle(const std::vector<float>& tri, int64_t n,
                                                                  const std::vector<uint8_t>& constant, int64_t k) {
  auto r = [&](int64_t i, int64_t j) {
    if (i > j) std::swap(i, j);
    return tri[static_cast<size_t>(i * (2 * n - i - 1) / 2 + (j - i - 1))];
  };
  std::set<std::pair<int64_t, int64_t>> out;
  for (int64_t i = 0; i < n; ++i) {
    if (constant[i]) continue;
    std::vector<int64_t> js;
    for (int64_t j = 0; j < n; ++j)
      if (j != i && !constant[j]) js.push_back(j);
    std::sort(js.begin(), js.end(), [&](int64_t a, int64_t b) { return ranks_before(r(i, a), a, r(i, b), b); });
    for (int64_t x = 0; x < std::min<int64_t>(k, static_cast<int64_t>(js.size())); ++x)
      out.insert({std::min(i, js[x]), std::max(i, js[x])});
  }
  return out;
}

inline std::set<std::pair<int64_t, int64_t>> edge_set(const Csr& c) {
  std::set<std::pair<int64_t, int64_t>> s;
  for (const auto& [p, w] : c.upper()) s.insert(p);
  return s;
}

// tests/data/fmri1.nii.gz (nitime): a 10 x 10 x 18 x 40 int16 NIfTI-1 volume, read with zlib.
// Each voxel's 40 samples are one series (many voxels outside the brain are constant).
inline Dataset nifti_voxels(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> bytes;
  unsigned char buf[65536];
  int got = 0;
  while ((got = gzread(f, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + got);
  gzclose(f);
  auto read = [&](size_t at, void* v, size_t size) {
    if (at + size > bytes.size()) throw std::runtime_error(path + " is truncated");
    std::memcpy(v, bytes.data() + at, size);
  };
  auto i16 = [&](size_t at) { int16_t v; read(at, &v, 2); return v; };
  auto f32 = [&](size_t at) { float v; read(at, &v, 4); return v; };
  int32_t header = 0;
  std::memcpy(&header, bytes.data(), 4);
  if (bytes.size() < 352 || header != 348) throw std::runtime_error(path + " is not a little-endian NIfTI-1 file");
  if (i16(70) != 4 || i16(40) != 4) throw std::runtime_error(path + ": expected 4-D int16 data");
  const int64_t nx = i16(42), ny = i16(44), nz = i16(46), nt = i16(48);
  const size_t offset = static_cast<size_t>(f32(108));
  const double slope = f32(112) == 0.0f ? 1.0 : f32(112), inter = f32(116);
  Dataset d;
  d.n = nx * ny * nz;
  d.t = nt;
  d.x.resize(static_cast<size_t>(d.n * d.t));
  for (int64_t k = 0; k < nt; ++k)
    for (int64_t v = 0; v < d.n; ++v) d.at(v, k) = slope * i16(offset + 2 * static_cast<size_t>(k * d.n + v)) + inter;
  return d;
}

}  // namespace fctest
