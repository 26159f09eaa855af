// One backend over several (a context over several GPUs of one host, issue 33; or, as a testing
// aid, over several CPU backends: FASTCONN_SPLIT_CPU, context/context.cpp). Generic: no CUDA type
// here, the parts are Backends.
//
// Series are stored on every part (uploaded once per part, the parts in parallel). The calls whose
// work splits by rows run one band per part at once (base/part_threads.hpp: a host thread per
// part, progress relayed to the caller's thread, the first failure named by its part):
//   triu          row ranges of equal pair counts, each part writing its contiguous slice of the
//                 ordered triangle at its closed-form offset (base/triangle_index.hpp);
//   triu_windows  contiguous groups of windows, group k's output at out + k * per_window;
//   cross         ranges of a's rows;
//   threshold_edges / threshold_graph / threshold_degree / abs_histogram / top_k
//                 through the row bands of graph_backend.hpp when every part offers them (else
//                 the whole call runs on the primary part), joined in band order.
// Sliding-window graphs (fc_dfc_next_graph) go a window per part: dfc/window_graphs.hpp makes
// window k + i on part i alone (view_on, the part's create_window) and builds its graph on a
// context of that part (threshold_graph_device / threshold_graph of the part, not of the split),
// D windows at once through run_on_parts; so this backend's own graph members see none of them.
// Each product of a pair is computed the same way on every part and whatever the band (FP32 and
// FP64: one answer per pair, gemm.hpp / cpu_tiles.hpp), so the split gives the one part's bits.
// In TF32 mode the PCC family runs whole on the primary part (split_backend.cpp says why).
// Everything else (modules' engines, centrality products and eigenspaces, partial correlation,
// lFCD, gram / project, a lone graph kept on the device, rows_to_host) and every output in device memory
// (Output::on_device) runs on the primary part (parts[0]). The memory limit applies per part.
#pragma once

#include "base/part_threads.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace fc {

// A series set stored on every part: parts[i] is part i's storage.
class SplitSeries : public SeriesStorage {
 public:
  std::vector<std::unique_ptr<SeriesStorage>> parts;
};

class SplitBackend : public Backend {
 public:
  // labels[i] names part i in messages ("device 1"); before_split (may be empty) runs on the
  // calling thread before work goes to the other parts (CUDA: waits for the caller's stream).
  SplitBackend(std::vector<std::shared_ptr<Backend>> parts, std::vector<std::string> labels,
               std::function<void()> before_split = {});

  Backend& primary() const { return *parts_[0]; }
  const std::vector<std::shared_ptr<Backend>>& parts() const { return parts_; }

  fc_backend kind() const override { return parts_[0]->kind(); }
  std::string describe() const override;  // every part: "2 parts: device 0 (...); device 1 (...)"

  // --- storage (every part) and the PCC family (split by rows)
  int64_t block_row_granularity() const override { return parts_[0]->block_row_granularity(); }
  std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) override;
  void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) override;
  bool rows_to_host(const SeriesView& s, double* z) const override;
  void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
            const RunSettings& run) override;
  bool triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length, const double* weights,
                    fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out, int64_t per_window,
                    const RunSettings& run) override;
  void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
             int64_t ld, const RunSettings& run) override;

  // --- networks (split_graph.cpp)
  void threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) override;
  std::unique_ptr<DeviceCsr> threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                    const RunSettings& run) override;
  void copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) override;
  bool threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr, UpperEdges& edges,
                       const RunSettings& run) override;
  void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                        const RunSettings& run) override;
  void abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) override;
  bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess, const RunSettings& run) override;
  void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) override;
  // The bands of a split backend are its primary's (a split of splits is never made).
  int64_t graph_row_granularity(const SeriesView& s, const RunSettings& run) const override;
  bool threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                            UpperEdges& out, const RunSettings& run) override;
  bool threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                             int64_t* degree, int64_t* strength_fixed, const RunSettings& run) override;
  int strength_fraction_bits(const SeriesView& s) const override;
  bool abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                          const RunSettings& run) override;
  bool top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns, float* values,
                  const RunSettings& run) override;

  // --- windows (made on every part), low rank on the primary
  std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length, const double* weights,
                                               uint8_t* constant, const RunSettings& run) override;
  void gram(const SeriesView& s, double* gram, const RunSettings& run) override;
  void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) override;

  // --- modules, centrality, partial correlation, lFCD: on the primary
  std::unique_ptr<GroupProducts> group_products(const SymmetricCsr& g, int64_t n, double c_pos, double c_neg,
                                                int engines, const RunSettings& run) override;
  std::unique_ptr<LeidenEngine> leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                              const RunSettings& run) override;
  void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) override;
  std::unique_ptr<EigenSpace> gram_space(const SeriesView& s, const double* member, int64_t slots,
                                         const RunSettings& run) override;
  double partial_upper(const SeriesView& s, const PartialRequest& request, double* upper, const RunSettings& run) override;
  std::unique_ptr<LfcdRun> lfcd_run(const SeriesView& s, const LfcdGrid& grid, const RunSettings& run) override;

  // "device 1 (CUDA (NVIDIA H100 ..., cuBLAS))": how messages name part i.
  std::string part_name(size_t i) const;

  // s as part i stores it (the same view with part i's storage).
  SeriesView view_on(size_t part, const SeriesView& s) const;

  // Runs work(part, run_part) for every part at once (base/part_threads.hpp), after before_split.
  void run_on_parts(const RunSettings& run, const std::function<void(size_t, const RunSettings&)>& work) const;

  // One row band per part of about equal work (base/row_bands.hpp's equal_bands).
  std::vector<int64_t> bands(int64_t begin, int64_t end, int64_t granularity,
                             const std::function<int64_t(int64_t)>& offset_of) const;

 private:
  std::vector<std::shared_ptr<Backend>> parts_;
  std::vector<std::string> labels_;
  std::function<void()> before_split_;
  // The parts' threads, kept from the first run_on_parts (base/part_threads.hpp says why); null
  // until then, and when they could not start (each run then starts its own).
  mutable std::unique_ptr<PartThreads> threads_;
  mutable bool threads_tried_ = false;
};

// A SplitBackend when parts.size() >= 2, else parts[0].
std::shared_ptr<Backend> make_split_backend(std::vector<std::shared_ptr<Backend>> parts, std::vector<std::string> labels,
                                            std::function<void()> before_split = {});

}  // namespace fc
