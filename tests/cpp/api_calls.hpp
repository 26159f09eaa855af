// Owning handles over the public C API and one-call wrappers of its operations, for the tests
// in tests/cpp/. A failing call throws CallFailed carrying fc_last_error(), which GoogleTest
// reports as the test's failure, so tests read as the computation they check.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fastconn/fastconn.h"
#include "reference.hpp"

namespace fctest {

struct CallFailed : std::runtime_error {
  CallFailed(fc_status s, const std::string& what)
      : std::runtime_error(what + " returned " + fc_status_string(s) + ": " + fc_last_error()), status(s) {}
  fc_status status;
};

inline void check(fc_status status, const char* what) {
  if (status != FC_OK) throw CallFailed(status, what);
}

inline const char* backend_name(fc_backend b) {
  return b == FC_BACKEND_CPU ? "CPU" : b == FC_BACKEND_CUDA ? "CUDA" : "AUTO";
}

class Context {
 public:
  explicit Context(fc_backend backend = FC_BACKEND_CPU) {
    check(fc_context_create(backend, -1, &ctx_), "fc_context_create");
  }
  // Takes ownership of ctx.
  explicit Context(fc_context* ctx) : ctx_(ctx) {}
  // A context on `backend`, or none with *status saying why (e.g. no CUDA device).
  static std::optional<Context> try_create(fc_backend backend, fc_status* status) {
    fc_context* ctx = nullptr;
    *status = fc_context_create(backend, -1, &ctx);
    if (*status != FC_OK) return std::nullopt;
    return Context(ctx);
  }
  Context(Context&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
  Context& operator=(Context&& o) noexcept {
    reset(std::exchange(o.ctx_, nullptr));
    return *this;
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() { fc_context_destroy(ctx_); }

  fc_context* get() const { return ctx_; }
  Context& precision(fc_precision p) { check(fc_context_set_precision(ctx_, p), "fc_context_set_precision"); return *this; }
  Context& policy(fc_constant_policy p) { check(fc_context_set_constant_policy(ctx_, p), "fc_context_set_constant_policy"); return *this; }
  Context& memory_limit(int64_t bytes) { check(fc_context_set_memory_limit(ctx_, bytes), "fc_context_set_memory_limit"); return *this; }
  Context& progress(fc_progress_fn fn, void* user) { check(fc_context_set_progress(ctx_, fn, user), "fc_context_set_progress"); return *this; }

 private:
  void reset(fc_context* c) {
    fc_context_destroy(ctx_);
    ctx_ = c;
  }
  fc_context* ctx_ = nullptr;
};

class Series {
 public:
  Series() = default;
  explicit Series(fc_series* s) : s_(s) {}
  Series(Series&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Series& operator=(Series&& o) noexcept {
    fc_series_destroy(s_);
    s_ = std::exchange(o.s_, nullptr);
    return *this;
  }
  Series(const Series&) = delete;
  Series& operator=(const Series&) = delete;
  ~Series() { fc_series_destroy(s_); }
  fc_series* get() const { return s_; }

  int64_t n_series() const { int64_t v = 0; check(fc_series_info(s_, &v, nullptr, nullptr), "fc_series_info"); return v; }
  int64_t n_constant() const { int64_t v = 0; check(fc_series_info(s_, nullptr, nullptr, &v), "fc_series_info"); return v; }

 private:
  fc_series* s_ = nullptr;
};

enum class Input { F32, F64 };

// Uploads d in `layout`, as float or double input. For F32, d should already be
// rounded_to_float(...) so that the reference describes exactly what the library reads.
inline Series make_series(const Context& ctx, const Dataset& d, Layout layout = Layout::SeriesMajor, Input input = Input::F64) {
  fc_series* s = nullptr;
  if (input == Input::F32) {
    const Strided<float> in = to_layout<float>(d, layout);
    check(fc_series_create_f32(ctx.get(), in.buffer.data(), d.n, d.t, in.series_stride, in.time_stride, &s), "fc_series_create_f32");
  } else {
    const Strided<double> in = to_layout<double>(d, layout);
    check(fc_series_create_f64(ctx.get(), in.buffer.data(), d.n, d.t, in.series_stride, in.time_stride, &s), "fc_series_create_f64");
  }
  return Series(s);
}

inline int64_t triu_size(int64_t n) { return fc_triu_size(n); }

// The operations, each returning its whole output. Buffers start filled with a sentinel that no
// correlation can equal, so a value the library forgot to write shows up as a failure.
constexpr float kSentinel = -7.0f;

inline std::vector<float> pcc_triu(const Context& ctx, const Series& s, fc_triu_order order) {
  const int64_t n = s.n_series();
  std::vector<float> out(static_cast<size_t>(triu_size(n)), kSentinel);
  // data() of an empty vector may be NULL; the library may reject a NULL out even for 0 pairs.
  float dummy = kSentinel;
  check(fc_pcc_triu(ctx.get(), s.get(), order, out.empty() ? &dummy : out.data(), static_cast<int64_t>(out.size())), "fc_pcc_triu");
  return out;
}

inline std::vector<double> pcc_triu_f64(const Context& ctx, const Series& s, fc_triu_order order) {
  const int64_t n = s.n_series();
  std::vector<double> out(static_cast<size_t>(triu_size(n)), kSentinel);
  double dummy = kSentinel;
  check(fc_pcc_triu_f64(ctx.get(), s.get(), order, out.empty() ? &dummy : out.data(), static_cast<int64_t>(out.size())), "fc_pcc_triu_f64");
  return out;
}

// Row-major n x ld; the columns past n keep the sentinel.
inline std::vector<float> pcc_dense(const Context& ctx, const Series& s, int64_t ld) {
  const int64_t n = s.n_series();
  std::vector<float> out(static_cast<size_t>(n * ld), kSentinel);
  check(fc_pcc_dense(ctx.get(), s.get(), out.data(), ld), "fc_pcc_dense");
  return out;
}

inline std::vector<float> pcc_cross(const Context& ctx, const Series& a, const Series& b, int64_t ld) {
  std::vector<float> out(static_cast<size_t>(a.n_series() * ld), kSentinel);
  check(fc_pcc_cross(ctx.get(), a.get(), b.get(), out.data(), ld), "fc_pcc_cross");
  return out;
}

// The columns [0, cols) of a row-major rows x ld matrix, packed to rows x cols.
template <class T>
std::vector<T> packed(const std::vector<T>& m, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<T> p(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) p[static_cast<size_t>(r * cols + c)] = m[static_cast<size_t>(r * ld + c)];
  return p;
}

// Every block of the pull iterator, in order: the infos and the values concatenated.
struct BlockRun {
  std::vector<fc_block_info> infos;
  std::vector<float> values;
  int64_t max_count = 0;
};

inline BlockRun pull_blocks(const Context& ctx, const Series& s, int64_t rows_per_block) {
  fc_blocks* it = nullptr;
  check(fc_pcc_blocks_begin(ctx.get(), s.get(), rows_per_block, &it), "fc_pcc_blocks_begin");
  std::unique_ptr<fc_blocks, void (*)(fc_blocks*)> owner(it, fc_blocks_destroy);
  BlockRun run;
  check(fc_blocks_max_count(it, &run.max_count), "fc_blocks_max_count");
  std::vector<float> buf(static_cast<size_t>(std::max<int64_t>(run.max_count, 1)));
  for (;;) {
    fc_block_info info{-1, -1, -1, -1};
    const fc_status st = fc_blocks_next(it, buf.data(), static_cast<int64_t>(buf.size()), &info);
    if (st == FC_DONE) {
      if (info.count != 0) throw std::runtime_error("fc_blocks_next returned FC_DONE with count " + std::to_string(info.count));
      break;
    }
    check(st, "fc_blocks_next");
    run.infos.push_back(info);
    run.values.insert(run.values.end(), buf.begin(), buf.begin() + info.count);
    if (run.infos.size() > static_cast<size_t>(s.n_series()) + 1)
      throw std::runtime_error("fc_blocks_next delivered more blocks than there are rows");
  }
  return run;
}

}  // namespace fctest
