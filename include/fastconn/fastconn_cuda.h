/* fastconn_cuda.h - the CUDA extensions of fastconn.h: outputs that stay on the GPU, and the
 * caller's CUDA stream. The only public place for device pointers and streams.
 *
 * Every function here needs a context created with FC_BACKEND_CUDA (or FC_BACKEND_AUTO that
 * chose CUDA); on any other it returns FC_ERR_INVALID_ARG. Every build exports these functions, so
 * a program links against a build with or without CUDA: in a build without the CUDA backend
 * (fc_has_cuda() returns 0) no context runs on CUDA, and each function, once its arguments pass
 * their checks (NULL, enum values), returns FC_ERR_BACKEND_UNAVAILABLE.
 *
 * Streams: a computation is ordered after the work already queued on the context's stream
 * (default: the legacy default stream, NULL), runs on the backend's own streams, and returns once
 * its output is complete, so the caller may use the output on any stream right after.
 *
 * Devices: every fastconn call restores the caller's current CUDA device before it returns,
 * whatever device the context computes on.
 *
 * Several devices: fc_context_create_cuda_devices makes one context over several GPUs of a host
 * (below); everything in this header then addresses its primary device.
 *
 * This header is plain C99 and needs no CUDA header: cudaStream_t is `struct CUstream_st*`, so a
 * cudaStream_t is passed as is.
 */
#ifndef FASTCONN_CUDA_H
#define FASTCONN_CUDA_H

#include "fastconn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st; /* the type cudaStream_t points to */

/* A context over several CUDA devices of this host: `devices` lists n_devices distinct ids, each
 * in [0, cudaGetDeviceCount()), the first being the primary device; devices = NULL with
 * n_devices = 0 takes every visible device (0 first). With one device it is exactly
 * fc_context_create(FC_BACKEND_CUDA, id, out). fc_context_get_backend gives FC_BACKEND_CUDA.
 *
 * What splits across the devices, each computing its share at once and copying to the host over
 * its own link (the series are uploaded once to every device):
 *   - fc_pcc_triu / _f64 / _compact, fc_pcc_blocks_* and fc_dfc_next_triu: bands of the
 *     triangle's rows of equal pair counts, each written at its closed-form offset;
 *   - fc_pcc_dense and fc_pcc_cross: ranges of the rows;
 *   - fc_dfc_triu (all windows): contiguous groups of windows, one group per device;
 *   - graphs, degree and strength, the density rule's histogram and top-k (fc_pcc_graph,
 *     fc_pcc_degree, fc_dfc_degree): bands of rows, joined in row order (degree and strength
 *     summed as exact integers), when the backend offers row bands; else on the primary device;
 *   - fc_dfc_next_graph (sliding-window graphs): a window per device. The call for window k
 *     builds the graphs of windows k .. k + D - 1 (D devices, those that exist) at once, window
 *     k + i wholly on the i-th device, each as that device alone builds it, and keeps the D - 1
 *     later graphs in host memory for the next calls, which take them when they ask for the same
 *     rule, param, weights and settings (else they are dropped; fc_dfc_next_triu drops them too).
 *     Without a memory limit each device also builds its window of the next batch (k + D + i)
 *     while it copies the current one out, as a one-device iterator builds window k + 1 (a
 *     graph's bits do not depend on it). Its progress is the batch's work within window k's
 *     share of the job.
 * What stays on the primary device: modularity, Leiden and multilayer modules, centrality (fast
 * and thresholded ECM), partial correlation, lFCD, low rank, and every output in device memory
 * (the *_device calls of this header: `out` must be memory of the primary device).
 * Results: the same bits as the primary device alone (fc_context_create(FC_BACKEND_CUDA,
 * primary)), always: in FP32 and FP64 every call above splits; in TF32 mode (where cuBLAS's
 * tensor-core GEMMs may round a pair differently for another band shape) the triangle, dense,
 * cross and network calls run whole on the primary device; fc_dfc_next_graph builds each window
 * wholly on one device in every mode (the devices of one model give the primary's bits).
 * The memory limit (fc_context_set_memory_limit) applies to each device; fc_context_set_threads
 * to each device's host threads. Progress is reported from the calling thread, summed over the
 * devices; a cancel stops every device. A failure on any device fails the call with that
 * device's error, its message starting "device <id> (<name>): ", and every device stays usable.
 * The context's stream (fc_context_set_cuda_stream) is a stream of the primary device: the
 * primary's work is ordered after it on the device, the other devices start once the work
 * queued on it has finished (the call waits for it on the host).
 * Errors: n_devices < 0, a negative, repeated or out-of-range id (named, with the device count):
 * FC_ERR_INVALID_ARG; no device or a build without CUDA: FC_ERR_BACKEND_UNAVAILABLE.
 *
 *   int two[2] = {0, 1}, ids[8], n = 0;
 *   fc_context* ctx = NULL;
 *   if (fc_context_create_cuda_devices(two, 2, &ctx) != FC_OK)      (or NULL, 0: every GPU)
 *     fprintf(stderr, "%s\n", fc_last_error());
 *   fc_context_get_cuda_devices(ctx, ids, 8, &n);                  (n = 2, ids = {0, 1})
 *   fc_series_create_f32(ctx, data, N, T, T, 1, &s);
 *   fc_pcc_triu(ctx, s, FC_TRIU_ROW, out, fc_triu_size(N));        (half the rows on each GPU)
 *   fc_series_destroy(s); fc_context_destroy(ctx);
 */
FC_API fc_status fc_context_create_cuda_devices(const int* devices, int n_devices, fc_context** out);

/* The context's devices, the primary first (one for a single-device CUDA context): *n_devices
 * gets the count; `devices` (capacity entries) the ids. A capacity short of the count returns
 * FC_ERR_BUFFER_TOO_SMALL with *n_devices set and devices untouched (capacity 0 with devices =
 * NULL asks for the count). */
FC_API fc_status fc_context_get_cuda_devices(const fc_context* ctx, int* devices, int capacity, int* n_devices);

/* Order later computations of ctx after the work queued on `stream` (NULL: the legacy default
 * stream). The stream must stay valid while the context uses it. On a context over several
 * devices the stream is one of the primary device (see fc_context_create_cuda_devices). */
FC_API fc_status fc_context_set_cuda_stream(fc_context* ctx, struct CUstream_st* stream);
FC_API fc_status fc_context_get_cuda_stream(const fc_context* ctx, struct CUstream_st** out);

/* The CUDA device index the context computes on (the primary device of a context over several). */
FC_API fc_status fc_context_get_cuda_device(const fc_context* ctx, int* out);

/* Device-pointer variants of fc_pcc_triu, fc_pcc_triu_f64, fc_pcc_dense and fc_pcc_cross: same
 * values, same layouts, same arguments, but `out` is device memory of the context's device
 * (cudaMalloc or managed). Nothing crosses to the host: the bound is the GEMM rate. */
FC_API fc_status fc_pcc_triu_device(fc_context* ctx, const fc_series* series, fc_triu_order order,
                                    float* out, int64_t capacity);
FC_API fc_status fc_pcc_triu_device_f64(fc_context* ctx, const fc_series* series,
                                        fc_triu_order order, double* out, int64_t capacity);
FC_API fc_status fc_pcc_dense_device(fc_context* ctx, const fc_series* series, float* out,
                                     int64_t ld);
FC_API fc_status fc_pcc_cross_device(fc_context* ctx, const fc_series* a, const fc_series* b,
                                     float* out, int64_t ld);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FASTCONN_CUDA_H */
