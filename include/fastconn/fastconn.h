/* fastconn.h - the public C API of fastconn: functional connectivity of fMRI time series.
 *
 * All-pairs Pearson correlation (PCC) of N series of T samples, computed in bounded memory on
 * a CPU (BLAS + OpenMP) or a CUDA GPU, behind one C99 header with opaque handles.
 *
 * Conventions
 *  - Every function returns fc_status, except the *_destroy functions (void; they accept NULL)
 *    and the version / string getters. FC_OK and FC_DONE are not errors; any value >= 100 is.
 *  - After a failure fc_last_error() returns a thread-local text naming what was wrong (the
 *    argument, the offending value, the series index). Outputs are not written on failure,
 *    except after FC_ERR_ABORTED (cancelled by the progress callback) or a device failure in
 *    the middle of a computation, where the contents of the output are unspecified.
 *  - Sizes and indices are int64_t: N(N-1)/2 passes 2^31 at N = 65,537 and 2^32 at N = 92,683.
 *  - A context is used by one thread at a time; different contexts may run concurrently.
 *  - Series, iterators and contexts are reference counted internally: destroying a context
 *    while its series or iterators are alive is safe; they stay usable until destroyed.
 *
 * Minimal use (R / MATLAB layout: T x N column-major, so series_stride = T, time_stride = 1):
 *
 *   fc_context* ctx; fc_series* s;
 *   fc_context_create(FC_BACKEND_AUTO, -1, &ctx);
 *   fc_series_create_f64(ctx, data, n, t, t, 1, &s);
 *   float* r = malloc(sizeof(float) * fc_triu_size(n));
 *   if (fc_pcc_triu(ctx, s, FC_TRIU_ROW, r, fc_triu_size(n)) != FC_OK)
 *     fprintf(stderr, "fastconn: %s\n", fc_last_error());
 *   fc_series_destroy(s); fc_context_destroy(ctx);
 *
 * This header is plain C99 (no bitfields, unions, structs passed by value, or nested structs),
 * so that MATLAB's loadlibrary and Python's cffi can parse it unmodified.
 */
#ifndef FASTCONN_H
#define FASTCONN_H

#include <stddef.h>
#include <stdint.h>

#include "fastconn_export.h"
#include "fastconn_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Enumerations. Values are explicit and only ever appended.
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_status {
  FC_OK = 0,                        /* success */
  FC_DONE = 1,                      /* an iterator has no more blocks (not an error) */
  FC_ERR_CUDA = 100,                /* a CUDA / cuBLAS call failed on the device */
  FC_ERR_OUT_OF_MEMORY = 101,       /* host or device allocation failed, or the memory limit is too small */
  FC_ERR_BACKEND_UNAVAILABLE = 102, /* the requested backend is not built in or has no device */
  FC_ERR_IO = 103,                  /* reading or writing a file failed */
  FC_ERR_NULL_ARG = 200,            /* a required pointer argument is NULL */
  FC_ERR_INVALID_ARG = 201,         /* an argument is out of range or inconsistent */
  FC_ERR_BUFFER_TOO_SMALL = 202,    /* the caller's output capacity is smaller than needed */
  FC_ERR_NONFINITE_INPUT = 203,     /* the input holds NaN or Inf (the message names the series) */
  FC_ERR_ABORTED = 300,             /* the progress callback asked to stop */
  FC_ERR_BAD_STATE = 301,           /* the handle cannot do this now (e.g. a finished iterator) */
  FC_ERR_INTERNAL = 900             /* a bug in fastconn: please report it with fc_last_error() */
} fc_status;

typedef enum fc_backend {
  FC_BACKEND_AUTO = 0, /* CUDA when built in and a device is visible, else CPU */
  FC_BACKEND_CPU = 1,  /* BLAS + OpenMP; the numerical reference */
  FC_BACKEND_CUDA = 2  /* cuBLAS on an NVIDIA GPU */
} fc_backend;

typedef enum fc_precision {
  FC_PRECISION_FP32 = 0, /* default: float64 normalization, float32 products; |r - r64| <= 1e-5 */
  FC_PRECISION_FP64 = 1, /* float64 throughout; |r - r64| <= 1e-12 */
  FC_PRECISION_TF32 = 2  /* GPU tensor cores in TF32 (about 1e-3); the CPU computes FP32 instead */
} fc_precision;

typedef enum fc_constant_policy {
  FC_CONSTANT_NAN = 0, /* default: a zero-variance series correlates as NaN (like R's cor) */
  FC_CONSTANT_ZERO = 1 /* ... or as 0 */
} fc_constant_policy;

typedef enum fc_triu_order {
  FC_TRIU_ROW = 0, /* (0,1),(0,2),...,(0,N-1),(1,2),...: R's dist / scipy's squareform order */
  FC_TRIU_COL = 1  /* (0,1),(0,2),(1,2),(0,3),(1,3),(2,3),...: pairs grouped by the larger index */
} fc_triu_order;

/* ---------------------------------------------------------------------------------------------
 * Opaque handles.
 * ------------------------------------------------------------------------------------------- */

typedef struct fc_context fc_context; /* backend + device + settings; one thread at a time */
typedef struct fc_series fc_series;   /* uploaded, normalized time series, owned by a context */
typedef struct fc_blocks fc_blocks;   /* pull iterator over PCC blocks */

/* Progress of a long computation: `done` of `total` units (pairs) finished. Return 0 to go on,
 * anything else to cancel: the computation then stops and returns FC_ERR_ABORTED. Called from
 * the thread that made the API call, never from a worker thread. */
typedef int (*fc_progress_fn)(int64_t done, int64_t total, void* user);

/* ---------------------------------------------------------------------------------------------
 * Library information and errors.
 * ------------------------------------------------------------------------------------------- */

/* The run-time version (compare with the FASTCONN_VERSION_* macros of the header you built
 * against). Any pointer may be NULL. */
FC_API void fc_version(int* major, int* minor, int* patch);

/* A static English name of a status, e.g. "FC_ERR_INVALID_ARG: invalid argument". Never NULL. */
FC_API const char* fc_status_string(fc_status status);

/* The thread-local description of the last failure in this thread ("" if none). Valid until
 * the next fastconn call in the same thread. */
FC_API const char* fc_last_error(void);

/* 1 if the library was built with the CUDA backend, else 0 (a device may still be absent). */
FC_API int fc_has_cuda(void);

/* ---------------------------------------------------------------------------------------------
 * Context.
 * ------------------------------------------------------------------------------------------- */

/* Create a context on `backend`. `device` is the CUDA device index (-1: device 0; ignored by the
 * CPU backend). FC_BACKEND_CUDA without a usable device gives FC_ERR_BACKEND_UNAVAILABLE;
 * FC_BACKEND_AUTO then falls back to the CPU. */
FC_API fc_status fc_context_create(fc_backend backend, int device, fc_context** out);
FC_API void fc_context_destroy(fc_context* ctx);

/* The backend the context runs on (what AUTO chose: never FC_BACKEND_AUTO). */
FC_API fc_status fc_context_get_backend(const fc_context* ctx, fc_backend* out);

/* Arithmetic of products (default FC_PRECISION_FP32). Applies to series created afterwards
 * and to every later computation. */
FC_API fc_status fc_context_set_precision(fc_context* ctx, fc_precision precision);
FC_API fc_status fc_context_get_precision(const fc_context* ctx, fc_precision* out);

/* What a zero-variance series correlates as (default FC_CONSTANT_NAN). */
FC_API fc_status fc_context_set_constant_policy(fc_context* ctx, fc_constant_policy policy);

/* Upper bound, in bytes, of the working memory one computation may take (scratch tiles and
 * staging; not the series themselves nor the caller's output). 0 (default) = use what is free,
 * capped at a quarter of physical memory on the CPU. Must be >= 0; a limit too small for one
 * row of work makes computations fail with FC_ERR_OUT_OF_MEMORY naming the minimum. Backends
 * work in fixed tiles, so under a limit smaller than one tile (CPU: 256 x 512 values, 512 KiB in
 * FP32) that one tile is still used; results never depend on the limit. */
FC_API fc_status fc_context_set_memory_limit(fc_context* ctx, int64_t bytes);

/* Number of CPU threads (0, the default, = all cores). Must be >= 0. */
FC_API fc_status fc_context_set_threads(fc_context* ctx, int n);

/* Progress callback for long computations; fn = NULL removes it. */
FC_API fc_status fc_context_set_progress(fc_context* ctx, fc_progress_fn fn, void* user);

/* ---------------------------------------------------------------------------------------------
 * Series: N time series of T samples, checked, normalized (float64 mean and norm) and stored
 * in the context's backend and precision.
 *
 * Element (s, t) of the input is data[s * series_stride + t * time_stride]:
 *   R / MATLAB T x N matrix:    series_stride = T, time_stride = 1
 *   numpy (T, N), C order:      series_stride = 1, time_stride = N
 *   numpy (N, T), C order:      series_stride = T, time_stride = 1
 * Strides are in elements, >= 1, and must not let two elements overlap: one dimension nests
 * inside the other (series_stride >= n_time * time_stride, or time_stride >= n_series *
 * series_stride), so padded layouts (a leading dimension larger than T) work too.
 * Requires n_series >= 1 and n_time >= 2. The data is copied: the caller may free it on return. NaN or Inf anywhere gives FC_ERR_NONFINITE_INPUT
 * naming the first bad series and time point.
 * ------------------------------------------------------------------------------------------- */

FC_API fc_status fc_series_create_f32(fc_context* ctx, const float* data, int64_t n_series,
                                      int64_t n_time, int64_t series_stride, int64_t time_stride,
                                      fc_series** out);
FC_API fc_status fc_series_create_f64(fc_context* ctx, const double* data, int64_t n_series,
                                      int64_t n_time, int64_t series_stride, int64_t time_stride,
                                      fc_series** out);
FC_API void fc_series_destroy(fc_series* series);

/* Shape of a series set and how many of its series have zero variance. Any output may be NULL. */
FC_API fc_status fc_series_info(const fc_series* series, int64_t* n_series, int64_t* n_time,
                                int64_t* n_constant);

/* Whether series `index` has zero variance (1) or not (0). */
FC_API fc_status fc_series_is_constant(const fc_series* series, int64_t index, int* out);

/* ---------------------------------------------------------------------------------------------
 * All-pairs correlation.
 * Values are clamped to [-1, 1]. Pairs that involve a constant series follow the constant
 * policy (NaN or 0).
 * ------------------------------------------------------------------------------------------- */

/* N(N-1)/2: the number of pairs, i.e. the length of the strict upper triangle. Returns -1 if
 * n_series < 0 or the count does not fit in int64_t. */
FC_API int64_t fc_triu_size(int64_t n_series);

/* Offset of pair (i, j), i != j, in the ordered triangle of n_series series (either order; the
 * pair is unordered). -1 if out of range. */
FC_API int64_t fc_triu_offset(int64_t n_series, fc_triu_order order, int64_t i, int64_t j);

/* The pair (i < j) stored at `offset` of the ordered triangle. */
FC_API fc_status fc_triu_pair(int64_t n_series, fc_triu_order order, int64_t offset, int64_t* i,
                              int64_t* j);

/* The strict upper triangle, fc_triu_size(N) values in `order`. capacity = elements of out. */
FC_API fc_status fc_pcc_triu(fc_context* ctx, const fc_series* series, fc_triu_order order,
                             float* out, int64_t capacity);
FC_API fc_status fc_pcc_triu_f64(fc_context* ctx, const fc_series* series, fc_triu_order order,
                                 double* out, int64_t capacity);

/* The dense N x N matrix, row-major with leading dimension ld >= N (symmetric, so column-major
 * readers get the same matrix). The diagonal is exactly 1, except for constant series, whose
 * whole row and column, diagonal included, follow the constant policy. */
FC_API fc_status fc_pcc_dense(fc_context* ctx, const fc_series* series, float* out, int64_t ld);

/* r(a_i, b_j) for every series i of a and j of b, row-major n_a x n_b with ld >= n_b
 * (seed-to-voxel maps). a and b must come from this context and have the same n_time. */
FC_API fc_status fc_pcc_cross(fc_context* ctx, const fc_series* a, const fc_series* b, float* out,
                              int64_t ld);

/* ---------------------------------------------------------------------------------------------
 * Blocks: the row-ordered triangle in slices, for outputs too large to hold at once.
 * A block = every pair (i, j), row_begin <= i < row_end, j > i: exactly the slice
 * [triu_offset, triu_offset + count) of the row-ordered triangle.
 * ------------------------------------------------------------------------------------------- */

typedef struct fc_block_info {
  int64_t row_begin;
  int64_t row_end;
  int64_t triu_offset;
  int64_t count;
} fc_block_info;

/* Start a pull iterator. rows_per_block >= 1, or 0 to let the memory limit choose. The iterator
 * keeps the series (and context) alive until fc_blocks_destroy. */
FC_API fc_status fc_pcc_blocks_begin(fc_context* ctx, const fc_series* series,
                                     int64_t rows_per_block, fc_blocks** out);

/* The size, in values, of the largest block: a buffer of this capacity fits every block. */
FC_API fc_status fc_blocks_max_count(const fc_blocks* blocks, int64_t* out);

/* Fill buf with the next block and describe it in *info. Returns FC_OK, or FC_DONE (info->count
 * = 0) once every block has been delivered. If capacity is smaller than the block, returns
 * FC_ERR_BUFFER_TOO_SMALL with info describing the block, leaves buf untouched and does not
 * advance, so the call can be repeated with a larger buffer. */
FC_API fc_status fc_blocks_next(fc_blocks* blocks, float* buf, int64_t capacity,
                                fc_block_info* info);
FC_API void fc_blocks_destroy(fc_blocks* blocks);

/* Push form of the same iterator: fn is called once per block, in order, from the calling
 * thread; a non-zero return stops the loop with FC_ERR_ABORTED. `values` is valid only during
 * the call. */
typedef int (*fc_block_fn)(const fc_block_info* info, const float* values, void* user);
FC_API fc_status fc_pcc_blocks_foreach(fc_context* ctx, const fc_series* series,
                                       int64_t rows_per_block, fc_block_fn fn, void* user);

/* ---------------------------------------------------------------------------------------------
 * Networks without the N x N matrix: edges are chosen tile by tile as correlations are computed,
 * so N^2 values never sit in memory (nor leave the GPU). Series with zero variance never get
 * edges. Graphs are undirected, without self-loops, and library-owned; copy them out with the
 * accessors.
 * ------------------------------------------------------------------------------------------- */

typedef struct fc_graph fc_graph; /* sparse symmetric network (CSR, 64-bit offsets) */

typedef enum fc_edge_rule {
  FC_EDGE_ABS_THRESHOLD = 0, /* |r| >= param */
  FC_EDGE_THRESHOLD = 1,     /* r >= param (signed: with param > 0, positive edges only) */
  FC_EDGE_DENSITY = 2,       /* the ceil(param * N(N-1)/2) pairs of largest |r|, 0 <= param <= 1;
                                ties broken by row-order pair index (smaller first) */
  FC_EDGE_TOP_K = 3          /* each series' param (an integer >= 1) largest |r|, ties broken by
                                the smaller index; symmetrized by union */
} fc_edge_rule;

typedef enum fc_graph_weights {
  FC_GRAPH_BINARY = 0,      /* every edge weighs 1 */
  FC_GRAPH_WEIGHTED = 1,    /* the edge weighs r */
  FC_GRAPH_WEIGHTED_ABS = 2 /* the edge weighs |r| */
} fc_graph_weights;

/* Build the network of `series` under `rule` (see fc_edge_rule for `param`); `weights` is one of
 * fc_graph_weights. Same input and settings give the same graph, edge for edge. */
FC_API fc_status fc_pcc_graph(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param,
                              int weights, fc_graph** out);

/* Number of nodes and of undirected edges (each stored twice in the CSR form). Either may be NULL. */
FC_API fc_status fc_graph_info(const fc_graph* graph, int64_t* n_nodes, int64_t* n_edges);

/* The symmetric CSR form: row_offsets (n_nodes + 1 values), columns and weights (2 * n_edges
 * values each; columns sorted within each row). weights may be NULL. capacity = elements of
 * columns (and of weights); FC_ERR_BUFFER_TOO_SMALL leaves every output untouched. */
FC_API fc_status fc_graph_csr(const fc_graph* graph, int64_t* row_offsets, int64_t* columns, float* weights,
                              int64_t capacity);

/* The edge list: every edge once as (i[e], j[e], weights[e]) with i < j, sorted by (i, j).
 * weights may be NULL; capacity = elements of each array (>= n_edges). */
FC_API fc_status fc_graph_edges(const fc_graph* graph, int64_t* i, int64_t* j, float* weights, int64_t capacity);

/* A graph the caller already has, from symmetric CSR arrays (copied): row_offsets[0] = 0,
 * non-decreasing; columns in [0, n_nodes), sorted and unique within a row, no self-loops; the
 * entry (i, j) present exactly when (j, i) is, with the same weight. weights may be NULL (all 1).
 * FC_ERR_INVALID_ARG names the first entry that breaks a rule. */
FC_API fc_status fc_graph_create_csr(int64_t n_nodes, const int64_t* row_offsets, const int64_t* columns,
                                     const float* weights, fc_graph** out);
FC_API void fc_graph_destroy(fc_graph* graph);

/* Save a graph to a file, and load it back (same nodes, edges and weights). The format is
 * documented in src/core/graph_file.hpp: little-endian, a magic "FCGRAPH1", the counts, then the
 * CSR arrays. A save writes a temporary file beside `path` and renames it into place, so an
 * existing file is never left half-written. Failures give FC_ERR_IO naming the path and reason;
 * a load checks the arrays as fc_graph_create_csr does. */
FC_API fc_status fc_graph_save(const fc_graph* graph, const char* path);
FC_API fc_status fc_graph_load(const char* path, fc_graph** out);

/* Degree centrality without building a graph: degree[s] = number of edges of series s and
 * strength[s] = the sum of their weights (r under FC_EDGE_THRESHOLD, |r| otherwise), for every
 * rule. Either output may be NULL; each holds n_series values. On the CUDA backend in FP32 the
 * threshold rules compute their own products in a fused kernel (nothing of N^2 size is written):
 * a pair's r may differ from fc_pcc_graph's by a float ulp, so the degrees equal the graph's row
 * sums except through pairs within about 1e-6 of the threshold (FASTCONN_CUDA_FUSED_DEGREE=0 in
 * the environment reads fc_pcc_graph's products instead, at about 1.3 x the time). */
FC_API fc_status fc_pcc_degree(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param,
                               int64_t* degree, double* strength);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FASTCONN_H */
