// fc_series_create_f32 / _f64 on arbitrary shapes, strides and values: huge, zero and negative
// strides, n_series * n_time past int64, NaN and Inf. The fuzzer owns a buffer of `count`
// elements and passes it only when the layout is one the library must reject before reading
// (documented rules: n_series >= 1, n_time >= 2, strides >= 1, no overlap, addresses below 2^63)
// or one whose every element lies inside the buffer; a valid-looking layout that would read past
// the buffer is skipped. So the library's layout validation is what is under test. Oracle: a
// created series means no addressed value was NaN/Inf; FC_ERR_NONFINITE_INPUT means one was.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fastconn/fastconn.h"
#include "fuzz_input.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_series_create: %s (fc_last_error: %s)\n", what, fc_last_error());
    std::abort();
  }
}

fc_context* context() {
  static fc_context* ctx = [] {
    fc_context* c = nullptr;
    require(fc_context_create(FC_BACKEND_CPU, -1, &c) == FC_OK, "fc_context_create");
    require(fc_context_set_threads(c, 1) == FC_OK, "fc_context_set_threads");
    return c;
  }();
  return ctx;
}

template <class T>
void run(FuzzInput& in, int64_t n, int64_t t, int64_t ss, int64_t ts) {
  const size_t count = in.left() / sizeof(T) < 4096 ? in.left() / sizeof(T) : 4096;
  std::vector<T> buffer(count + 1);  // +1: a valid pointer even when count is 0
  for (size_t k = 0; k < count; ++k) buffer[k] = in.take<T>();

  const bool must_reject = n < 1 || t < 2 || ss < 1 || ts < 1;
  bool inside = false;
  __int128 last = -1;
  if (!must_reject) {
    last = static_cast<__int128>(n - 1) * ss + static_cast<__int128>(t - 1) * ts;
    inside = last < static_cast<__int128>(count);
  }
  const bool beyond_2_63 = !must_reject && last >= (static_cast<__int128>(1) << 63);
  if (!must_reject && !inside && !beyond_2_63) return;  // would be read past our buffer: skip

  bool nonfinite = false;
  if (inside)
    for (int64_t s = 0; s < n && !nonfinite; ++s)
      for (int64_t k = 0; k < t; ++k)
        if (!std::isfinite(static_cast<double>(buffer[static_cast<size_t>(s * ss + k * ts)]))) {
          nonfinite = true;
          break;
        }

  fc_series* untouched = reinterpret_cast<fc_series*>(&in);
  fc_series* s = untouched;
  fc_status status;
  if constexpr (sizeof(T) == 4)
    status = fc_series_create_f32(context(), buffer.data(), n, t, ss, ts, &s);
  else
    status = fc_series_create_f64(context(), buffer.data(), n, t, ss, ts, &s);

  if (status != FC_OK) {
    require(s == untouched, "a failed call wrote its output");
    require(status == FC_ERR_INVALID_ARG || status == FC_ERR_NONFINITE_INPUT || status == FC_ERR_OUT_OF_MEMORY,
            "unexpected status");
    require(status != FC_ERR_NONFINITE_INPUT || nonfinite, "FC_ERR_NONFINITE_INPUT without a NaN or Inf");
    return;
  }
  require(!must_reject && inside, "a layout that breaks the documented rules was accepted");
  require(!nonfinite, "a NaN or Inf was accepted");
  int64_t got_n = 0, got_t = 0, constant = -1;
  require(fc_series_info(s, &got_n, &got_t, &constant) == FC_OK && got_n == n && got_t == t && constant >= 0 &&
              constant <= n,
          "fc_series_info");
  if (n >= 2 && n <= 64) {
    std::vector<float> r(static_cast<size_t>(fc_triu_size(n)));
    require(fc_pcc_triu(context(), s, FC_TRIU_ROW, r.data(), fc_triu_size(n)) == FC_OK, "fc_pcc_triu");
    for (float v : r) require(std::isnan(v) || (v >= -1.0f && v <= 1.0f), "r outside [-1, 1]");
  }
  fc_series_destroy(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const uint8_t type = in.take<uint8_t>();
  const int64_t n = in.size_like(24), t = in.size_like(40), ss = in.size_like(64), ts = in.size_like(64);
  if (type & 1)
    run<float>(in, n, t, ss, ts);
  else
    run<double>(in, n, t, ss, ts);
  return 0;
}
