// The CPU backend: the numerical reference. Its capabilities are in their own files, by the names
// the CUDA backend uses: cpu_pcc.cpp (triangle, cross blocks), cpu_graph.cpp (networks),
// cpu_window.cpp (windows and low rank), cpu_centrality.cpp (products for eigenvector
// centrality), cpu_partial.cpp (partial correlation); the modules' products run on the host
// (modules/modularity.cpp), so it has no modules engine. Products through CBLAS (OpenBLAS on
// Debian) on a fixed grid of tiles (cpu_tiles.hpp).
#include <algorithm>
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "backend/cpu/cpu_centrality.hpp"
#include "backend/cpu/cpu_partial.hpp"
#include "backend/cpu/cpu_pcc.hpp"
#include "backend/cpu/cpu_tiles.hpp"
#include "backend/cpu/cpu_window.hpp"

namespace fc {
namespace {

using namespace cpu;

class CpuBackend : public Backend {
 public:
  fc_backend kind() const override { return FC_BACKEND_CPU; }
  std::string describe() const override { return "CPU (CBLAS, " + std::to_string(omp_get_max_threads()) + " threads)"; }
  int64_t block_row_granularity() const override { return kTileRows; }

  std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) override {
    return std::make_unique<CpuSeries>(n, t, precision);
  }
  HostRows host_rows(SeriesStorage& storage) override {
    auto& s = static_cast<CpuSeries&>(storage);
    return {s.f64.get(), s.f32.get()};
  }

  bool rows_to_host(const SeriesView& s, double* z) const override {
    const auto& rows = cpu_storage(s);
    const size_t count = static_cast<size_t>(s.n * s.t);
    if (s.precision == FC_PRECISION_FP64)
      std::copy(rows.f64.get(), rows.f64.get() + count, z);
    else
      std::copy(rows.f32.get(), rows.f32.get() + count, z);
    return true;
  }
  void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) override {
    auto& s = static_cast<CpuSeries&>(storage);
    const int64_t begin = row_begin * s.t, count = rows * s.t;
    if (s.f64)
      std::copy(z, z + count, s.f64.get() + begin);
    else
      std::transform(z, z + count, s.f32.get() + begin, [](double v) { return static_cast<float>(v); });
  }

  // PCC: cpu_pcc.cpp.
  void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
            const RunSettings& run) override {
    cpu::triu(s, order, row_begin, row_end, out, run);
  }
  void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
             int64_t ld, const RunSettings& run) override {
    cpu::cross(a, b, a_begin, a_end, same_set, out, ld, run);
  }

  // Networks: cpu_graph.cpp. The whole calls are the row band [0, n); bands of any split at
  // multiples of kTileRows (the triangle grid's row tiles, anchored at row 0, whatever the memory
  // limit) are the whole call's tiles, so they join to its bits.
  void threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) override {
    cpu::threshold_edges(s, test, 0, s.n, out, run);
  }
  void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                        const RunSettings& run) override {
    cpu::threshold_degree(s, test, degree, strength, run);
  }
  void abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) override {
    counts.assign(static_cast<size_t>(kAbsHistogramBins), 0);
    cpu::abs_histogram_rows(s, 0, s.n, counts, run);
  }
  void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) override {
    cpu::top_k(s, k, 0, s.n, columns, values, run);
  }
  bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess, const RunSettings&) override {
    return cpu::density_guess(s, target, eligible, guess);
  }

  int64_t graph_row_granularity(const SeriesView&, const RunSettings&) const override { return kTileRows; }
  bool threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, UpperEdges& out,
                            const RunSettings& run) override {
    cpu::threshold_edges(s, test, row_begin, row_end, out, run);
    return true;
  }
  bool threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, int64_t* degree,
                             int64_t* strength_fixed, const RunSettings& run) override {
    cpu::threshold_degree_rows(s, test, row_begin, row_end, degree, strength_fixed, run);
    return true;
  }
  int strength_fraction_bits(const SeriesView& s) const override { return cpu::strength_fraction_bits(s.n); }
  bool abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                          const RunSettings& run) override {
    cpu::abs_histogram_rows(s, row_begin, row_end, counts, run);
    return true;
  }
  bool top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns, float* values,
                  const RunSettings& run) override {
    cpu::top_k(s, k, row_begin, row_end, columns, values, run);
    return true;
  }

  // Windows and low rank: cpu_window.cpp.
  std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length, const double* weights,
                                               uint8_t* constant, const RunSettings& run) override {
    return cpu::create_window(s, begin, length, weights, constant, run);
  }
  void gram(const SeriesView& s, double* gram, const RunSettings& run) override { cpu::gram(s, gram, run); }
  void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) override {
    cpu::project(s, basis, l, factor, run);
  }

  // Centrality: cpu_centrality.cpp.
  void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) override {
    cpu::gram_product(s, x, y, run);
  }

  // Partial correlation: cpu_partial.cpp.
  double partial_upper(const SeriesView& s, const PartialRequest& request, double* upper, const RunSettings& run) override {
    return cpu::partial_upper(s, request, upper, run);
  }
  // src/lfcd grows the clusters on the host, from the rows themselves (rows_to_host).
  std::unique_ptr<LfcdRun> lfcd_run(const SeriesView&, const LfcdGrid&, const RunSettings&) override { return nullptr; }

};

}  // namespace

std::shared_ptr<Backend> make_cpu_backend() { return std::make_shared<CpuBackend>(); }

}  // namespace fc
