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

/* Order later computations of ctx after the work queued on `stream` (NULL: the legacy default
 * stream). The stream must stay valid while the context uses it. */
FC_API fc_status fc_context_set_cuda_stream(fc_context* ctx, struct CUstream_st* stream);
FC_API fc_status fc_context_get_cuda_stream(const fc_context* ctx, struct CUstream_st** out);

/* The CUDA device index the context computes on. */
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
