// Every computing call of the public API run once on one context and series, each output kept
// as raw bytes (NaN bits included), so that two contexts that must give the same bits (a split
// context and a single one: FASTCONN_SPLIT_CPU in tests/cpp/test_split.cpp, several GPUs in
// tests/gpu/test_cuda_multi.cpp) are compared call by call. A call that fails is kept as its
// status (both contexts must then fail alike).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api_calls.hpp"
#include "fastconn/fastconn.h"
#include "graph_reference.hpp"
#include "reference.hpp"

namespace fctest {

struct CallOutput {
  std::string name;
  fc_status status = FC_OK;
  std::vector<unsigned char> bytes;
  std::string error;  // fc_last_error() of a failed call
  double seconds = 0;  // wall time since the previous output was kept (the call and its buffers)
};

class CallRecorder {
 public:
  template <class T>
  void add(const std::string& name, fc_status status, const std::vector<T>& values) {
    const auto now = std::chrono::steady_clock::now();
    CallOutput o{name, status, {}, status == FC_OK ? "" : fc_last_error(), std::chrono::duration<double>(now - last_).count()};
    if (status == FC_OK && !values.empty()) {
      o.bytes.resize(values.size() * sizeof(T));
      std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
    }
    outputs.push_back(std::move(o));
    last_ = std::chrono::steady_clock::now();
  }
  std::vector<CallOutput> outputs;

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// "name seconds" of every call, slowest first, one line each, after `what`.
inline std::string call_seconds(const std::vector<CallOutput>& outputs, const std::string& what) {
  std::vector<const CallOutput*> order;
  for (const CallOutput& o : outputs) order.push_back(&o);
  std::sort(order.begin(), order.end(), [](const CallOutput* a, const CallOutput* b) { return a->seconds > b->seconds; });
  std::string text = what + ":\n";
  for (const CallOutput* o : order) text += "  " + o->name + " " + std::to_string(o->seconds) + " s\n";
  return text;
}

// What the calls are asked: the windows of the dfc calls (length 0: half the samples, at least
// 2), the threshold of the |r| graph (and its modules), degree and lFCD, and the block size (large
// inputs take fewer windows, edges and blocks).
struct EveryCallOptions {
  int64_t window_length = 0, window_step = 3;
  double abs_threshold = 0.3;
  int64_t block_rows = 5;  // the blocks iterator's rows per block, besides the automatic size
};

inline void record_graph(CallRecorder& rec, const std::string& name, fc_context* ctx, fc_series* s, fc_edge_rule rule,
                         double param, fc_graph** keep = nullptr) {
  fc_graph* g = nullptr;
  const fc_status st = fc_pcc_graph(ctx, s, rule, param, FC_GRAPH_WEIGHTED, &g);
  Csr c;
  if (st == FC_OK) c = copy_out(g);
  rec.add(name + " offsets", st, c.offsets);
  rec.add(name + " columns", st, c.columns);
  rec.add(name + " weights", st, c.weights);
  if (keep != nullptr && st == FC_OK) *keep = g;
  else fc_graph_destroy(g);
}

// Runs every call on `s` (n series of t samples, made on ctx).
inline std::vector<CallOutput> every_call(fc_context* ctx, fc_series* s, int64_t n, int64_t t,
                                          const EveryCallOptions& options = EveryCallOptions{}) {
  CallRecorder rec;
  const int64_t pairs = fc_triu_size(n);
  const size_t np = static_cast<size_t>(std::max<int64_t>(pairs, 1)), nn = static_cast<size_t>(n);
  {
    std::vector<float> row(np, kSentinel), col(np, kSentinel);
    rec.add("triu row", fc_pcc_triu(ctx, s, FC_TRIU_ROW, row.data(), pairs), row);
    rec.add("triu col", fc_pcc_triu(ctx, s, FC_TRIU_COL, col.data(), pairs), col);
    std::vector<double> f64(np, kSentinel);
    rec.add("triu f64 col", fc_pcc_triu_f64(ctx, s, FC_TRIU_COL, f64.data(), pairs), f64);
    std::vector<int16_t> codes(np, 0);
    rec.add("triu int16", fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, FC_VALUES_INT16, codes.data(), pairs), codes);
  }
  {
    const int64_t ld = n + 3;
    std::vector<float> dense(static_cast<size_t>(n * ld), kSentinel);
    rec.add("dense", fc_pcc_dense(ctx, s, dense.data(), ld), dense);
    for (fc_value_format format : {FC_VALUES_INT16, FC_VALUES_HALF}) {
      std::vector<uint16_t> codes(static_cast<size_t>(n * ld), 0x7777);
      rec.add("dense compact " + std::to_string(int(format)), fc_pcc_dense_compact(ctx, s, format, codes.data(), ld), codes);
    }
    // cross with the first half of the series (a window of s: another series set)
    fc_series* half = nullptr;
    fc_status st = fc_series_window(ctx, s, 0, t, 0, 0.0, &half);
    std::vector<float> cross(static_cast<size_t>(n * n), kSentinel);
    if (st == FC_OK) st = fc_pcc_cross(ctx, s, half, cross.data(), n);
    rec.add("cross", st, cross);
    fc_series_destroy(half);
  }
  for (int64_t rows : {int64_t(0), options.block_rows}) {
    fc_blocks* it = nullptr;
    fc_status st = fc_pcc_blocks_begin(ctx, s, rows, &it);
    std::vector<float> all, buf(np);
    std::vector<int64_t> infos;
    while (st == FC_OK) {
      fc_block_info info;
      st = fc_blocks_next(it, buf.data(), static_cast<int64_t>(buf.size()), &info);
      if (st != FC_OK) break;
      all.insert(all.end(), buf.begin(), buf.begin() + info.count);
      infos.insert(infos.end(), {info.row_begin, info.row_end, info.triu_offset, info.count});
    }
    fc_blocks_destroy(it);
    rec.add("blocks " + std::to_string(rows), st == FC_DONE ? FC_OK : st, all);
    rec.add("blocks infos " + std::to_string(rows), st == FC_DONE ? FC_OK : st, infos);
  }
  const int64_t length = options.window_length > 0 ? options.window_length : std::max<int64_t>(2, t / 2);
  const int64_t step = options.window_step, windows = (t - length) / step + 1;
  {
    std::vector<float> w(static_cast<size_t>(windows) * np, kSentinel);
    rec.add("dfc triu", fc_dfc_triu(ctx, s, length, step, 0, 0.0, FC_TRIU_ROW, w.data(), windows * pairs), w);
    std::vector<float> tapered(static_cast<size_t>(windows) * np, kSentinel);
    rec.add("dfc triu tapered col",
            fc_dfc_triu(ctx, s, length, step, FC_TAPER_GAUSSIAN, 1.5, FC_TRIU_COL, tapered.data(), windows * pairs), tapered);
    fc_dfc* it = nullptr;
    fc_status st = fc_dfc_begin(ctx, s, length, step, 0, 0.0, &it);
    std::vector<float> all, buf(np);
    while (st == FC_OK) {
      fc_dfc_block_info info;
      // about five blocks a window (one row at a time would be a call per row at 20,000 series)
      st = fc_dfc_next_triu(it, buf.data(), std::max<int64_t>({n - 1, pairs / 5, 1}), &info);
      if (st == FC_OK) all.insert(all.end(), buf.begin(), buf.begin() + info.count);
    }
    fc_dfc_destroy(it);
    rec.add("dfc next_triu", st == FC_DONE ? FC_OK : st, all);
    std::vector<int64_t> degree(static_cast<size_t>(windows) * nn);
    std::vector<double> strength(static_cast<size_t>(windows) * nn);
    st = fc_dfc_degree(ctx, s, length, step, 0, 0.0, FC_EDGE_ABS_THRESHOLD, options.abs_threshold, degree.data(),
                       strength.data());
    rec.add("dfc degree", st, degree);
    rec.add("dfc strength", st, strength);
  }
  fc_graph* abs_graph = nullptr;
  record_graph(rec, "graph |r| threshold", ctx, s, FC_EDGE_ABS_THRESHOLD, options.abs_threshold, &abs_graph);
  record_graph(rec, "graph r>=0.2", ctx, s, FC_EDGE_THRESHOLD, 0.2);
  record_graph(rec, "graph density 0.1", ctx, s, FC_EDGE_DENSITY, 0.1);
  record_graph(rec, "graph top-3", ctx, s, FC_EDGE_TOP_K, 3);
  {
    std::vector<int64_t> degree(nn);
    std::vector<double> strength(nn);
    const fc_status st = fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, options.abs_threshold, degree.data(), strength.data());
    rec.add("degree", st, degree);
    rec.add("strength", st, strength);
    std::vector<int64_t> signed_degree(nn);
    std::vector<double> signed_strength(nn);
    const fc_status st2 = fc_pcc_degree(ctx, s, FC_EDGE_THRESHOLD, -0.1, signed_degree.data(), signed_strength.data());
    rec.add("degree r>=-0.1", st2, signed_degree);
    rec.add("strength r>=-0.1", st2, signed_strength);
  }
  if (abs_graph != nullptr) {
    fc_modules* m = nullptr;
    fc_status st = fc_modularity(ctx, abs_graph, nullptr, &m);
    std::vector<int64_t> labels(nn);
    std::vector<double> q(1);
    if (st == FC_OK) st = fc_modules_labels(m, labels.data(), n);
    if (st == FC_OK) st = fc_modules_info(m, nullptr, nullptr, q.data(), nullptr);
    rec.add("modularity labels", st, labels);
    rec.add("modularity q", st, q);
    fc_modules_destroy(m);
    m = nullptr;
    st = fc_leiden(ctx, abs_graph, nullptr, nullptr, &m);
    if (st == FC_OK) st = fc_modules_labels(m, labels.data(), n);
    rec.add("leiden labels", st, labels);
    fc_modules_destroy(m);
    fc_graph_destroy(abs_graph);
  }
  {
    std::vector<double> c(nn), lambda(1);
    rec.add("ecm", fc_pcc_ecm(ctx, s, 0.0, c.data(), n, lambda.data()), c);
    rec.add("ecm eigenvalue", FC_OK, lambda);
  }
  {
    std::vector<double> p(np), used(1);
    rec.add("partial triu", fc_partial_correlation_triu(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION,
                                                        FC_TRIU_ROW, p.data(), pairs, used.data()),
            p);
  }
  {
    // the series on a 4-wide grid, row after row
    std::vector<int32_t> coords(3 * nn);
    for (int64_t i = 0; i < n; ++i) {
      coords[static_cast<size_t>(3 * i)] = static_cast<int32_t>(i % 4);
      coords[static_cast<size_t>(3 * i + 1)] = static_cast<int32_t>(i / 4);
      coords[static_cast<size_t>(3 * i + 2)] = 0;
    }
    const int64_t dims[3] = {4, (n + 3) / 4, 1};
    std::vector<int64_t> lfcd(nn);
    rec.add("lfcd", fc_pcc_lfcd(ctx, s, coords.data(), dims, 18, FC_EDGE_ABS_THRESHOLD, options.abs_threshold, lfcd.data()), lfcd);
  }
  return rec.outputs;
}

// Every call's output of `got` equals `want`'s, bit for bit (the same status where one failed).
inline void expect_same_outputs(const std::vector<CallOutput>& want, const std::vector<CallOutput>& got,
                                const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].status, got[i].status) << what << ": " << want[i].name << ": " << want[i].error << got[i].error;
    EXPECT_TRUE(want[i].bytes == got[i].bytes) << what << ": " << want[i].name << " differs (" << want[i].bytes.size()
                                               << " bytes against " << got[i].bytes.size() << ")";
  }
}

}  // namespace fctest
