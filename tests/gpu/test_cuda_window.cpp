// The CUDA backend's windows and low-rank primitives (create_window, gram, project), called
// through the Backend interface of contexts made with the public API and through the public
// calls built on them (fc_series_window, fc_pcc_lowrank, fc_dfc_*), against the CPU backend
// (the reference implementation) and a float64 reference computed here from the raw data:
// constant flags agree exactly, r of a window within the FP32 / FP64 contract, Z^T Z and Z * basis
// within float64 rounding (plus the storage's rounding in FP32), the same bits run after run and
// whatever the memory limit's chunking, and a limit too small for one row is an out-of-memory
// error.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "graph_reference.hpp"
#include "api/handles.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

fc::Backend& backend_of(const Context& c) { return *c.get()->state->backend; }
fc::SeriesView view_of(const Series& s) { return s.get()->data->view(); }

template <class F>
void with_run(const Context& c, int64_t total, F&& f) {
  fc::Progress progress(nullptr, nullptr, total);
  fc::RunSettings run = c.get()->state->run_settings(progress);
  f(run);
}

// fMRI-like series that are never zero: a baseline near 1000 plus shared random-walk components
// (so correlations span the range) and a random walk of each series' own.
Dataset walk_data(int64_t n, int64_t t, uint64_t seed) {
  constexpr int kComponents = 3;
  Random rng(seed);
  std::vector<double> comp(static_cast<size_t>(kComponents * t));
  for (int c = 0; c < kComponents; ++c) {
    double v = 0.0;
    for (int64_t k = 0; k < t; ++k) comp[static_cast<size_t>(c * t + k)] = v += rng.normal();
  }
  Dataset d;
  d.n = n;
  d.t = t;
  d.x.resize(static_cast<size_t>(n * t));
  for (int64_t s = 0; s < n; ++s) {
    const double baseline = rng.uniform(600.0, 1400.0), scale = rng.uniform(2.0, 10.0), own = rng.uniform(0.1, 2.0);
    double load[kComponents];
    for (double& l : load) l = rng.normal();
    double walk = 0.0;
    for (int64_t k = 0; k < t; ++k) {
      double v = own * (walk += rng.normal());
      for (int c = 0; c < kComponents; ++c) v += load[c] * comp[static_cast<size_t>(c * t + k)];
      d.at(s, k) = baseline + scale * v;
    }
  }
  return d;
}

// The window spec of a test: [begin, begin + length), Gaussian taper when sigma > 0.
struct Spec {
  int64_t begin, length;
  double sigma;
};

// fastconn.h's Gaussian taper, written out: w_k = sum_j exp(-(k-j)^2 / (2 sigma^2)) / max.
std::vector<double> gaussian_weights(int64_t length, double sigma) {
  std::vector<double> w(static_cast<size_t>(length));
  double top = 0.0;
  for (int64_t k = 0; k < length; ++k) {
    double sum = 0.0;
    for (int64_t j = 0; j < length; ++j) sum += std::exp(-double(k - j) * double(k - j) / (2.0 * sigma * sigma));
    w[static_cast<size_t>(k)] = sum;
    top = std::max(top, sum);
  }
  for (double& v : w) v /= top;
  return w;
}

std::vector<double> weights_of(const Spec& spec) {
  return spec.sigma > 0 ? gaussian_weights(spec.length, spec.sigma) : std::vector<double>();
}

// The float64 reference window of the raw data: sqrt(w) (x - m_w) / ||.||, constant where the
// raw window's values are all equal.
Reference reference_window(const Dataset& d, const Spec& spec) {
  const std::vector<double> w = weights_of(spec);
  Reference r;
  r.n = d.n;
  r.t = spec.length;
  r.z.assign(static_cast<size_t>(d.n * spec.length), 0.0);
  r.constant.assign(static_cast<size_t>(d.n), 0);
  for (int64_t s = 0; s < d.n; ++s) {
    const double* x = d.x.data() + s * d.t + spec.begin;
    bool equal = true;
    double sw = 0.0, swx = 0.0;
    for (int64_t k = 0; k < spec.length; ++k) {
      const double wk = w.empty() ? 1.0 : w[static_cast<size_t>(k)];
      equal = equal && x[k] == x[0];
      sw += wk;
      swx += wk * x[k];
    }
    if (equal) {
      r.constant[static_cast<size_t>(s)] = 1;
      ++r.n_constant;
      continue;
    }
    const double m = swx / sw;
    double ss = 0.0;
    for (int64_t k = 0; k < spec.length; ++k) {
      const double v = std::sqrt(w.empty() ? 1.0 : w[static_cast<size_t>(k)]) * (x[k] - m);
      r.z[static_cast<size_t>(s * spec.length + k)] = v;
      ss += v * v;
    }
    for (int64_t k = 0; k < spec.length; ++k) r.z[static_cast<size_t>(s * spec.length + k)] /= std::sqrt(ss);
  }
  return r;
}

// A window made by a backend, kept as the library keeps a series, with the flags it wrote.
using Window = fc::SeriesData;

std::unique_ptr<Window> make_window(const Context& c, const Series& s, const Spec& spec) {
  const fc::SeriesView parent = view_of(s);
  const std::vector<double> w = weights_of(spec);
  auto win = std::make_unique<Window>();
  win->n = parent.n;
  win->t = spec.length;
  win->precision = parent.precision;
  win->constant.assign(static_cast<size_t>(parent.n), 0xAB);  // every flag must be written
  with_run(c, 0, [&](const fc::RunSettings& run) {
    win->storage = backend_of(c).create_window(parent, spec.begin, spec.length, w.empty() ? nullptr : w.data(),
                                               win->constant.data(), run);
  });
  win->n_constant = std::count(win->constant.begin(), win->constant.end(), uint8_t(1));
  return win;
}

// The window's row-ordered triangle as doubles (FP64: double output, else float output).
std::vector<double> triangle(const Context& c, const Window& w) {
  const int64_t count = triu_size(w.n);
  std::vector<double> out(static_cast<size_t>(count), kSentinel);
  if (count == 0) return out;
  const fc::SeriesView v = w.view();
  if (w.precision == FC_PRECISION_FP64) {
    fc::Output o{out.data(), fc::ScalarType::F64, false};
    with_run(c, count, [&](const fc::RunSettings& run) { backend_of(c).triu(v, FC_TRIU_ROW, 0, w.n, o, run); });
  } else {
    std::vector<float> f(static_cast<size_t>(count), kSentinel);
    fc::Output o{f.data(), fc::ScalarType::F32, false};
    with_run(c, count, [&](const fc::RunSettings& run) { backend_of(c).triu(v, FC_TRIU_ROW, 0, w.n, o, run); });
    std::copy(f.begin(), f.end(), out.begin());
  }
  return out;
}

std::vector<double> gram_of(const Context& c, const Window& w) {
  std::vector<double> g(static_cast<size_t>(w.t * w.t), kSentinel);
  with_run(c, 0, [&](const fc::RunSettings& run) { backend_of(c).gram(w.view(), g.data(), run); });
  return g;
}

std::vector<float> project_of(const Context& c, const Window& w, const std::vector<double>& basis, int64_t l) {
  std::vector<float> f(static_cast<size_t>(w.n * l), kSentinel);
  with_run(c, 0, [&](const fc::RunSettings& run) { backend_of(c).project(w.view(), basis.data(), l, f.data(), run); });
  return f;
}

// A fixed random t x l basis (entries ~ N(0, 1/t), so the factors are O(1)).
std::vector<double> random_basis(int64_t t, int64_t l, uint64_t seed) {
  Random rng(seed);
  std::vector<double> b(static_cast<size_t>(t * l));
  for (double& v : b) v = rng.normal() / std::sqrt(double(t));
  return b;
}

// Largest |a - b| over two equally long arrays, NaN required in the same places (returns +inf
// when a NaN is misplaced, so the comparison fails loudly).
template <class A, class B>
double max_abs_diff(const std::vector<A>& a, const std::vector<B>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0.0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double x = static_cast<double>(a[k]), y = static_cast<double>(b[k]);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::fabs(x - y));
  }
  return worst;
}

// Largest |got - expected| over the factors relative to the float rounding the factor's magnitude
// allows (1 ulp): <= 1 means within an ulp plus `slack`.
double factor_ulps(const std::vector<float>& got, const std::vector<float>& expected, double slack) {
  double worst = 0.0;
  for (size_t k = 0; k < got.size(); ++k) {
    const double g = got[k], e = expected[k];
    const double ulp = std::max(std::fabs(e), 1e-30) * 0x1.0p-23;
    worst = std::max(worst, std::fabs(g - e) / (ulp + slack));
  }
  return worst;
}

// The windows a case checks: whole series, the shortest at both ends, odd interior ones, one
// exactly over the span where series `n / 2` is constant, and Gaussian tapers.
std::vector<Spec> specs_for(int64_t t) {
  std::vector<Spec> v{{0, t, 0.0}, {0, 2, 0.0}, {t - 2, 2, 0.0}};
  if (t >= 3) v.push_back({1, t - 1, 0.0});
  if (t >= 7) {
    v.push_back({t / 3, std::max<int64_t>(2, t / 4), 0.0});  // the constant span (see case_data)
    v.push_back({t / 5, t / 2 + 1, 0.0});
    v.push_back({t / 7, t - t / 7 - 1, 3.5});
    v.push_back({t / 3, std::max<int64_t>(2, t / 4), 2.0});
  }
  return v;
}

// Series n / 2 constant over [t/3, t/3 + max(2, t/4)) only (it is not constant elsewhere), and
// series n - 1 constant throughout when n >= 3.
Dataset case_data(int64_t n, int64_t t, uint64_t seed) {
  Dataset d = walk_data(n, t, seed);
  if (t >= 7) {
    const int64_t b = t / 3, len = std::max<int64_t>(2, t / 4);
    for (int64_t k = b; k < b + len; ++k) d.at(n / 2, k) = 1234.5;
  }
  if (n >= 3) make_constant(d, n - 1, 987.25);
  return d;
}

struct Case {
  int64_t n, t;
  fc_precision precision;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return "n" + std::to_string(c.n) + "_t" + std::to_string(c.t) + (c.precision == FC_PRECISION_FP64 ? "_fp64" : "_fp32");
}

class CudaWindow : public ::testing::TestWithParam<Case> {};

// Every window of the case: flags equal to the CPU's and the reference's; r, Z^T Z and Z * basis
// against the CPU backend and the float64 reference; a second CUDA run gives the same bits.
TEST_P(CudaWindow, AgreesWithCpuAndFloat64) {
  REQUIRE_CUDA();
  const Case c = GetParam();
  const bool fp64 = c.precision == FC_PRECISION_FP64;
  const Dataset d = case_data(c.n, c.t, 7000 + c.n * 31 + c.t);
  Context gpu(FC_BACKEND_CUDA), cpu(FC_BACKEND_CPU);
  gpu.precision(c.precision);
  cpu.precision(c.precision);
  const Series sg = make_series(gpu, d), sc = make_series(cpu, d);
  // r: the contract. Gram entries are sums of n products of normalized values (|G| <= n): the
  // storage's rounding (float: 2^-24 relative per value) bounds the backends' difference. Against
  // the raw data's window the storage's rounding is amplified where a short window varies little
  // next to the whole series' spread (measured: 2e-11 at n = 131 in FP64 on the CPU backend).
  const double r_tol = fp64 ? 1e-12 : 1e-5;
  const double gram_tol = (fp64 ? 1e-13 : 4e-7) * std::max<double>(1, double(c.n));
  const double gram_ref_tol = (fp64 ? 1e-12 : 4e-7) * std::max<double>(1, double(c.n));
  double worst_r_cpu = 0, worst_r_ref = 0, worst_gram = 0, worst_factor = 0;
  for (const Spec& spec : specs_for(c.t)) {
    SCOPED_TRACE("window begin " + std::to_string(spec.begin) + " length " + std::to_string(spec.length) + " sigma " +
                 std::to_string(spec.sigma));
    const Reference ref = reference_window(d, spec);
    const auto wg = make_window(gpu, sg, spec), wc = make_window(cpu, sc, spec);
    ASSERT_EQ(wg->constant, wc->constant);
    ASSERT_EQ(wg->constant, ref.constant);
    if (spec.length == std::max<int64_t>(2, c.t / 4) && spec.begin == c.t / 3 && c.t >= 7) {
      ASSERT_EQ(wg->constant[static_cast<size_t>(c.n / 2)], 1) << "the series constant in this window only";
    }

    const std::vector<double> rg = triangle(gpu, *wg), rc = triangle(cpu, *wc);
    const std::vector<double> rr = triangle_of(reference_dense(ref), ref.n, FC_TRIU_ROW);
    worst_r_cpu = std::max(worst_r_cpu, max_abs_diff(rg, rc));
    worst_r_ref = std::max(worst_r_ref, max_abs_diff(rg, rr));
    ASSERT_LE(max_abs_diff(rg, rc), r_tol);
    ASSERT_LE(max_abs_diff(rg, rr), r_tol);

    const std::vector<double> gg = gram_of(gpu, *wg), gc = gram_of(cpu, *wc);
    std::vector<double> gr(static_cast<size_t>(spec.length * spec.length), 0.0);
    for (int64_t i = 0; i < spec.length; ++i)
      for (int64_t j = 0; j < spec.length; ++j)
        for (int64_t s = 0; s < c.n; ++s) gr[i * spec.length + j] += ref.z[s * spec.length + i] * ref.z[s * spec.length + j];
    worst_gram = std::max({worst_gram, max_abs_diff(gg, gc), max_abs_diff(gg, gr)});
    ASSERT_LE(max_abs_diff(gg, gc), gram_tol);
    ASSERT_LE(max_abs_diff(gg, gr), gram_ref_tol);
    for (int64_t i = 0; i < spec.length; ++i)
      for (int64_t j = 0; j < i; ++j) ASSERT_EQ(gg[i * spec.length + j], gg[j * spec.length + i]) << "symmetric bits";

    for (int64_t l : {int64_t(1), std::min<int64_t>(spec.length, 5), spec.length}) {
      const std::vector<double> basis = random_basis(spec.length, l, 99 + l);
      const std::vector<float> fg = project_of(gpu, *wg, basis, l), fcpu = project_of(cpu, *wc, basis, l);
      // Products summed in float64 and rounded once: an ulp apart, plus the storage's rounding.
      const double ulps = factor_ulps(fg, fcpu, fp64 ? 1e-13 : 2e-6);
      worst_factor = std::max(worst_factor, ulps);
      ASSERT_LE(ulps, 1.0) << "rank " << l;
      // Determinism: the same bits from a second run over the same window.
      const std::vector<float> again = project_of(gpu, *wg, basis, l);
      ASSERT_EQ(0, std::memcmp(fg.data(), again.data(), fg.size() * sizeof(float))) << "rank " << l;
    }

    // A second window from the same parent: the same flags and the same bits everywhere.
    const auto wg2 = make_window(gpu, sg, spec);
    ASSERT_EQ(wg->constant, wg2->constant);
    const std::vector<double> rg2 = triangle(gpu, *wg2), gg2 = gram_of(gpu, *wg2);
    ASSERT_EQ(0, std::memcmp(rg.data(), rg2.data(), rg.size() * sizeof(double)));
    ASSERT_EQ(0, std::memcmp(gg.data(), gg2.data(), gg.size() * sizeof(double)));
  }
  std::printf("[window] n=%lld t=%lld %s: max|dr| cuda-cpu %.3g, cuda-float64 %.3g; max|dG| %.3g; factor %.3g ulp\n",
              static_cast<long long>(c.n), static_cast<long long>(c.t), fp64 ? "FP64" : "FP32", worst_r_cpu, worst_r_ref,
              worst_gram, worst_factor);
  RecordProperty("max_dr_cuda_cpu", std::to_string(worst_r_cpu));
  RecordProperty("max_dr_cuda_float64", std::to_string(worst_r_ref));
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaWindow,
                         ::testing::Values(Case{1, 2, FC_PRECISION_FP32}, Case{2, 3, FC_PRECISION_FP32},
                                           Case{3, 47, FC_PRECISION_FP32}, Case{131, 150, FC_PRECISION_FP32},
                                           Case{1031, 300, FC_PRECISION_FP32}, Case{131, 2, FC_PRECISION_FP32},
                                           Case{1, 9, FC_PRECISION_FP64}, Case{2, 2, FC_PRECISION_FP64},
                                           Case{3, 31, FC_PRECISION_FP64}, Case{131, 97, FC_PRECISION_FP64},
                                           Case{1031, 300, FC_PRECISION_FP64}),
                         case_name);

// --- the same through the public C API: fc_series_window, fc_pcc_triu on a window,
// fc_pcc_lowrank, fc_dfc_triu and fc_dfc_degree, CUDA against CPU.

Series window_series(const Context& c, const Series& s, const Spec& spec) {
  fc_series* w = nullptr;
  check(fc_series_window(c.get(), s.get(), spec.begin, spec.length, spec.sigma > 0 ? FC_TAPER_GAUSSIAN : FC_TAPER_RECTANGULAR,
                         spec.sigma, &w),
        "fc_series_window");
  return Series(w);
}

std::vector<double> api_triangle(const Context& c, const Series& s, bool fp64) {
  if (fp64) return pcc_triu_f64(c, s, FC_TRIU_ROW);
  const std::vector<float> f = pcc_triu(c, s, FC_TRIU_ROW);
  return std::vector<double>(f.begin(), f.end());
}

struct LowRank {
  std::vector<float> factor;
  double rel_error = -1.0;
};

LowRank lowrank(const Context& c, const Series& s, int64_t n, int64_t rank) {
  LowRank r;
  r.factor.assign(static_cast<size_t>(n * rank), kSentinel);
  check(fc_pcc_lowrank(c.get(), s.get(), rank, r.factor.data(), n * rank, &r.rel_error), "fc_pcc_lowrank");
  return r;
}

// (V V^T)_ij over rows i of a sample (every row when n is small) and all j > i, row order.
std::vector<double> approximation(const std::vector<float>& v, int64_t n, int64_t rank) {
  std::vector<double> out;
  const int64_t every = n > 500 ? 5 : 1;
  for (int64_t i = 0; i < n; i += every)
    for (int64_t j = i + 1; j < n; ++j) {
      double sum = 0.0;
      for (int64_t k = 0; k < rank; ++k) sum += double(v[i * rank + k]) * double(v[j * rank + k]);
      out.push_back(sum);
    }
  return out;
}

class CudaWindowApi : public ::testing::TestWithParam<Case> {};

TEST_P(CudaWindowApi, PublicCallsAgreeWithCpu) {
  REQUIRE_CUDA();
  const Case c = GetParam();
  const bool fp64 = c.precision == FC_PRECISION_FP64;
  const double r_tol = fp64 ? 1e-12 : 1e-5;
  const Dataset d = case_data(c.n, c.t, 9000 + c.n * 17 + c.t);
  Context gpu(FC_BACKEND_CUDA), cpu(FC_BACKEND_CPU);
  gpu.precision(c.precision);
  cpu.precision(c.precision);
  const Series sg = make_series(gpu, d), sc = make_series(cpu, d);
  double worst_r = 0, worst_rel = 0, worst_vv = 0, worst_full = 0;
  for (const Spec& spec : specs_for(c.t)) {
    SCOPED_TRACE("window begin " + std::to_string(spec.begin) + " length " + std::to_string(spec.length) + " sigma " +
                 std::to_string(spec.sigma));
    const Series wg = window_series(gpu, sg, spec), wc = window_series(cpu, sc, spec);
    ASSERT_EQ(wg.n_constant(), wc.n_constant());
    ASSERT_EQ(wg.n_constant(), reference_window(d, spec).n_constant);
    const std::vector<double> rg = api_triangle(gpu, wg, fp64), rc = api_triangle(cpu, wc, fp64);
    worst_r = std::max(worst_r, max_abs_diff(rg, rc));
    ASSERT_LE(max_abs_diff(rg, rc), r_tol);
    const std::vector<double> rg2 = api_triangle(gpu, window_series(gpu, sg, spec), fp64);
    ASSERT_EQ(0, std::memcmp(rg.data(), rg2.data(), rg.size() * sizeof(double))) << "same bits run to run";

    std::vector<int64_t> ranks{1, std::min<int64_t>(5, spec.length)};
    if (spec.length > 2) ranks.push_back(spec.length - 1);
    for (int64_t rank : ranks) {
      const LowRank lg = lowrank(gpu, wg, c.n, rank), lc = lowrank(cpu, wc, c.n, rank);
      worst_rel = std::max(worst_rel, std::fabs(lg.rel_error - lc.rel_error));
      ASSERT_LE(std::fabs(lg.rel_error - lc.rel_error), 1e-6) << "rank " << rank;
      const std::vector<double> ag = approximation(lg.factor, c.n, rank), ac = approximation(lc.factor, c.n, rank);
      worst_vv = std::max(worst_vv, max_abs_diff(ag, ac));
      ASSERT_LE(max_abs_diff(ag, ac), 1e-5) << "rank " << rank;
      const LowRank again = lowrank(gpu, wg, c.n, rank);
      ASSERT_EQ(0, std::memcmp(lg.factor.data(), again.factor.data(), lg.factor.size() * sizeof(float))) << "rank " << rank;
      ASSERT_EQ(0, std::memcmp(&lg.rel_error, &again.rel_error, sizeof(double))) << "rank " << rank;
      // Rank length - 1 is the whole (centred) window: V V^T is R, constant series aside.
      if (rank == spec.length - 1 && c.n <= 500) {
        const Reference ref = reference_window(d, spec);
        size_t at = 0;
        for (int64_t i = 0; i < c.n; ++i)
          for (int64_t j = i + 1; j < c.n; ++j, ++at) {
            if (ref.constant[i] || ref.constant[j]) continue;
            worst_full = std::max(worst_full, std::fabs(ag[at] - rg[at]));
            ASSERT_NEAR(ag[at], rg[at], 1e-5) << "pair (" << i << ", " << j << ") of the full-rank factor";
          }
      }
    }
  }

  // All windows at once: length ~t/3 every ~t/7 samples (W > 1 unless t is tiny), tapered.
  const int64_t length = std::max<int64_t>(2, c.t / 3), step = std::max<int64_t>(1, c.t / 7);
  const int taper = length >= 5 ? FC_TAPER_GAUSSIAN : FC_TAPER_RECTANGULAR;
  const int64_t w = fc_window_count(c.t, length, step), pairs = triu_size(c.n);
  ASSERT_GE(w, 1);
  auto dfc = [&](const Context& ctx, const Series& s) {
    std::vector<float> out(static_cast<size_t>(std::max<int64_t>(1, w * pairs)), kSentinel);
    check(fc_dfc_triu(ctx.get(), s.get(), length, step, taper, 2.0, FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())),
          "fc_dfc_triu");
    return out;
  };
  const std::vector<float> dg = dfc(gpu, sg), dc = dfc(cpu, sc), dg2 = dfc(gpu, sg);
  const double dfc_diff = max_abs_diff(dg, dc);
  EXPECT_LE(dfc_diff, fp64 ? 0x1.0p-24 : 1e-5);  // float output: FP64 adds its final rounding
  EXPECT_EQ(0, std::memcmp(dg.data(), dg2.data(), dg.size() * sizeof(float)));

  // Degrees at |r| >= 0.3: equal except through pairs whose r (CPU) lies within 2e-5 of 0.3
  // (FP32 products may fall either side); strength likewise, plus its sum's rounding.
  constexpr double kThreshold = 0.3;
  std::vector<int64_t> degree_g(static_cast<size_t>(w * c.n), -1), degree_c(degree_g);
  std::vector<double> strength_g(static_cast<size_t>(w * c.n), -1.0), strength_c(strength_g);
  check(fc_dfc_degree(gpu.get(), sg.get(), length, step, taper, 2.0, FC_EDGE_ABS_THRESHOLD, kThreshold, degree_g.data(),
                      strength_g.data()),
        "fc_dfc_degree");
  check(fc_dfc_degree(cpu.get(), sc.get(), length, step, taper, 2.0, FC_EDGE_ABS_THRESHOLD, kThreshold, degree_c.data(),
                      strength_c.data()),
        "fc_dfc_degree");
  int64_t near_total = 0;
  for (int64_t k = 0; k < w; ++k) {
    std::vector<int64_t> near(static_cast<size_t>(c.n), 0);
    int64_t at = k * pairs;
    for (int64_t i = 0; i < c.n; ++i)
      for (int64_t j = i + 1; j < c.n; ++j, ++at)
        if (std::fabs(std::fabs(double(dc[at])) - kThreshold) <= 2e-5) ++near[i], ++near[j], ++near_total;
    for (int64_t s = 0; s < c.n; ++s) {
      const size_t x = static_cast<size_t>(k * c.n + s);
      ASSERT_LE(std::llabs(degree_g[x] - degree_c[x]), near[s]) << "window " << k << " series " << s;
      ASSERT_LE(std::fabs(strength_g[x] - strength_c[x]), 2e-5 * double(degree_c[x]) + 1e-12 + near[s] * (kThreshold + 2e-5))
          << "window " << k << " series " << s;
    }
  }
  std::printf("[window api] n=%lld t=%lld %s: max|dr| %.3g; max|d rel_error| %.3g; max|d VV^T| %.3g; full rank vs r %.3g; "
              "dfc_triu %.3g (%lld windows); %lld pairs near the degree threshold\n",
              static_cast<long long>(c.n), static_cast<long long>(c.t), fp64 ? "FP64" : "FP32", worst_r, worst_rel, worst_vv,
              worst_full, dfc_diff, static_cast<long long>(w), static_cast<long long>(near_total));
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaWindowApi,
                         ::testing::Values(Case{1, 2, FC_PRECISION_FP32}, Case{2, 3, FC_PRECISION_FP32},
                                           Case{3, 47, FC_PRECISION_FP32}, Case{131, 150, FC_PRECISION_FP32},
                                           Case{1031, 300, FC_PRECISION_FP32}, Case{2, 2, FC_PRECISION_FP64},
                                           Case{3, 31, FC_PRECISION_FP64}, Case{131, 97, FC_PRECISION_FP64},
                                           Case{1031, 300, FC_PRECISION_FP64}),
                         case_name);

// fc_dfc_triu runs every window through one band pipeline (CudaBackend::triu_windows: each
// window made on the compute stream of its first band, groups of windows within a memory
// limit; without a limit, n = 257 puts 2 windows in each band of the pipeline, the last band
// one: batched_triangles): the same bits as each window made by fc_series_window and its own
// fc_pcc_triu, in both orders, FP32 / FP64 / TF32, tapered, with series constant in some windows
// only, and with memory limits whose groups hold 7 windows (then the other 2) or one.
TEST(CudaWindowBatch, DfcTriuEqualsEachWindowsOwnTriangle) {
  REQUIRE_CUDA();
  const int64_t n = 257, t = 61, length = 17, step = 5;
  Dataset d = walk_data(n, t, 4242);
  for (int64_t k = 20; k < 40; ++k) d.at(3, k) = 777.0;   // constant in the windows within [20, 40)
  for (int64_t k = 0; k < 18; ++k) d.at(200, k) = -5.0;   // constant in the first window only
  const int64_t w = fc_window_count(t, length, step), pairs = triu_size(n);
  ASSERT_GE(w, 9);
  struct Setting {
    fc_precision precision;
    int64_t memory_limit;
  };
  for (const Setting z : {Setting{FC_PRECISION_FP32, 0}, Setting{FC_PRECISION_FP64, 0}, Setting{FC_PRECISION_TF32, 0},
                          Setting{FC_PRECISION_FP32, int64_t(1) << 20}, Setting{FC_PRECISION_FP64, int64_t(96) << 10}})
    for (const int taper : {int(FC_TAPER_RECTANGULAR), int(FC_TAPER_GAUSSIAN)})
      for (const fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
        SCOPED_TRACE("precision " + std::to_string(z.precision) + " limit " + std::to_string(z.memory_limit) + " taper " +
                     std::to_string(taper) + " order " + std::to_string(order));
        Context gpu(FC_BACKEND_CUDA);
        gpu.precision(z.precision);
        if (z.memory_limit > 0) gpu.memory_limit(z.memory_limit);
        const Series s = make_series(gpu, d);
        const double sigma = taper == FC_TAPER_GAUSSIAN ? 3.0 : 0.0;
        std::vector<float> all(static_cast<size_t>(w * pairs), kSentinel);
        check(fc_dfc_triu(gpu.get(), s.get(), length, step, taper, sigma, order, all.data(), w * pairs), "fc_dfc_triu");
        int64_t constant_seen = 0;
        for (int64_t k = 0; k < w; ++k) {
          fc_series* raw = nullptr;
          check(fc_series_window(gpu.get(), s.get(), k * step, length, taper, sigma, &raw), "fc_series_window");
          const Series one(raw);
          constant_seen += one.n_constant();
          const std::vector<float> own = pcc_triu(gpu, one, order);
          ASSERT_EQ(0, std::memcmp(own.data(), all.data() + k * pairs, own.size() * sizeof(float))) << "window " << k;
        }
        EXPECT_GE(constant_seen, 2);  // both series' constant windows were in the run
      }
}

// The window group's device buffers are kept between calls (triu_windows), the taper's weights
// among them: a rectangular run after a tapered one on the same context must not reuse the
// taper. Both the batched path (no limit) and the window-by-window one (a 1 MiB limit).
TEST(CudaWindowBatch, RectangularAfterTaperedOnOneContext) {
  REQUIRE_CUDA();
  const int64_t n = 257, t = 61, length = 17, step = 5;
  const Dataset d = walk_data(n, t, 2468);
  const int64_t w = fc_window_count(t, length, step), pairs = triu_size(n);
  for (const int64_t limit : {int64_t(0), int64_t(1) << 20}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    Context gpu(FC_BACKEND_CUDA);
    if (limit > 0) gpu.memory_limit(limit);
    const Series s = make_series(gpu, d);
    std::vector<float> tapered(static_cast<size_t>(w * pairs), kSentinel), plain(tapered.size(), kSentinel);
    check(fc_dfc_triu(gpu.get(), s.get(), length, step, FC_TAPER_GAUSSIAN, 3.0, FC_TRIU_ROW, tapered.data(), w * pairs),
          "fc_dfc_triu (tapered)");
    check(fc_dfc_triu(gpu.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, plain.data(), w * pairs),
          "fc_dfc_triu (rectangular)");
    for (int64_t k = 0; k < w; ++k) {
      fc_series* raw = nullptr;
      check(fc_series_window(gpu.get(), s.get(), k * step, length, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
      const Series one(raw);
      const std::vector<float> own = pcc_triu(gpu, one, FC_TRIU_ROW);
      ASSERT_EQ(0, std::memcmp(own.data(), plain.data() + k * pairs, own.size() * sizeof(float))) << "window " << k;
    }
    EXPECT_NE(0, std::memcmp(tapered.data(), plain.data(), tapered.size() * sizeof(float)));  // the taper changed r
  }
}

// fc_dfc_next_graph builds the next window's graph on the device while it copies this one out
// (DfcIterator's look-ahead): each window's graph is still the one fc_pcc_graph gives for that
// window, bit for bit, when the next call asks for the same (taken), another rule, another
// precision, or comes after a triangle (dropped); a graph kept across calls is untouched, and an
// iterator destroyed with a graph ahead leaves nothing behind. 2999 series, nearly every pair an
// edge: the host arrays are large enough to be page-locked, so the copies run beside the next
// window's work.
TEST(CudaWindowBatch, NextGraphLooksAheadAndGivesEachWindowsGraph) {
  REQUIRE_CUDA();
  const int64_t n = 2999, t = 60, length = 12, step = 8;
  const Dataset d = walk_data(n, t, 777);
  const int64_t w = fc_window_count(t, length, step);
  ASSERT_EQ(w, 7);
  Context gpu(FC_BACKEND_CUDA);
  const Series s = make_series(gpu, d);
  auto reference = [&](int64_t k, fc_edge_rule rule, int weights) {
    fc_series* raw = nullptr;
    check(fc_series_window(gpu.get(), s.get(), k * step, length, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
    const Series one(raw);
    return pcc_graph(gpu, one, rule, 0.02, weights);
  };
  auto same = [](const Csr& a, const Csr& b) {
    ASSERT_EQ(a.n_edges, b.n_edges);
    ASSERT_EQ(a.offsets, b.offsets);
    ASSERT_EQ(a.columns, b.columns);
    ASSERT_EQ(0, std::memcmp(a.weights.data(), b.weights.data(), a.weights.size() * sizeof(float)));
  };
  struct Step {
    fc_edge_rule rule;
    int weights;
    fc_precision precision;
  };
  const Step steps[] = {{FC_EDGE_ABS_THRESHOLD, FC_GRAPH_WEIGHTED, FC_PRECISION_FP32},   // builds window 1 ahead
                        {FC_EDGE_ABS_THRESHOLD, FC_GRAPH_WEIGHTED, FC_PRECISION_FP32},   // takes it
                        {FC_EDGE_THRESHOLD, FC_GRAPH_BINARY, FC_PRECISION_FP32},         // another rule: dropped
                        {FC_EDGE_THRESHOLD, FC_GRAPH_BINARY, FC_PRECISION_TF32},         // another precision: dropped
                        {FC_EDGE_ABS_THRESHOLD, FC_GRAPH_WEIGHTED, FC_PRECISION_FP32}};  // dropped again
  fc_dfc* raw_it = nullptr;
  check(fc_dfc_begin(gpu.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, &raw_it), "fc_dfc_begin");
  std::unique_ptr<fc_dfc, void (*)(fc_dfc*)> it(raw_it, fc_dfc_destroy);
  std::unique_ptr<fc_graph, void (*)(fc_graph*)> kept(nullptr, fc_graph_destroy);
  Csr kept_reference;
  int64_t big = 0;
  for (int64_t k = 0; k < 5; ++k) {
    SCOPED_TRACE("window " + std::to_string(k));
    const Step& st = steps[k];
    gpu.precision(st.precision);
    fc_graph* g = nullptr;
    int64_t at = -1;
    check(fc_dfc_next_graph(it.get(), st.rule, 0.02, st.weights, &g, &at), "fc_dfc_next_graph");
    ASSERT_EQ(at, k);
    const Csr ref = reference(k, st.rule, st.weights);
    big = std::max(big, ref.n_edges);
    same(copy_out(g), ref);
    if (k == 1) {
      kept.reset(g);
      kept_reference = ref;
    } else {
      fc_graph_destroy(g);
    }
  }
  gpu.precision(FC_PRECISION_FP32);
  EXPECT_GT(big, int64_t(2200000));  // arrays past 16 MiB: locked after the first reuse
  // Window 5 as a triangle (the graph built ahead for it is dropped), then window 6's graph.
  std::vector<float> tri(static_cast<size_t>(triu_size(n)), kSentinel);
  fc_dfc_block_info info;
  check(fc_dfc_next_triu(it.get(), tri.data(), static_cast<int64_t>(tri.size()), &info), "fc_dfc_next_triu");
  ASSERT_EQ(info.window, 5);
  {
    fc_series* raw = nullptr;
    check(fc_series_window(gpu.get(), s.get(), 5 * step, length, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
    const Series one(raw);
    const std::vector<float> own = pcc_triu(gpu, one, FC_TRIU_ROW);
    ASSERT_EQ(0, std::memcmp(own.data(), tri.data(), own.size() * sizeof(float)));
  }
  fc_graph* g6 = nullptr;
  int64_t at = -1;
  check(fc_dfc_next_graph(it.get(), FC_EDGE_ABS_THRESHOLD, 0.02, FC_GRAPH_WEIGHTED, &g6, &at), "fc_dfc_next_graph");
  ASSERT_EQ(at, 6);
  same(copy_out(g6), reference(6, FC_EDGE_ABS_THRESHOLD, FC_GRAPH_WEIGHTED));
  fc_graph_destroy(g6);
  fc_graph* none = nullptr;
  EXPECT_EQ(fc_dfc_next_graph(it.get(), FC_EDGE_ABS_THRESHOLD, 0.02, FC_GRAPH_WEIGHTED, &none, &at), FC_DONE);
  same(copy_out(kept.get()), kept_reference);  // the graph held across the calls

  // Destroyed with window 1's graph built ahead.
  fc_dfc* second = nullptr;
  check(fc_dfc_begin(gpu.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, &second), "fc_dfc_begin");
  fc_graph* g0 = nullptr;
  check(fc_dfc_next_graph(second, FC_EDGE_ABS_THRESHOLD, 0.02, FC_GRAPH_WEIGHTED, &g0, nullptr), "fc_dfc_next_graph");
  fc_dfc_destroy(second);
  same(copy_out(g0), reference(0, FC_EDGE_ABS_THRESHOLD, FC_GRAPH_WEIGHTED));
  fc_graph_destroy(g0);
}

// A memory limit that splits gram and project into chunks of a few rows gives the same results
// (within float64 rounding: the chunk sums add in another order) and repeats its own bits; a
// limit below one row's need is FC_ERR_OUT_OF_MEMORY naming the limit.
TEST(CudaWindowLimits, ChunkedLowRankAgreesAndTinyLimitFails) {
  REQUIRE_CUDA();
  const int64_t n = 1031, t = 150;
  const Spec spec{7, 131, 0.0};
  const Dataset d = case_data(n, t, 31337);
  for (fc_precision p : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const int64_t l = 11;
    const int64_t len = spec.length;
    // Float storage: Gram's chunk rows are widened (len * 8 bytes a row) beside the len x len
    // Gram; 37 rows a chunk. Project: the basis, then l * 12 (+ len * 8) bytes a row.
    const int64_t gram_limit = len * len * 8 + 37 * len * 8;
    Context plain(FC_BACKEND_CUDA), tight(FC_BACKEND_CUDA);
    plain.precision(p);
    tight.precision(p).memory_limit(gram_limit);
    const Series sp = make_series(plain, d), st = make_series(tight, d);
    const auto wp = make_window(plain, sp, spec), wt = make_window(tight, st, spec);
    ASSERT_EQ(wp->constant, wt->constant);
    const std::vector<double> gp = gram_of(plain, *wp), gt = gram_of(tight, *wt), gt2 = gram_of(tight, *wt);
    EXPECT_LE(max_abs_diff(gp, gt), 1e-12 * n);
    EXPECT_EQ(0, std::memcmp(gt.data(), gt2.data(), gt.size() * sizeof(double)));
    const std::vector<double> basis = random_basis(len, l, 5);
    const std::vector<float> fp = project_of(plain, *wp, basis, l), ft = project_of(tight, *wt, basis, l);
    EXPECT_LE(factor_ulps(ft, fp, 1e-13), 1.0);

    Context tiny(FC_BACKEND_CUDA);
    tiny.precision(p).memory_limit(4096);  // below the len x len Gram alone
    const Series sy = make_series(tiny, d);
    const auto wy = make_window(tiny, sy, spec);
    for (int which = 0; which < 2; ++which) {
      std::string message;
      try {
        if (which == 0) gram_of(tiny, *wy);
        else project_of(tiny, *wy, basis, l);
      } catch (const std::exception& ex) {
        message = ex.what();
      }
      EXPECT_NE(message.find("memory limit of 4096 bytes"), std::string::npos) << (which == 0 ? "gram: " : "project: ") << message;
    }
  }
}

// Many rows (70,001: thousands of blocks of the window kernel): every flag against the CPU
// backend's, and r of series 0 against every series against the CPU's.
TEST(CudaWindowLimits, ManyRows) {
  REQUIRE_CUDA();
  const int64_t n = 70001, t = 40;
  const Spec spec{3, 33, 4.0};
  const Dataset d = case_data(n, t, 4);
  Context gpu(FC_BACKEND_CUDA), cpu(FC_BACKEND_CPU);
  const Series sg = make_series(gpu, d), sc = make_series(cpu, d);
  const auto wg = make_window(gpu, sg, spec), wc = make_window(cpu, sc, spec);
  ASSERT_EQ(wg->constant, wc->constant);
  ASSERT_EQ(wg->n_constant, 1);
  std::vector<float> a(static_cast<size_t>(n), kSentinel), b(static_cast<size_t>(n), kSentinel);
  with_run(gpu, n, [&](const fc::RunSettings& run) {
    backend_of(gpu).cross(wg->view(), wg->view(), 0, 1, false, fc::Output{a.data(), fc::ScalarType::F32, false}, n, run);
  });
  with_run(cpu, n, [&](const fc::RunSettings& run) {
    backend_of(cpu).cross(wc->view(), wc->view(), 0, 1, false, fc::Output{b.data(), fc::ScalarType::F32, false}, n, run);
  });
  EXPECT_LE(max_abs_diff(a, b), 1e-5);
}

}  // namespace
