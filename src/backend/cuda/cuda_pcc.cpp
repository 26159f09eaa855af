// The CUDA backend's PCC capability (backend/pcc_backend.hpp): the ordered triangle, the windows'
// triangles and cross blocks, one band at a time through band_pipeline (cuBLAS products, a kernel
// finishing each band, copies out while the next bands compute).
#include "backend/cuda/cuda_backend_class.hpp"

namespace fc {
namespace cuda {

// The stored rows copied to the host and widened: the same float or double rows as the CPU
// backend stores (upload_rows narrows as it does), so host computations on them give its bits.
bool CudaBackend::rows_to_host(const SeriesView& s, double* z) const {
  DeviceScope scope(device_);
  const CudaSeries& st = storage_of(s);
  const size_t count = static_cast<size_t>(s.n) * static_cast<size_t>(s.t);
  // A window's rows are written by a kernel on one of the backend's streams: wait for all of them.
  FC_CUDA(cudaDeviceSynchronize());
  if (st.f64) {
    FC_CUDA(cudaMemcpy(z, st.rows.get<double>(), count * sizeof(double), cudaMemcpyDeviceToHost));
  } else {
    std::vector<float> narrow(count);
    FC_CUDA(cudaMemcpy(narrow.data(), st.rows.get<float>(), count * sizeof(float), cudaMemcpyDeviceToHost));
    std::copy(narrow.begin(), narrow.end(), z);
  }
  return true;
}

void CudaBackend::triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                       const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  const uint8_t* constant = constant_flags(s);
  set_math_mode(run, storage_of(s).f64);
  const cuda::Operand z = operand(s, run);
  const int64_t slice = cuda::triu_start(s.n, order, row_end) - cuda::triu_start(s.n, order, row_begin);
  triangles(s.n, storage_of(s).f64, order, row_begin, row_end, out, slice, 1,
            [&](int64_t, bool, cudaStream_t) { return std::make_pair(z, constant); }, run);
}

bool CudaBackend::triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length,
                               const double* weights, fc_triu_order order, int64_t row_begin, int64_t row_end,
                               const Output& out, int64_t per_window, const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  const CudaSeries& src = storage_of(s);
  const int64_t n = s.n, count = static_cast<int64_t>(begins.size());
  if (count == 0) return true;
  const size_t elem = src.f64 ? 8 : 4;
  const bool kmajor = src.f64 || run.precision != FC_PRECISION_TF32;  // operand(): TF32 reads the rows
  const int64_t t_pad = kernels::kmajor_t_pad(length), ld = kernels::kmajor_ld(n);
  // Each window's rows, k-major copy and flags start on a 256-byte boundary, as cudaMalloc's do.
  auto aligned = [](int64_t bytes) { return (bytes + 255) / 256 * 256; };
  const int64_t rows_stride = aligned(n * length * static_cast<int64_t>(elem));
  const int64_t zt_stride = kmajor ? aligned(t_pad * ld * static_cast<int64_t>(elem)) : 0, flags_stride = aligned(n);
  const int64_t window_bytes = rows_stride + zt_stride + flags_stride;
  // Windows held at once: what kWindowGroupBytes (or half a memory limit) holds, at least one.
  constexpr int64_t kWindowGroupBytes = int64_t(256) << 20;
  const cuda::WorkBudget budget = work_budget(run);
  const int64_t group_bytes = budget.user_limit ? std::min(kWindowGroupBytes, budget.bytes / 2) : kWindowGroupBytes;
  const int64_t group = std::max<int64_t>(1, std::min(count, group_bytes / std::max<int64_t>(1, window_bytes)));
  // Kept from the last call when large enough (a cudaFree waits for the whole device, and the
  // allocations cost more than a run of small windows' work).
  WindowGroup& kept = window_group_;
  auto room = [&](cuda::DeviceBuffer& b, int64_t bytes) {
    if (static_cast<int64_t>(b.bytes()) >= bytes) return true;
    b.release();
    return b.try_allocate(device_, static_cast<size_t>(bytes));
  };
  if (!room(kept.rows, group * rows_stride) || (kmajor && !room(kept.zt, group * zt_stride)) ||
      !room(kept.flags, group * flags_stride) ||
      (weights != nullptr && !room(kept.weights, length * static_cast<int64_t>(sizeof(double))))) {
    kept = WindowGroup();
    return false;  // out of device memory: the caller makes one window at a time
  }
  cuda::DeviceBuffer &rows = kept.rows, &zt = kept.zt, &flags = kept.flags, &device_weights = kept.weights;
  // The taper's weights on the device, or null for rectangular windows (the kept buffer may
  // still hold an earlier call's taper).
  const double* const taper = weights != nullptr ? device_weights.get<double>() : nullptr;
  if (weights != nullptr) {
    FC_CUDA(cudaMemcpyAsync(device_weights.get(), weights, static_cast<size_t>(length) * sizeof(double),
                            cudaMemcpyHostToDevice, res_->copy_stream()));
    FC_CUDA(cudaStreamSynchronize(res_->copy_stream()));
  }
  std::vector<std::unique_ptr<cuda::Event>>& ready = kept.ready;  // the window-by-window path's
  set_math_mode(run, src.f64);
  const size_t out_elem = value_bytes(out.type);
  for (int64_t g0 = 0; g0 < count; g0 += group) {
    const int64_t g1 = std::min(count, g0 + group);
    Output part = out;
    part.data = static_cast<char*>(out.data) + static_cast<size_t>(g0 * per_window) * out_elem;
    const WindowStore store{rows.get<char>(), kmajor ? zt.get<char>() : nullptr, flags.get<uint8_t>(), rows_stride,
                            zt_stride, flags_stride, taper};
    if (batched_triangles(src, s.t, begins, g0, g1, length, store, order, row_begin, row_end, part, per_window, run))
      continue;
    while (static_cast<int64_t>(ready.size()) < g1 - g0) ready.push_back(std::make_unique<cuda::Event>());
    triangles(n, src.f64, order, row_begin, row_end, part, per_window, g1 - g0,
              [&](int64_t j, bool first, cudaStream_t stream) {
                char* const w_rows = rows.get<char>() + j * rows_stride;
                uint8_t* const w_flags = flags.get<uint8_t>() + j * flags_stride;
                cuda::Operand z;
                z.rows = w_rows;
                z.t = length;
                z.t_pad = t_pad;
                z.ld = ld;
                z.f64 = src.f64;
                char* const w_kmajor = kmajor ? zt.get<char>() + j * zt_stride : nullptr;
                z.kmajor = w_kmajor;
                cudaEvent_t made = ready[static_cast<size_t>(j)]->get();
                if (!first) {
                  FC_CUDA(cudaStreamWaitEvent(stream, made, 0));
                  return std::make_pair(z, static_cast<const uint8_t*>(w_flags));
                }
                const kernels::WindowShape ks{n, s.t, begins[static_cast<size_t>(g0 + j)], length};
                const double* wd = taper;
                cudaError_t launched =
                    src.f64 ? kernels::window_normalize(src.rows.get<double>(), ks, wd, reinterpret_cast<double*>(w_rows), w_flags, stream)
                            : kernels::window_normalize(src.rows.get<float>(), ks, wd, reinterpret_cast<float*>(w_rows), w_flags, stream);
                cuda::check_cuda(launched, "window_normalize kernel launch");
                if (kmajor) {
                  launched = src.f64 ? kernels::transpose_pad(reinterpret_cast<const double*>(w_rows), n, length,
                                                              reinterpret_cast<double*>(w_kmajor), ld, t_pad, stream)
                                     : kernels::transpose_pad(reinterpret_cast<const float*>(w_rows), n, length,
                                                              reinterpret_cast<float*>(w_kmajor), ld, t_pad, stream);
                  cuda::check_cuda(launched, "transpose_pad kernel launch");
                }
                FC_CUDA(cudaEventRecord(made, stream));
                return std::make_pair(z, static_cast<const uint8_t*>(w_flags));
              },
              run);
  }
  return true;
}

void CudaBackend::cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set,
                        const Output& out, int64_t ld, const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(a);
  check_int_range(b);
  if (ld > std::numeric_limits<int>::max())
    fail(FC_ERR_INVALID_ARG, "ld " + std::to_string(ld) + " exceeds the 32-bit leading dimension cuBLAS takes");
  const CudaSeries& sa = storage_of(a);
  const int64_t nb = b.n, rows_total = a_end - a_begin;
  if (rows_total <= 0 || nb <= 0) return;
  const size_t out_elem = value_bytes(out.type);
  const size_t span = static_cast<size_t>((rows_total - 1) * ld + nb) * out_elem;
  const Destination dest = destination(out, span);
  const uint8_t* ca = constant_flags(a);
  const uint8_t* cb = constant_flags(b);

  // A float device output of float products takes them directly and is finished in place: no tile.
  const bool direct = dest == Destination::Device && !sa.f64 && out.type == ScalarType::F32;
  const size_t tile_elem = direct ? 0 : (sa.f64 ? 8 : 4);
  const int64_t tile_values = plan_tiles(run, nb, tile_elem, dest == Destination::Device ? 0 : out_elem,
                                         "cross PCC against " + std::to_string(nb) + " series");

  std::vector<cuda::CrossBand> bands;
  std::vector<cuda::BandTransfer> transfers;
  for (int64_t i = a_begin; i < a_end;) {
    const cuda::CrossBand cb_ = cuda::next_cross_band(i, a_end, nb, tile_values);
    bands.push_back(cb_);
    cuda::BandTransfer t;
    t.rows = cb_.a1 - cb_.a0;
    t.width = nb;
    t.values = t.rows * nb;
    t.dst_offset = (cb_.a0 - a_begin) * ld;
    t.dst_pitch = ld;
    transfers.push_back(t);
    i = cb_.a1;
  }
  set_math_mode(run, sa.f64);
  const cuda::Operand za = operand(a, run), zb = operand(b, run);

  char* const out_base = static_cast<char*>(out.data);
  const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t blas, void* tile, void* packed) {
    const cuda::CrossBand& band = bands[k];
    const int64_t rows = band.a1 - band.a0;
    char* const final_rows = out_base + static_cast<size_t>((band.a0 - a_begin) * ld) * out_elem;
    void* const dst = packed != nullptr ? packed : final_rows;
    const int64_t ld_dst = packed != nullptr ? nb : ld;
    // the products: in the tile, or (direct) in the output rows themselves
    void* const products = direct ? final_rows : tile;
    const int64_t ld_products = direct ? ld : nb;
    cuda::pair_products(blas, zb, 0, nb, za, band.a0, rows, products, ld_products);
    const kernels::CrossBand kb{band.a0, rows, nb, ld_products, ld_dst, same_set ? 1 : 0};
    with_value_type(out.type, [&](auto type) {
      using O = decltype(type);
      const O fill = policy_value<O>(run.constant_policy);
      const cudaError_t launched =
          sa.f64 ? kernels::cross_finish(static_cast<const double*>(products), kb, ca, cb, fill, static_cast<O*>(dst), stream)
                 : kernels::cross_finish(static_cast<const float*>(products), kb, ca, cb, fill, static_cast<O*>(dst), stream);
      cuda::check_cuda(launched, "cross_finish kernel launch");
    });
  };
  cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
}

void CudaBackend::pack_band(const void* tile, bool f64, ScalarType out_type, const kernels::TriuBand& kb,
                            const uint8_t* constant, fc_constant_policy policy, void* dst, cudaStream_t stream,
                            const kernels::TriuBatch& batch) {
  with_value_type(out_type, [&](auto out) {
    using Out = decltype(out);
    auto pack = [&](auto in) {
      using In = decltype(in);
      cuda::check_cuda(kernels::triu_extract(static_cast<const In*>(tile), kb, constant, policy_value<Out>(policy),
                                             static_cast<Out*>(dst), stream, batch),
                       "triu_extract kernel launch");
    };
    if (f64) pack(double());
    else pack(float());
  });
}

bool CudaBackend::batched_triangles(const CudaSeries& src, int64_t t, const std::vector<int64_t>& begins, int64_t g0,
                                    int64_t g1, int64_t length, const WindowStore& store, fc_triu_order order,
                                    int64_t row_begin, int64_t row_end, const Output& out, int64_t per_window,
                                    const RunSettings& run) {
  const int64_t n = src.n, count = g1 - g0;
  if (store.kmajor == nullptr || count < 2 || row_end <= row_begin) return false;
  const int64_t step = begins[static_cast<size_t>(g0 + 1)] - begins[static_cast<size_t>(g0)];
  for (int64_t j = g0 + 1; j < g1; ++j)
    if (begins[static_cast<size_t>(j)] - begins[static_cast<size_t>(j - 1)] != step) return false;
  const size_t out_elem = value_bytes(out.type), elem = src.f64 ? 8 : 4;
  const int64_t slice = cuda::triu_start(n, order, row_end) - cuda::triu_start(n, order, row_begin);
  const Destination dest = destination(out, static_cast<size_t>((count - 1) * per_window + slice) * out_elem);
  const int64_t tile_values = plan_tiles(run, order == FC_TRIU_ROW ? n - 1 - row_begin : row_end - 1, elem, dest == Destination::Device ? 0 : out_elem,
                                         "PCC of " + std::to_string(n) + " series");
  const cuda::TriuBand b = cuda::next_triu_band(n, order, row_begin, row_end, row_begin, tile_values);
  if (b.q1 != row_end) return false;  // the rows take more than one band
  const int64_t band_values = (b.q1 - b.q0) * b.ld;
  const int64_t fit = std::min<int64_t>(tile_values / band_values, 65535);
  // Past a quarter of a tile a window's products are long enough to hide their launches (N =
  // 5000 runs at the copy floor window by window, bench/RESULTS-gpu.md).
  if (fit < 4) return false;
  // About 16 batches, so that the copies out overlap the next batches' work; at least 2 windows
  // each.
  const int64_t per_batch = std::min(fit, std::max<int64_t>(2, (count + 15) / 16));
  std::vector<cuda::BandTransfer> transfers;
  for (int64_t j0 = 0; j0 < count; j0 += per_batch) {
    cuda::BandTransfer tr;
    tr.rows = std::min(per_batch, count - j0);
    tr.width = slice;
    tr.values = tr.rows * slice;
    tr.dst_offset = j0 * per_window;
    tr.dst_pitch = per_window;
    transfers.push_back(tr);
  }
  const int64_t t_pad = kernels::kmajor_t_pad(length), ld = kernels::kmajor_ld(n);
  char* const out_base = static_cast<char*>(out.data);
  const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t, void* tile, void* packed) {
    const int64_t j0 = static_cast<int64_t>(k) * per_batch, m = transfers[k].rows;
    char* const w_rows = store.rows + j0 * store.rows_stride;
    char* const w_kmajor = store.kmajor + j0 * store.zt_stride;
    uint8_t* const w_flags = store.flags + j0 * store.flags_stride;
    const kernels::WindowShape ks{n, t, begins[static_cast<size_t>(g0 + j0)], length};
    const kernels::WindowBatch wb{m, step, store.rows_stride / static_cast<int64_t>(elem), store.flags_stride};
    const kernels::SeriesBatch tb{m, store.rows_stride / static_cast<int64_t>(elem), store.zt_stride / static_cast<int64_t>(elem)};
    const kernels::SeriesBatch pb{m, store.zt_stride / static_cast<int64_t>(elem), band_values};
    auto make_and_multiply = [&](auto type) {
      using T = decltype(type);
      cuda::check_cuda(kernels::window_normalize(src.rows.get<T>(), ks, wb, store.weights, reinterpret_cast<T*>(w_rows),
                                                 w_flags, stream),
                       "window_normalize kernel launch");
      cuda::check_cuda(kernels::transpose_pad(reinterpret_cast<const T*>(w_rows), n, length, reinterpret_cast<T*>(w_kmajor),
                                              ld, t_pad, stream, tb),
                       "transpose_pad kernel launch");
      cuda::check_cuda(kernels::pair_products(reinterpret_cast<const T*>(w_kmajor), ld, b.p0, b.ld,
                                              reinterpret_cast<const T*>(w_kmajor), ld, b.q0, b.q1 - b.q0, t_pad,
                                              static_cast<T*>(tile), b.ld, stream, pb),
                       "pair_products kernel launch");
    };
    if (src.f64) make_and_multiply(double());
    else make_and_multiply(float());
    // Host outputs: the batch's triangles one after another in `packed`; a device output takes
    // them in place.
    void* dst = packed != nullptr ? packed : out_base + static_cast<size_t>(transfers[k].dst_offset) * out_elem;
    const kernels::TriuBand kb{n, b.q0, b.q1 - b.q0, b.p0, b.ld, order == FC_TRIU_ROW ? 0 : 1};
    const kernels::TriuBatch xb{m, band_values, store.flags_stride, packed != nullptr ? slice : per_window};
    pack_band(tile, src.f64, out.type, kb, w_flags, run.constant_policy, dst, stream, xb);
  };
  cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
  return true;
}

template <class Prepare>
void CudaBackend::triangles(int64_t n, bool f64, fc_triu_order order, int64_t row_begin, int64_t row_end,
                            const Output& out, int64_t per_window, int64_t count, Prepare&& prepare,
                            const RunSettings& run) {
  const size_t out_elem = value_bytes(out.type);
  const int64_t slice = cuda::triu_start(n, order, row_end) - cuda::triu_start(n, order, row_begin);
  const Destination dest = destination(out, static_cast<size_t>((count - 1) * per_window + slice) * out_elem);

  // The widest row of this run needs the most tile columns.
  const int64_t widest = order == FC_TRIU_ROW ? n - 1 - row_begin : row_end - 1;
  const size_t tile_elem = f64 ? 8 : 4;
  const int64_t tile_values = plan_tiles(run, widest, tile_elem, dest == Destination::Device ? 0 : out_elem,
                                         "PCC of " + std::to_string(n) + " series");

  std::vector<cuda::TriuBand> bands;
  for (int64_t q = row_begin; q < row_end;) {
    bands.push_back(cuda::next_triu_band(n, order, q, row_end, row_begin, tile_values));
    q = bands.back().q1;
  }
  const size_t per_series = bands.size();
  std::vector<cuda::BandTransfer> transfers;
  for (int64_t j = 0; j < count; ++j)
    for (const cuda::TriuBand& b : bands) {
      cuda::BandTransfer t;
      t.values = t.width = t.dst_pitch = b.count;
      t.dst_offset = j * per_window + b.offset;
      transfers.push_back(t);
    }

  char* const out_base = static_cast<char*>(out.data);
  const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t blas, void* tile, void* packed) {
    const int64_t j = static_cast<int64_t>(k / per_series);
    const cuda::TriuBand& b = bands[k % per_series];
    const auto [z, constant] = prepare(j, k % per_series == 0, stream);
    const int64_t rows = b.q1 - b.q0;
    void* dst = packed != nullptr ? packed : out_base + static_cast<size_t>(transfers[k].dst_offset) * out_elem;
    const kernels::TriuBand kb{n, b.q0, rows, b.p0, b.ld, order == FC_TRIU_ROW ? 0 : 1};
    cuda::gemm_triangle_band(blas, b, z, tile);
    pack_band(tile, f64, out.type, kb, constant, run.constant_policy, dst, stream, kernels::TriuBatch());
  };
  cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
}

}  // namespace cuda
}  // namespace fc
