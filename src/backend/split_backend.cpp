// SplitBackend: storage on every part, the PCC family split by rows, and the members that run on
// the primary part (split_graph.cpp: the networks).
#include "backend/split_backend.hpp"

#include <algorithm>
#include <cassert>

#include "backend/output_values.hpp"
#include "base/error.hpp"
#include "base/part_threads.hpp"
#include "base/row_bands.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

const SplitSeries& split_storage(const SeriesView& s) { return static_cast<const SplitSeries&>(*s.storage); }

// out advanced by `values` values of its type (host or device memory alike).
Output shifted(const Output& out, int64_t values) {
  Output o = out;
  o.data = static_cast<char*>(out.data) + static_cast<size_t>(values) * value_bytes(out.type);
  return o;
}

}  // namespace

SplitBackend::SplitBackend(std::vector<std::shared_ptr<Backend>> parts, std::vector<std::string> labels,
                           std::function<void()> before_split)
    : parts_(std::move(parts)), labels_(std::move(labels)), before_split_(std::move(before_split)) {
  if (parts_.empty() || labels_.size() != parts_.size()) fail(FC_ERR_INTERNAL, "a split backend needs a label per part");
}

std::string SplitBackend::describe() const {
  std::string text = std::to_string(parts_.size()) + " parts: ";
  for (size_t i = 0; i < parts_.size(); ++i) text += (i > 0 ? "; " : "") + part_name(i);
  return text;
}

std::string SplitBackend::part_name(size_t i) const { return labels_[i] + " (" + parts_[i]->describe() + ")"; }

SeriesView SplitBackend::view_on(size_t part, const SeriesView& s) const {
  SeriesView v = s;
  v.storage = split_storage(s).parts[part].get();
  return v;
}

void SplitBackend::run_on_parts(const RunSettings& run, const std::function<void(size_t, const RunSettings&)>& work) const {
  if (before_split_) {
    try {
      before_split_();
    } catch (const Error& e) {  // the wait is the primary device's
      throw Error(e.status(), part_name(0) + ": " + e.what());
    }
  }
  if (!threads_tried_) {
    threads_tried_ = true;
    try {
      threads_ = std::make_unique<PartThreads>(static_cast<int>(parts_.size()));
    } catch (const std::exception&) {  // (std::system_error, std::bad_alloc): threads per run instead
      threads_.reset();
    }
  }
  run_parts(static_cast<int>(parts_.size()), run, [&](int i, const RunSettings& r) { work(static_cast<size_t>(i), r); },
            [&](int i) { return part_name(static_cast<size_t>(i)); }, threads_.get());
}

std::vector<int64_t> SplitBackend::bands(int64_t begin, int64_t end, int64_t granularity,
                                         const std::function<int64_t(int64_t)>& offset_of) const {
  return equal_bands(begin, end, static_cast<int64_t>(parts_.size()), granularity, offset_of);
}

std::unique_ptr<SeriesStorage> SplitBackend::create_series(int64_t n, int64_t t, fc_precision precision) {
  auto split = std::make_unique<SplitSeries>();
  for (const auto& part : parts_) split->parts.push_back(part->create_series(n, t, precision));
  return split;
}

void SplitBackend::upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) {
  auto& split = static_cast<SplitSeries&>(storage);
  const QuietRun quiet;
  run_on_parts(quiet.run, [&](size_t i, const RunSettings&) { parts_[i]->upload_rows(*split.parts[i], row_begin, rows, z); });
}

bool SplitBackend::rows_to_host(const SeriesView& s, double* z) const { return parts_[0]->rows_to_host(view_on(0, s), z); }

namespace {

// The PCC family's work stays whole on the primary part when its output lives there (device
// memory) or when bands could change bits: under TF32, cuBLAS's tensor-core GEMMs may round a pair
// differently for another band shape, and one context promises one part's bits always.
bool whole_on_primary(const SeriesView& s, const Output& out) { return out.on_device || s.precision == FC_PRECISION_TF32; }

}  // namespace

void SplitBackend::triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                        const RunSettings& run) {
  if (whole_on_primary(s, out)) {
    parts_[0]->triu(view_on(0, s), order, row_begin, row_end, out, run);
    return;
  }
  const int64_t n = s.n;
  auto offset_of = [&](int64_t r) { return order == FC_TRIU_ROW ? row_start(n, r) : col_start(r); };
  const std::vector<int64_t> b = bands(row_begin, row_end, parts_[0]->block_row_granularity(), offset_of);
  const int64_t first = offset_of(row_begin);
  run_on_parts(run, [&](size_t i, const RunSettings& r) {
    if (b[i] < b[i + 1])
      parts_[i]->triu(view_on(i, s), order, b[i], b[i + 1], shifted(out, offset_of(b[i]) - first), r);
  });
}

bool SplitBackend::triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length,
                                const double* weights, fc_triu_order order, int64_t row_begin, int64_t row_end,
                                const Output& out, int64_t per_window, const RunSettings& run) {
  if (whole_on_primary(s, out)) {
    const SeriesView v = view_on(0, s);
    return parts_[0]->triu_windows(v, begins, length, weights, order, row_begin, row_end, out, per_window, run);
  }
  const int64_t count = static_cast<int64_t>(begins.size()), p = static_cast<int64_t>(parts_.size());
  run_on_parts(run, [&](size_t i, const RunSettings& r) {
    const int64_t g0 = count * static_cast<int64_t>(i) / p, g1 = count * static_cast<int64_t>(i + 1) / p;
    if (g0 == g1) return;
    const std::vector<int64_t> group(begins.begin() + g0, begins.begin() + g1);
    const SeriesView v = view_on(i, s);
    const Output o = shifted(out, g0 * per_window);
    if (parts_[i]->triu_windows(v, group, length, weights, order, row_begin, row_end, o, per_window, r)) return;
    // This part has no such pass (or not the memory for it): its windows one at a time, made and
    // computed as the caller's own loop would (dfc.cpp), so the same bits.
    for (int64_t k = 0; k < g1 - g0; ++k) {
      std::vector<uint8_t> constant(static_cast<size_t>(s.n));
      const QuietRun quiet(r);
      const auto w = parts_[i]->create_window(v, group[static_cast<size_t>(k)], length, weights, constant.data(), quiet.run);
      SeriesView wv = v;
      wv.t = length;
      wv.constant = &constant;
      wv.n_constant = std::count(constant.begin(), constant.end(), uint8_t(1));
      wv.storage = w.get();
      parts_[i]->triu(wv, order, row_begin, row_end, shifted(o, k * per_window), r);
    }
  });
  return true;
}

void SplitBackend::cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set,
                         const Output& out, int64_t ld, const RunSettings& run) {
  if (whole_on_primary(a, out)) {
    parts_[0]->cross(view_on(0, a), view_on(0, b), a_begin, a_end, same_set, out, ld, run);
    return;
  }
  const std::vector<int64_t> rows =
      bands(a_begin, a_end, parts_[0]->block_row_granularity(), [](int64_t r) { return r; });
  // A same-set product in bands: every pair as a cross product gives it (one answer per pair,
  // pcc_backend.hpp), and the diagonal of a non-constant series is then set to exactly 1, as
  // same_set does (a constant one already has the policy's value). The CPU backend computes a
  // same-set product only whole.
  run_on_parts(run, [&](size_t i, const RunSettings& r) {
    if (rows[i] >= rows[i + 1]) return;
    const Output o = shifted(out, (rows[i] - a_begin) * ld);
    parts_[i]->cross(view_on(i, a), view_on(i, b), rows[i], rows[i + 1], false, o, ld, r);
    if (!same_set) return;
    with_value_type(out.type, [&](auto type) {
      using O = decltype(type);
      O* const dst = static_cast<O*>(o.data);
      for (int64_t row = rows[i]; row < rows[i + 1]; ++row)
        if (a.n_constant == 0 || (*a.constant)[static_cast<size_t>(row)] == 0)
          dst[(row - rows[i]) * ld + row] = kernels::Encode<O>::of(1.0);
    });
  });
}

std::unique_ptr<SeriesStorage> SplitBackend::create_window(const SeriesView& s, int64_t begin, int64_t length,
                                                           const double* weights, uint8_t* constant,
                                                           const RunSettings& run) {
  auto split = std::make_unique<SplitSeries>();
  split->parts.resize(parts_.size());
  // Each part writes its own flags; the caller gets the primary's (every part computes them the
  // same way, from the same stored rows).
  std::vector<std::vector<uint8_t>> flags(parts_.size());
  run_on_parts(run, [&](size_t i, const RunSettings& r) {
    uint8_t* dst = constant;
    if (i > 0) {
      flags[i].resize(static_cast<size_t>(s.n));
      dst = flags[i].data();
    }
    split->parts[i] = parts_[i]->create_window(view_on(i, s), begin, length, weights, dst, r);
  });
#ifndef NDEBUG
  for (size_t i = 1; i < parts_.size(); ++i) assert(std::equal(flags[i].begin(), flags[i].end(), constant));
#endif
  return split;
}

void SplitBackend::gram(const SeriesView& s, double* gram, const RunSettings& run) { parts_[0]->gram(view_on(0, s), gram, run); }

void SplitBackend::project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) {
  parts_[0]->project(view_on(0, s), basis, l, factor, run);
}

std::unique_ptr<GroupProducts> SplitBackend::group_products(const SymmetricCsr& g, int64_t n, double c_pos, double c_neg,
                                                            int engines, const RunSettings& run) {
  return parts_[0]->group_products(g, n, c_pos, c_neg, engines, run);
}

std::unique_ptr<LeidenEngine> SplitBackend::leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                                          const RunSettings& run) {
  return parts_[0]->leiden_engine(g, terms, run);
}

void SplitBackend::gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) {
  parts_[0]->gram_product(view_on(0, s), x, y, run);
}

std::unique_ptr<EigenSpace> SplitBackend::gram_space(const SeriesView& s, const double* member, int64_t slots,
                                                     const RunSettings& run) {
  return parts_[0]->gram_space(view_on(0, s), member, slots, run);
}

double SplitBackend::partial_upper(const SeriesView& s, const PartialRequest& request, double* upper,
                                   const RunSettings& run) {
  return parts_[0]->partial_upper(view_on(0, s), request, upper, run);
}

std::unique_ptr<LfcdRun> SplitBackend::lfcd_run(const SeriesView& s, const LfcdGrid& grid, const RunSettings& run) {
  return parts_[0]->lfcd_run(view_on(0, s), grid, run);
}

std::shared_ptr<Backend> make_split_backend(std::vector<std::shared_ptr<Backend>> parts, std::vector<std::string> labels,
                                            std::function<void()> before_split) {
  if (parts.size() == 1) return parts[0];
  return std::make_shared<SplitBackend>(std::move(parts), std::move(labels), std::move(before_split));
}

}  // namespace fc
