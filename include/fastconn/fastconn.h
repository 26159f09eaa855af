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
 *    except after FC_ERR_ABORTED (cancelled by the progress callback), or an out-of-memory or
 *    device failure in the middle of a computation, where the contents of the output are
 *    unspecified. Handles passed in stay valid after any failure.
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

/* What the CPU backend runs on this machine, as one static line of text (never NULL), e.g.
 *   "pair kernels: avx512 (this CPU: avx512); BLAS: OpenBLAS 0.3.21, core Cooperlake (eigensolves,
 *    low rank and the partial correlation's Cholesky leaves only)"
 * The pair kernels compute every product of the correlation calls (triangle, dense, cross,
 * blocks, graphs, degree, windows) and of the CPU partial correlation: fastconn's own register-blocked kernels for AVX-512F,
 * AVX2+FMA or portable C++, chosen from the CPU's features at first use. Each pair's r is one
 * fused multiply-add chain over the time points in order, exactly as the CUDA backend's kernel
 * computes it, so in FP32 and FP64 modes a pair has one answer, the same bits on every entry
 * point, memory limit, thread count, ISA path, machine and backend (TF32 is the exception: its
 * products are the tensor cores'). FASTCONN_CPU_ISA=portable|avx2|avx512 in the environment
 * (read once) asks for a path; one the CPU lacks falls back to the best it has. The BLAS part
 * names the library's kernel when it is OpenBLAS (which, on CPUs it does not know, may run slow
 * generic kernels; OPENBLAS_CORETYPE overrides it) and "BLAS: linked CBLAS" otherwise.
 *
 *   printf("%s\n", fc_cpu_info());
 */
FC_API const char* fc_cpu_info(void);

/* ---------------------------------------------------------------------------------------------
 * Context.
 * ------------------------------------------------------------------------------------------- */

/* Create a context on `backend`. `device` is the CUDA device index (-1: device 0; ignored by the
 * CPU backend). FC_BACKEND_CUDA without a usable device gives FC_ERR_BACKEND_UNAVAILABLE;
 * FC_BACKEND_AUTO then falls back to the CPU. Several GPUs as one context:
 * fc_context_create_cuda_devices (fastconn_cuda.h). Testing aid: FASTCONN_SPLIT_CPU=k (1 to 64)
 * in the environment makes an FC_BACKEND_CPU context split its work over k CPU backends as a
 * context over k GPUs does (same results, bit for bit); another value fails with
 * FC_ERR_INVALID_ARG naming it. */
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
/* The same matrix as double: FP64 precision's values unrounded (in FP32 the float values
 * widened, bit for bit). Every *_f64 output has the same pairs and layout as its float twin. */
FC_API fc_status fc_pcc_dense_f64(fc_context* ctx, const fc_series* series, double* out, int64_t ld);

/* r(a_i, b_j) for every series i of a and j of b, row-major n_a x n_b with ld >= n_b
 * (seed-to-voxel maps). a and b must come from this context and have the same n_time. */
FC_API fc_status fc_pcc_cross(fc_context* ctx, const fc_series* a, const fc_series* b, float* out,
                              int64_t ld);
FC_API fc_status fc_pcc_cross_f64(fc_context* ctx, const fc_series* a, const fc_series* b, double* out,
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
/* fc_blocks_next into doubles (capacity in doubles); the two may be mixed on one iterator. */
FC_API fc_status fc_blocks_next_f64(fc_blocks* blocks, double* buf, int64_t capacity,
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
 * fc_graph_weights. Same input and settings give the same graph, edge for edge. On the CUDA
 * backend in FP32, on a GPU with tensor cores (sm_80+), the threshold rules' pairs (and the
 * density rule's second pass, fc_dfc_next_graph's windows and the thresholded centralities built
 * on them) are decided on FP16 tensor cores first, as fc_pcc_degree describes: a pair that may
 * pass has its FP32 r recomputed, and that r decides it and is its weight. So the edges and
 * weights are FP32 mode's, bit for bit (H200, N = 200,000, T = 200, 10 M edges: 0.068 s against
 * 0.25 s; bench/RESULTS-tc.md). Without a memory limit the backend keeps these buffers between
 * calls; under one, the tensor cores are used where the limit leaves room for their operands
 * beside one band's edges (else the FP32 products, with the same result). FASTCONN_TC_EDGES=0 in
 * the environment keeps the FP32 products.
 * The density rule needs only the pairs at or above its cut: both backends guess a threshold from
 * a seeded sample of pairs (about 4 M on the GPU) and extract the pairs at or above it in one pass;
 * only when fewer than ceil(param * N(N-1)/2) pass (a five-sigma miss) do they take the exact two
 * passes (an |r| histogram, then the pairs from its boundary bin on). The graph is the same either
 * way, edge for edge and bit for bit (H200, N = 200,000, 10 M edges: 0.24 s against 0.44 s; CPU,
 * 20,000 x 40, 4 M edges: 0.70-0.80 s against 1.16-1.24 s). FASTCONN_DENSITY_GUESS=0 keeps the two
 * passes; FASTCONN_DENSITY_STATS=1 prints the path taken.
 * The top-k rule on the CUDA backend (FP32, tensor cores, no memory limit, N >= 512, k <= N / 8)
 * bounds each series' k-th largest |r| from below by its k best among every d-th series (N / 16
 * or 4,096 of them), decides on tensor cores which pairs reach the smaller bound of their two
 * series (with FP32's r, as above), and picks each row's k best among those on the GPU: the same
 * choice as from full FP32 rows, bit for bit (H200, N = 200,000, k = 10: 0.30 s against 1.20 s).
 * FASTCONN_TC_TOPK=0 keeps the full FP32 rows. */
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
/* Frees a graph. The memory of a graph built by fc_pcc_graph or fc_dfc_next_graph (of at least
 * 2^20 stored entries) goes back to its context while the context lives: the context keeps the
 * arrays of up to two destroyed graphs (D on a context over D > 2 GPUs, whose fc_dfc_next_graph
 * builds D graphs at once), the largest, and builds its next graphs in them, so that
 * a loop over windows does not pay for fresh pages each time. On the CUDA backend those arrays are
 * page-locked (cudaHostRegister) when they are reused, so that the GPU copies straight into them;
 * they stay locked until freed. fc_context_destroy frees them (once no window iterator of the
 * context is alive). */
FC_API void fc_graph_destroy(fc_graph* graph);

/* Save a graph to a file, and load it back (same nodes, edges and weights). The format is
 * documented in src/graph/graph_file.hpp: little-endian, a magic "FCGRAPH1", the counts, then the
 * CSR arrays. A save writes a temporary file beside `path` and renames it into place, so an
 * existing file is never left half-written. Failures give FC_ERR_IO naming the path and reason;
 * a load checks the arrays as fc_graph_create_csr does. */
FC_API fc_status fc_graph_save(const fc_graph* graph, const char* path);
FC_API fc_status fc_graph_load(const char* path, fc_graph** out);

/* Degree centrality without building a graph: degree[s] = number of edges of series s and
 * strength[s] = the sum of their weights (r under FC_EDGE_THRESHOLD, |r| otherwise), for every
 * rule. Either output may be NULL; each holds n_series values. On the CUDA backend in FP32 the
 * threshold rules compute their own products in a fused kernel (nothing of N^2 size is written),
 * in the same order as every other call's products, so the degrees are the graph's row sums
 * (FASTCONN_CUDA_FUSED_DEGREE=0 in the environment reads fc_pcc_graph's tiles instead). Degrees
 * alone (strength NULL) on a GPU with tensor cores (sm_80+) are decided on them first, with the
 * same result: each pair's r~ from FP16 tensor-core products of the rows rounded to half (scaled
 * by 2^8, so few elements go subnormal; those are set to 0), and a pair whose test could change
 * within d_qp of r~ has its FP32 r recomputed and is decided by it. d_qp bounds |r~ - r| for
 * unit-norm rows: a_q + a_p, with a_q from row q's own rounding error E_q = ||h_q - z_q||
 * (E_q ||z_p|| + ||z_q|| E_p + E_q E_p, Cauchy-Schwarz), plus the FP32 sums in any order (taken
 * as truncating, with a safety factor of 2) and the FP32 fmaf chain, gamma(2 T, 2^-23) and
 * gamma(T, 2^-24) times ||z_q|| ||z_p|| (kernels/tc_bound.hpp derives it; d_qp is about 5e-4
 * at T = 200). So the degrees are FP32 mode's, bit for bit, at about twice its speed (H100,
 * |r| >= 0.3: 90,112 x 165 in 18 ms against 33 ms; 1,000,000 x 200 in 2.1 s against 4.6 s;
 * bench/RESULTS-tc.md). FASTCONN_TC_DEGREE=0 in the environment keeps the FP32 kernel. */
FC_API fc_status fc_pcc_degree(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param,
                               int64_t* degree, double* strength);

/* ---------------------------------------------------------------------------------------------
 * Dynamic connectivity: sliding windows.
 *
 * A window is a series: fc_series_window gives an fc_series of the same N series restricted to
 * time points [begin, begin + length), optionally tapered, normalized on the backend from the
 * parent's stored rows (nothing is uploaded again; O(N length) work). Every call above (triangle,
 * dense, cross, blocks, graph, degree, low rank) accepts it. Pearson correlation is invariant to
 * each series' offset and scale, so a window of the parent's normalized rows has exactly the
 * correlations of the raw data's window (to the storage precision: float32 rows add about 1e-7).
 * A series constant within the window (all its values there equal) follows the constant policy
 * and is counted by fc_series_info's n_constant for that window.
 *
 * The all-windows calls take (length, step, taper, sigma): windows k = 0 .. W-1 begin at k * step,
 * W = floor((n_time - length) / step) + 1 (fc_window_count). An invalid spec (length < 2,
 * length > n_time, step < 1, taper not an fc_taper, sigma not > 0 and finite for the Gaussian
 * taper) gives FC_ERR_INVALID_ARG naming the value, and nothing is written. Their progress
 * (fc_context_set_progress) counts pairs x windows over the whole job: W * fc_triu_size(N) units.
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_taper {
  FC_TAPER_RECTANGULAR = 0, /* every sample of the window weighs 1 (sigma is ignored) */
  FC_TAPER_GAUSSIAN = 1     /* Allen et al. 2014: the window's rectangle convolved with a Gaussian of
                               standard deviation sigma (in samples, > 0), restricted to the window
                               and scaled to a maximum of 1: w_k = sum_{j=0}^{L-1} exp(-(k-j)^2 /
                               (2 sigma^2)) / max. Weighted mean and variance are used, i.e. r is
                               the correlation of sqrt(w_k) (x_k - m_w(x)) */
} fc_taper;

/* Number of windows of `length` samples every `step` samples in n_time samples:
 * floor((n_time - length) / step) + 1, or -1 unless 2 <= length <= n_time and step >= 1. */
FC_API int64_t fc_window_count(int64_t n_time, int64_t length, int64_t step);

/* First time point of window `index` (index * step), or -1 if the window does not exist. */
FC_API int64_t fc_window_begin(int64_t n_time, int64_t length, int64_t step, int64_t index);

/* The window [begin, begin + length) of `series` as a new series (same context, same precision
 * as `series`). taper is an fc_taper value; sigma is read only for FC_TAPER_GAUSSIAN. Requires
 * begin >= 0, length >= 2 and begin + length <= n_time of `series`. A window of a window is a
 * window of the original series: begin counts from the parent window's first sample, and only
 * this call's taper applies (the parent's taper is not applied again). */
FC_API fc_status fc_series_window(fc_context* ctx, const fc_series* series, int64_t begin, int64_t length, int taper,
                                  double sigma, fc_series** out);

/* Every window's strict upper triangle, window after window, into one array of
 * W x fc_triu_size(N) values (window k at k * fc_triu_size(N)), in `order`. */
FC_API fc_status fc_dfc_triu(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                             double sigma, fc_triu_order order, float* out, int64_t capacity);

/* Pull iterator over the windows' row-ordered triangles. */
typedef struct fc_dfc fc_dfc;

typedef struct fc_dfc_block_info {
  int64_t window;      /* window index k */
  int64_t time_begin;  /* its first time point */
  int64_t row_begin;   /* the block: pairs (i, j), row_begin <= i < row_end, j > i, ... */
  int64_t row_end;
  int64_t triu_offset; /* ... the slice [triu_offset, triu_offset + count) of the window's triangle */
  int64_t count;
  int64_t n_constant;  /* series constant within this window */
} fc_dfc_block_info;

/* Start iterating the windows of `series`. The iterator keeps the series (and context) alive. */
FC_API fc_status fc_dfc_begin(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                              double sigma, fc_dfc** out);

/* Number of windows, of series and samples per window. Any output may be NULL. */
FC_API fc_status fc_dfc_info(const fc_dfc* dfc, int64_t* n_windows, int64_t* n_series, int64_t* length);

/* Window `index` as a series (for any other call), without moving the iterator. */
FC_API fc_status fc_dfc_window(const fc_dfc* dfc, int64_t index, fc_series** out);

/* The next block of the current window's triangle: as many whole rows as fit in `capacity`
 * (the whole window when capacity >= fc_triu_size(N); capacity >= N - 1 fits every row), then the
 * next window. Returns FC_OK with the block in buf, or FC_DONE (info->count = 0, info->window = W)
 * after the last window (at once for N = 1: no window has pairs). If not even one row fits,
 * FC_ERR_BUFFER_TOO_SMALL, info describing the one-row block, nothing written or advanced. */
FC_API fc_status fc_dfc_next_triu(fc_dfc* dfc, float* buf, int64_t capacity, fc_dfc_block_info* info);

/* The next window's network (rule, param, weights as fc_pcc_graph) as a new graph; *window is
 * set to its index (may be NULL). FC_DONE, *out = NULL and *window = -1 after the last window.
 * FC_ERR_BAD_STATE when fc_dfc_next_triu has delivered part of a window. Triangles and graphs
 * share the iterator's window cursor. On the CUDA backend without a memory limit, each call also
 * builds the next window's graph on the GPU (same rule and settings) while it copies this one out,
 * holding one more graph's CSR in GPU memory until the next call takes it (same rule, param,
 * weights and settings) or drops it; errors of that look-ahead are reported by the call that then
 * builds the window itself, and it reports no progress (the window's own call does). On a context
 * over several GPUs (fc_context_create_cuda_devices) each call instead builds the next D windows'
 * graphs at once, one window per device, and keeps the later ones for the next calls (see there). */
FC_API fc_status fc_dfc_next_graph(fc_dfc* dfc, fc_edge_rule rule, double param, int weights, fc_graph** out,
                                   int64_t* window);
FC_API void fc_dfc_destroy(fc_dfc* dfc);

/* Push form of fc_dfc_next_triu: fn(info, values, user) for every block of every window, with
 * blocks of at most `capacity` values (>= N - 1, or 0: the memory limit chooses; a positive
 * capacity below N - 1 gives FC_ERR_BUFFER_TOO_SMALL before any call). A non-zero return stops
 * the loop with FC_ERR_ABORTED. */
typedef int (*fc_dfc_block_fn)(const fc_dfc_block_info* info, const float* values, void* user);
FC_API fc_status fc_dfc_foreach_triu(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                     double sigma, int64_t capacity, fc_dfc_block_fn fn, void* user);

/* Time-resolved degree centrality: degree[k * N + s] and strength[k * N + s] as fc_pcc_degree
 * gives them for window k (W x N, window-major; either may be NULL). No window's N x N matrix
 * is formed on the host. */
FC_API fc_status fc_dfc_degree(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                               double sigma, fc_edge_rule rule, double param, int64_t* degree, double* strength);

/* Per-pair summaries over the windows, without storing them: mean[p] and sd[p] (sample standard
 * deviation, divisor W - 1; NaN when W = 1) of r over the W windows, for every pair p of the
 * triangle in `order` (capacity = elements of each, >= fc_triu_size(N); either may be NULL).
 * Accumulated in float64 (Welford) in window order, each window computed in row blocks within the
 * memory limit (sd alone takes fc_triu_size(N) doubles of scratch for the running mean). A pair whose r is NaN in some window (a series constant there
 * under FC_CONSTANT_NAN) has NaN mean and sd; under FC_CONSTANT_ZERO those windows count as 0. */
FC_API fc_status fc_dfc_summary(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                double sigma, fc_triu_order order, double* mean, double* sd, int64_t capacity);

/* ---------------------------------------------------------------------------------------------
 * Compact values: the triangle, dense matrix, blocks and all-windows triangles in 2 bytes a value
 * instead of 4, for outputs whose bound is the bytes moved (a triangle into host memory is as
 * fast as the copy of its bytes: half the bytes, about half the time on a GPU).
 *
 * The values are those of the float calls (fc_pcc_triu, fc_pcc_dense, fc_blocks_next,
 * fc_dfc_triu: the same r, clamped, with the same constant policy; in FP64 mode the double r),
 * each turned into a 2-byte code at the end: on the CUDA backend on the GPU before the copy to
 * the host, on the CPU as the values are written. The conversion is deterministic and the same
 * on both backends, so they give the same codes wherever they give the same r (FP32 and FP64).
 *
 *   FC_VALUES_INT16  int16_t code = round(r * 32767), ties to even, in [-32767, 32767];
 *                    decoded r' = code / 32767 (resolution 1/32767 = 3.05e-5; |r' - r| <=
 *                    0.5/32767 = 1.53e-5: the nearest code of a float r exactly, of FP64's double
 *                    r up to 1e-16 more, as r * 32767 is rounded once in double; r = +-1, 0 are
 *                    exact; fc_decode_values' float adds float rounding, <= 3e-8). NaN (a pair
 *                    with a constant series under FC_CONSTANT_NAN) is the code -32768, which no
 *                    r gives.
 *   FC_VALUES_HALF   uint16_t bits of an IEEE 754 binary16 (numpy's float16), r rounded to the
 *                    nearest half, ties to even (relative error <= 2^-11 = 4.9e-4; absolute
 *                    |r' - r| <= 2^-12 = 2.44e-4 for |r| <= 1, smaller near 0); NaN stays NaN (0x7E00);
 *                    +-1 and 0 are exact.
 *
 * Buffers are void*, capacity and ld count values (2 bytes each). A format that is not one of
 * these gives FC_ERR_INVALID_ARG naming it, and nothing is written; every other check is the float
 * call's (a capacity short of the pairs gives FC_ERR_BUFFER_TOO_SMALL, nothing written).
 *
 *   int16_t* codes = malloc(sizeof(int16_t) * fc_triu_size(n));
 *   float* r = malloc(sizeof(float) * fc_triu_size(n));
 *   if (fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, FC_VALUES_INT16, codes, fc_triu_size(n)) != FC_OK ||
 *       fc_decode_values(FC_VALUES_INT16, codes, fc_triu_size(n), r) != FC_OK)
 *     fprintf(stderr, "fastconn: %s\n", fc_last_error());
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_value_format {
  FC_VALUES_INT16 = 1, /* int16_t fixed point: round(r * 32767); NaN -> -32768 */
  FC_VALUES_HALF = 2   /* uint16_t bits of IEEE binary16 (float16), round to nearest even */
} fc_value_format;

/* fc_pcc_triu in `format`: fc_triu_size(N) codes in `order`; capacity = codes out holds. */
FC_API fc_status fc_pcc_triu_compact(fc_context* ctx, const fc_series* series, fc_triu_order order,
                                     fc_value_format format, void* out, int64_t capacity);

/* fc_pcc_dense in `format`: N x N codes, row-major with ld >= N (the diagonal is the code of 1). */
FC_API fc_status fc_pcc_dense_compact(fc_context* ctx, const fc_series* series, fc_value_format format, void* out,
                                      int64_t ld);

/* fc_blocks_next in `format` (capacity in codes); may be mixed with fc_blocks_next on one iterator. */
FC_API fc_status fc_blocks_next_compact(fc_blocks* blocks, fc_value_format format, void* buf, int64_t capacity,
                                        fc_block_info* info);

/* Push form: fn(info, codes, user) once per block, in order (codes valid during the call); a
 * non-zero return stops with FC_ERR_ABORTED. */
typedef int (*fc_block_compact_fn)(const fc_block_info* info, const void* codes, void* user);
FC_API fc_status fc_pcc_blocks_foreach_compact(fc_context* ctx, const fc_series* series, int64_t rows_per_block,
                                               fc_value_format format, fc_block_compact_fn fn, void* user);

/* fc_dfc_triu in `format`: W x fc_triu_size(N) codes (window k at k * fc_triu_size(N)). */
FC_API fc_status fc_dfc_triu_compact(fc_context* ctx, const fc_series* series, int64_t length, int64_t step,
                                     int taper, double sigma, fc_triu_order order, fc_value_format format, void* out,
                                     int64_t capacity);

/* Decode count codes of `format` into r values (out may not overlap codes): int16 code / 32767
 * (-32768: NaN), half widened exactly. */
FC_API fc_status fc_decode_values(fc_value_format format, const void* codes, int64_t count, float* out);
FC_API fc_status fc_decode_values_f64(fc_value_format format, const void* codes, int64_t count, double* out);

/* ---------------------------------------------------------------------------------------------
 * Low rank. A series set's correlation matrix is exactly R = Z Z^T, Z the N x T normalized rows,
 * so its best rank-l approximation in the Frobenius norm (Eckart-Young) is V V^T with V = Z U_l,
 * U_l the l leading eigenvectors of the small T x T matrix Z^T Z (LAPACK, float64). O(N T^2) work
 * and N l numbers, where a randomized range finder needs O(N^2 l) work and 2 N l numbers.
 * ------------------------------------------------------------------------------------------- */

/* factor: N x rank, row-major (series s at factor + s * rank), with R ~= factor factor^T;
 * 1 <= rank <= T; capacity >= N * rank. rel_error (may be NULL): ||R - V V^T||_F / ||R||_F with
 * R = Z Z^T, exact from the discarded eigenvalues of the stored rows (0 up to rounding once rank
 * reaches the rank of Z, which is at most T - 1; 0 for a set whose series are all constant).
 * Constant series have zero rows in Z, so R has 0 (not NaN, and 0 on the diagonal) for them and
 * their factor rows are 0 (their r follow the constant policy only in the other calls).
 * Eigenvector signs are fixed (largest-magnitude entry of U_l positive), so results repeat. */
FC_API fc_status fc_pcc_lowrank(fc_context* ctx, const fc_series* series, int64_t rank, float* factor,
                                int64_t capacity, double* rel_error);

/* fc_pcc_lowrank of every window: factors W x N x rank (window k at k * N * rank; capacity >=
 * W * N * rank), rel_error W values (may be NULL); 1 <= rank <= length. */
FC_API fc_status fc_dfc_lowrank(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                double sigma, int64_t rank, float* factors, int64_t capacity, double* rel_error);

/* ---------------------------------------------------------------------------------------------
 * Centrality and rank correlation.
 *
 * Fast eigenvector centrality (fast ECM; Wink et al. 2012, Brain Connectivity 2:265, as AFNI's
 * 3dECM -fecm computes it): the leading eigenvector of the positive matrix (R + 1) / 2 of a series
 * set, R = Z Z^T its correlation matrix, found without forming R: each product is
 * (Z (Z^T x) + 1 (1^T x)) / 2, O(N T) work and memory, by Lanczos with a residual test
 * (||B x - lambda x|| <= tolerance * lambda). Products are summed in float64 from the stored rows
 * (float in FP32/TF32 mode, double in FP64 mode), in a fixed order: the same bits run after run
 * and for any thread count. Both backends give the same bits (their products and the
 * eigensolve's vector operations are specified to the same order of float64 operations).
 *
 * Spearman's rho: a ranked series set (fc_series_create_ranked_*) stores the ranks of each series
 * (ties get their average rank, as scipy.stats.spearmanr and R's cor(method = "spearman")), so
 * every call on it (triangle, dense, cross, blocks, graph, degree, ECM) gives Spearman's rho.
 *
 * Fisher z: fc_fisher_z_* turns r into atanh(r) in place, in any buffer the correlation calls
 * filled (triangle, dense, cross, blocks, window summaries' mean).
 * ------------------------------------------------------------------------------------------- */

/* Fast ECM of a series set: centrality (N values, capacity >= N) the leading eigenvector of
 * (R + 1) / 2 with unit L2 norm and non-negative entries (AFNI's scaling; for this positive matrix
 * every entry of it is > 0 mathematically, entries that rounding leaves below 0 are set to 0).
 * eigenvalue (may be NULL): its eigenvalue lambda. tolerance: the residual test above, 0 for the
 * default 1e-10, else in [1e-13, 0.1].
 * Constant series (zero rows of Z): under FC_CONSTANT_ZERO they stay in the matrix with r = 0 to
 * every series and to themselves, so row i of (R + 1) / 2 is 1/2 everywhere and they get the
 * centrality of the +1 term alone (AFNI's answer); under FC_CONSTANT_NAN (the default) they are
 * left out of the matrix (the other entries are those of the set without them) and get NaN. A set
 * with no series but constant ones gives NaN everywhere under FC_CONSTANT_NAN, and 1/sqrt(N),
 * lambda = N/2 under FC_CONSTANT_ZERO. The progress callback is called after each product (total:
 * the 10000 products an eigensolve may take at most), so it can count and cancel them.
 * On a CUDA context the whole eigensolve runs on the device: the Lanczos vectors stay there (about
 * 424 N bytes beyond the series: 52 vectors of N doubles, and m; the context keeps them for its
 * next ECM call, e.g. the next window of fc_dfc_ecm, until it is destroyed) and only scalars and
 * the answer come back; the result has the same bits as a CPU context's (every device sum in the
 * host's order). A context memory limit below that keeps the vectors on the host (the same bits, one
 * round trip of x and y per product); a device without the memory fails with
 * FC_ERR_OUT_OF_MEMORY. On any error nothing is written.
 *
 *   double c[31], lambda;
 *   fc_pcc_ecm(ctx, s, 0, c, 31, &lambda);
 */
FC_API fc_status fc_pcc_ecm(fc_context* ctx, const fc_series* series, double tolerance, double* centrality,
                            int64_t capacity, double* eigenvalue);

/* Eigenvector centrality of a graph (region networks, graphs of fc_pcc_graph or
 * fc_graph_create_csr): the leading eigenvector of its adjacency matrix A, A_ij = w_ij with
 * weighted = 1 (weights must be >= 0: Perron-Frobenius; a graph with a negative weight gives
 * FC_ERR_INVALID_ARG naming the edge) or 1 for every edge with weighted = 0; scaled so that its
 * largest entry is 1 (igraph's eigenvector_centrality(scale = TRUE)), entries >= 0. A graph
 * without edges gives 1 everywhere and lambda = 0 (as igraph does). On a disconnected graph the
 * answer lives on the component with the largest eigenvalue (elsewhere 0 up to rounding: about
 * 1e-16 relative, from the eigensolve's start vector); when two components
 * share it the eigenvector is not unique. centrality: N values (capacity >= N); eigenvalue may be
 * NULL; tolerance as for fc_pcc_ecm. Computed on the host (OpenMP), whatever the backend. */
FC_API fc_status fc_graph_eigenvector_centrality(fc_context* ctx, const fc_graph* graph, int weighted,
                                                 double tolerance, double* centrality, int64_t capacity,
                                                 double* eigenvalue);

/* Thresholded ECM (Lohmann et al. 2010, AFNI's 3dECM full/sparse ECM; C-PAC's eigenvector
 * centrality at a threshold or a sparsity): the leading eigenvector of the thresholded correlation
 * matrix A, A_ij = the weight of edge (i, j) of the network fc_pcc_graph(ctx, series, rule, param,
 * weights) builds (FC_GRAPH_BINARY: 1 for every edge, C-PAC's "binarized"; FC_GRAPH_WEIGHTED: r,
 * which needs r >= 0 on every edge, e.g. FC_EDGE_THRESHOLD at param >= 0, else FC_ERR_INVALID_ARG
 * naming the edge; FC_GRAPH_WEIGHTED_ABS: |r|), 0 elsewhere and on the diagonal; every rule of
 * fc_edge_rule with its param (a NaN threshold or a density outside [0, 1] is refused as by
 * fc_pcc_graph). It is built and then solved as fc_graph_eigenvector_centrality solves a graph, so
 * the network is built on the context's backend (on the GPU for a CUDA context) and the
 * eigensolve runs on the host.
 * centrality (N values, capacity >= N): unit L2 norm and entries >= 0, as fc_pcc_ecm (AFNI's
 * scaling; fc_graph_eigenvector_centrality of the same graph is this vector divided by its largest
 * entry, but for series without edges). eigenvalue (may be NULL): lambda. tolerance: as for
 * fc_pcc_ecm. Series without edges (constant ones among them: they never get edges) get exactly
 * 0; a network without edges gives 1/sqrt(N) everywhere and lambda = 0; on a disconnected network
 * the answer lives on the component with the largest eigenvalue (0 elsewhere up to rounding).
 * Memory: that of the graph (about density x N^2 stored entries of 12 bytes: 2 x edges in CSR),
 * freed before the call returns; the context's memory limit applies to the building as for
 * fc_pcc_graph (the graph itself is not counted in it). The progress callback sees the graph's
 * build, then the eigensolve's products (as fc_pcc_graph, then as fc_pcc_ecm). On any error
 * nothing is written.
 *
 *   double c[31], lambda;
 *   fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.1, FC_GRAPH_BINARY, 0, c, 31, &lambda);
 */
FC_API fc_status fc_pcc_ecm_thresholded(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param,
                                        int weights, double tolerance, double* centrality, int64_t capacity,
                                        double* eigenvalue);

/* Time-resolved fast ECM: centrality[k * N + s] is fc_pcc_ecm's centrality of series s in window k
 * (W x N, window-major, capacity >= W * N), eigenvalue[k] its eigenvalue (W values; may be NULL).
 * Window arguments as fc_dfc_degree (see the all-windows calls); each window is the series
 * fc_series_window gives, solved as fc_pcc_ecm solves it, so the values are the same bits as
 * fc_pcc_ecm on that window. Constant series follow the constant policy per window (a series
 * constant in window k gets NaN there under FC_CONSTANT_NAN). tolerance: as for fc_pcc_ecm. The
 * window spec, tolerance and capacity are checked before any window is computed (then nothing is
 * written); windows are written in order, so an eigensolve that fails in window k (FC_ERR_INTERNAL)
 * leaves windows < k written. Progress: W * fc_triu_size(N) units, each window's share as its
 * products go. O(N T) memory per window, never N^2. */
FC_API fc_status fc_dfc_ecm(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                            double sigma, double tolerance, double* centrality, int64_t capacity, double* eigenvalue);

/* A series set whose correlations are Spearman's rho: arguments as fc_series_create_f32/_f64; each
 * series is replaced by its ranks 1..T (equal values, compared exactly, share their average rank)
 * and then normalized and stored as usual. A series of equal values is constant as before. Windows
 * of a ranked set (fc_series_window, fc_dfc_*) are windows of these ranks: the Pearson correlation
 * of the whole-series ranks over the window, which is not Spearman's rho of the window's values
 * (for that, rank the window's samples: create a ranked set from them). */
FC_API fc_status fc_series_create_ranked_f32(fc_context* ctx, const float* data, int64_t n_series,
                                             int64_t n_time, int64_t series_stride, int64_t time_stride,
                                             fc_series** out);
FC_API fc_status fc_series_create_ranked_f64(fc_context* ctx, const double* data, int64_t n_series,
                                             int64_t n_time, int64_t series_stride, int64_t time_stride,
                                             fc_series** out);

/* Fisher's z transform in place: values[i] = atanh(values[i]) for i < count (count >= 0; values
 * may be NULL when count is 0). r = 1 and -1 become +inf and -inf (so a dense matrix's diagonal
 * becomes +inf), NaN stays NaN. A value outside [-1, 1] gives FC_ERR_INVALID_ARG naming the first
 * one, and nothing is changed. Elementwise on OpenMP's default threads: same bits for any count. */
FC_API fc_status fc_fisher_z_f32(float* values, int64_t count);
FC_API fc_status fc_fisher_z_f64(double* values, int64_t count);

/* ---------------------------------------------------------------------------------------------
 * Local functional connectivity density (lFCD; Tomasi and Volkow 2010, PNAS 107:9885, as AFNI's
 * 3dLFCD computes it).
 *
 * Each series is a voxel at coords[3 s + 0 .. 2] = (i, j, k) of a grid of dims = (nx, ny, nz)
 * voxels (0 <= i < nx, ...). For each seed s, lfcd[s] is the number of voxels of the cluster grown
 * from s: the cluster starts as {s}, and a voxel adjacent to a voxel of the cluster joins when its
 * correlation with the SEED passes the rule (FC_EDGE_THRESHOLD: r >= threshold; FC_EDGE_ABS_THRESHOLD:
 * |r| >= threshold), until none does. Adjacent: sharing a face (neighbourhood 6), a face or an edge
 * (18), or a face, an edge or a corner (26; AFNI's). The seed counts itself, as in AFNI (whose loop
 * tests the seed against itself, r = 1): lfcd[s] >= 1, and 1 for a seed that no neighbour joins.
 * AFNI keeps r > t (strictly) with 0 <= t < 1; here r >= t for any finite t.
 * Constant series (zero variance) have no r, under either constant policy (as fc_pcc_degree, where
 * they get no edges): a constant voxel never joins a cluster (nor is grown through), and a constant
 * seed gets lfcd = 0 (never a count, which is >= 1).
 * Only products of the seed with the voxels it reaches are computed (the cluster and its boundary),
 * never the N x N matrix: O(sum of cluster and boundary sizes x T) work.
 * r: the float64 dot product of the two stored normalized rows (float rows widened in FP32 / TF32
 * mode, double rows in FP64 mode) in a fixed order, clamped and rounded to float, then tested as
 * fc_pcc_degree tests it (r >= t exactly as for the graph calls). So |r - r_float64| is within the
 * precision's promise (1e-5 in FP32, 1e-12 in FP64); a pair closer than that to t may be decided
 * differently than by fc_pcc_degree, whose FP32 products are summed in float.
 * Same input and settings: the same counts, for any thread count, on either backend. On a CUDA
 * context the clusters grow on the GPU from the stored rows (a warp per seed; r in the same order
 * of float64 operations, each rounded once, so a pair on the threshold is decided as on the
 * host), except where the grid has no dense table (more than 8 N + 2^20 voxels) or the context's
 * memory limit cannot hold the device's share below: then the stored rows are copied to the host
 * and the clusters grow there. Both backends normalize a series and a window (fc_series_window)
 * to the same bits (fc_cpu_info), so the counts are the same on both for windows too.
 * Memory on the host path: the rows on the host (N x T x 8 bytes while they are copied, then
 * N x T x 4 in FP32 / TF32, whose stored rows are float), a voxel lookup (4 bytes per grid voxel
 * when the grid has at most 8 N + 2^20 voxels, else a hash of at most 64 bytes per series), and 4
 * bytes per series per thread for the visit marks. On the GPU: the lookup (4 bytes per grid voxel
 * on the host and on the device), 12 bytes per series (the voxels) and 12 per seed of a step of
 * 65536 seeds; and, only once a seed's cluster and boundary pass 256 voxels, 8 bytes per series
 * for each of the up to 256 warps that grow such seeds (as many as the memory limit, or 2 GiB
 * without one, holds; a limit must hold one).
 * ------------------------------------------------------------------------------------------- */

/* lfcd: N counts (N = the series' n_series), as above. coords: N x 3 int32, row-major (i, j, k of
 * series s at coords[3 s], coords[3 s + 1], coords[3 s + 2]); dims: 3 values, each >= 1.
 * neighbourhood: 6, 18 or 26. rule: FC_EDGE_THRESHOLD or FC_EDGE_ABS_THRESHOLD (the density and
 * top-k rules give FC_ERR_INVALID_ARG); threshold: finite. FC_ERR_INVALID_ARG names the bad value:
 * a coordinate off the grid (the series and axis), two series on one voxel (both), a dimension < 1,
 * a neighbourhood other than 6, 18 or 26, a NaN or infinite threshold; FC_ERR_NULL_ARG a NULL
 * pointer; lfcd is not written on any error. The progress callback counts seeds (total N, reported
 * every 4096 seeds on the host, every 65536 on the GPU); a non-zero return gives FC_ERR_ABORTED.
 *
 *   // 4 voxels on a 3 x 1 x 2 grid: a row of three at k = 0 and one above the first.
 *   const int32_t coords[] = {0, 0, 0,  1, 0, 0,  2, 0, 0,  0, 0, 1};
 *   const int64_t dims[] = {3, 1, 2};
 *   int64_t lfcd[4];
 *   if (fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, lfcd) != FC_OK)
 *     fprintf(stderr, "fastconn: %s\n", fc_last_error());
 */
FC_API fc_status fc_pcc_lfcd(fc_context* ctx, const fc_series* series, const int32_t* coords, const int64_t* dims,
                             int neighbourhood, fc_edge_rule rule, double threshold, int64_t* lfcd);

/* ---------------------------------------------------------------------------------------------
 * Partial correlation and precision.
 *
 * Of a series set's correlation matrix R (the empirical covariance, divisor n_time, of the series
 * standardized with their population sd, as nilearn's ConnectivityMeasure(kind = "partial
 * correlation") standardizes them): the shrunk matrix S = (1 - a) R + a mu I, mu = trace(R) / N
 * (= 1), with a given intensity a in [0, 1] or Ledoit-Wolf's automatic one exactly as
 * scikit-learn's ledoit_wolf_shrinkage computes it on the standardized data (Ledoit & Wolf 2004,
 * J. Multivariate Anal. 88:365); its inverse P (the precision) by Cholesky;
 * the partial correlation -P_ij / sqrt(P_ii P_jj), diagonal exactly 1. So sklearn's
 * LedoitWolf().fit(X) (or ShrunkCovariance(shrinkage = a)) on the columns of X standardized with
 * ddof = 0 gives the same covariance_, and its inverse the same precision.
 * Computed in float64 from the stored normalized rows (float in FP32/TF32 mode, double in FP64
 * mode: use an FP64 context for float64 accuracy; partial correlations amplify the rows' rounding
 * by the conditioning of S), only the upper triangle of each matrix, on the context's backend:
 *  - CPU: R's upper triangle by fastconn's own pair kernels (the correlation calls' AVX-512 /
 *    AVX2 / portable kernels, so the speed is the CPU's and not that of the kernel a BLAS
 *    library picked for it), its inverse by 2 x 2 block recursion on Schur complements (the same
 *    kernels' products on the context's threads, LAPACK's Cholesky inverse, dpotrf + dpotri, on
 *    blocks of up to 128 rows); the same bits run after run and for any thread count.
 *  - CUDA: everything on the device, in float64 in every precision mode (FP32/TF32 contexts widen
 *    their stored float rows there): R by cuBLAS Dsyrk, the intensity's sums by a fixed reduction,
 *    cuSOLVER's Dpotrf + Dpotri; the matrix comes back to the host. The same bits run after run on
 *    one device. Against a CPU context on the same series it agrees to rounding, not to the bit
 *    (cuBLAS's and cuSOLVER's blocking differ from the host's): the intensity within 1e-12
 *    (relative), each partial correlation within 1e-14 x kappa_1(S), each precision value within
 *    1e-14 x kappa_1(S) x max|P_ij|, kappa_1(S) = ||S||_1 ||P||_1 the condition number (tested in
 *    tests/gpu/test_cuda_partial.cpp). Device memory: 8 N^2 bytes, plus 8 N T for float storage, plus
 *    cuSOLVER's workspace, kept by the context for the next call; a memory limit below that gives
 *    FC_ERR_OUT_OF_MEMORY naming the need. A matrix that is not positive definite gives the CPU's
 *    error (FC_ERR_INVALID_ARG, the leading minor named).
 * A constant series gives FC_ERR_INVALID_ARG naming it (its precision row is undefined). N > T is
 * fine with a > 0 (S is positive definite); a = 0 needs N <= T - 1 (R has rank <= T - 1), else
 * FC_ERR_INVALID_ARG. On any error nothing is written.
 * Dynamic partial correlation: call it on each window (fc_series_window): an untapered window gives
 * sklearn's answer on the window's samples; a tapered one works on its weighted rows.
 * ------------------------------------------------------------------------------------------- */

/* The automatic intensity (Ledoit-Wolf) for the shrinkage argument. */
#define FC_SHRINKAGE_LEDOIT_WOLF (-1.0)

typedef enum fc_partial_output {
  FC_PARTIAL_CORRELATION = 0, /* -P_ij / sqrt(P_ii P_jj), diagonal 1 */
  FC_PARTIAL_PRECISION = 1    /* P, the inverse of the shrunk correlation matrix */
} fc_partial_output;

/* Dense N x N float64, row-major: element (i, j) at out[i * ld + j], ld >= N (entries j >= N of a
 * row are not touched). shrinkage: in [0, 1], or FC_SHRINKAGE_LEDOIT_WOLF. output: an
 * fc_partial_output value (passed as int, checked). shrinkage_used (may be NULL): the intensity
 * applied (the automatic one, or shrinkage). For example, 3 regions of 200 samples (x: 3 x 200,
 * series-major) on whatever backend the machine has:
 *
 *   fc_context* ctx; fc_series* s; double pc[3 * 3], used;
 *   fc_context_create(FC_BACKEND_AUTO, -1, &ctx);
 *   fc_context_set_precision(ctx, FC_PRECISION_FP64);
 *   fc_series_create_f64(ctx, x, 3, 200, 200, 1, &s);
 *   if (fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, pc, 3, &used) != FC_OK)
 *     fprintf(stderr, "fastconn: %s\n", fc_last_error());
 *   fc_series_destroy(s); fc_context_destroy(ctx);
 */
FC_API fc_status fc_partial_correlation(fc_context* ctx, const fc_series* series, double shrinkage, int output,
                                        double* out, int64_t ld, double* shrinkage_used);

/* The strict upper triangle of the same matrix, fc_triu_size(N) values (capacity >= that) in
 * order (an fc_triu_order value, passed as int). */
FC_API fc_status fc_partial_correlation_triu(fc_context* ctx, const fc_series* series, double shrinkage, int output,
                                             int order, double* out, int64_t capacity, double* shrinkage_used);

/* ---------------------------------------------------------------------------------------------
 * Modules: Newman's leading-eigenvector modularity (Newman 2006, PNAS 103:8577) on a graph.
 * Recursive bisection: each community g is split by the sign pattern of the leading eigenvector
 * of its generalized modularity matrix B^(g)_ij = B_ij - delta_ij sum_{l in g} B_il, with
 * B = A - gamma k k^T / 2m, applied matrix-free (one sparse product per iteration); a split is
 * kept while the leading eigenvalue exceeds the threshold and it raises Q. Each split is refined by
 * Kernighan-Lin vertex moves, and the final partition by single-vertex moves between all
 * communities that never lower Q. Graphs with negative weights: the positive and negative parts
 * are handled separately (fc_signed_modularity).
 * ------------------------------------------------------------------------------------------- */

typedef struct fc_modules fc_modules; /* result: labels, Q, the division tree */

typedef enum fc_signed_modularity {
  FC_SIGNED_GOMEZ = 0,   /* Gomez et al. 2009: Q = (2w+ Q+ - 2w- Q-) / (2w+ + 2w-) */
  FC_SIGNED_RUBINOV = 1  /* Rubinov and Sporns 2011: Q* = Q+ - (w- / (w+ + w-)) Q- */
} fc_signed_modularity;

typedef struct fc_modularity_options {
  double eigen_threshold;      /* split a community only while its leading eigenvalue (in units of
                                  the weights) exceeds this; default 1e-8. Wu et al.'s r_e. */
  double resolution;           /* gamma > 0, gamma x the total weight finite; default 1 */
  int64_t max_communities;     /* stop splitting at this many (0 = no limit; default 0) */
  int64_t min_community_size;  /* never make a community smaller than this (default 1) */
  uint64_t seed;               /* seeds the eigensolver's start vectors (default 1) */
  int32_t signed_mode;         /* fc_signed_modularity (default FC_SIGNED_GOMEZ) */
  int32_t refine;              /* 1 (default): vertex-move refinement; 0: spectral splits only */
} fc_modularity_options;

/* Fill *options with the defaults above. */
FC_API fc_status fc_modularity_options_default(fc_modularity_options* options);

/* The modules of `graph` (options may be NULL: defaults), on the context's backend. Defined for
 * every graph: an isolated node is a community of its own (it cannot change Q); a graph without
 * edges gives every node its own label and Q = 0; one node gives K = 1, Q = 0. Options out of
 * range give FC_ERR_INVALID_ARG naming the field and value. Same graph, options and seed: the
 * same labels, on either backend and any thread count. Pending splits are made in order of
 * decreasing gain, so max_communities (which counts isolated nodes' communities too) keeps the
 * best ones. Q is the objective of options->signed_mode (the same as fc_modularity_score's for
 * graphs without negative weights). The progress callback counts nodes whose community is final
 * (total n_nodes); a non-zero return gives FC_ERR_ABORTED. Formulas: src/modules/modularity.hpp.
 * Work: without a community limit, large groups are analysed up to four at a time on the
 * context's threads. On a CUDA context the eigenproblems of large groups (from 65,536 stored
 * entries) run on the device, whose kernels add in the host's order (hence the same labels):
 * the graph is copied to the device once per call (12 bytes per stored entry) and shared by the
 * concurrent analyses, each of which also keeps about 360 bytes per node there; all of it within
 * the context's memory limit, else the graph is solved on the host. */
FC_API fc_status fc_modularity(fc_context* ctx, const fc_graph* graph, const fc_modularity_options* options,
                               fc_modules** out);

/* n_nodes, the number of communities K, Q, and the number of kept splits. Any output may be NULL. */
FC_API fc_status fc_modules_info(const fc_modules* modules, int64_t* n_nodes, int64_t* n_communities, double* q,
                                 int64_t* n_splits);

/* labels[v] in 0 .. K-1, numbered by first appearance (node 0 has label 0); capacity >= n_nodes. */
FC_API fc_status fc_modules_labels(const fc_modules* modules, int64_t* labels, int64_t capacity);

/* The division tree, one entry per kept split in the order made: community `parent` (an id of
 * the tree: the whole graph without its isolated nodes is 0, each split creates ids child_a, which
 * holds the parent's lowest-numbered node, and child_b) split with leading eigenvalue `eigenvalue`
 * (of B^(g) in units of the weights), raising Q by `gain` (after the split's Kernighan-Lin
 * refinement); `iterations` (operator products) and `residual` (||B x - theta x||) of its
 * eigensolve, which stops at residual <= 5e-3 (|theta| + the largest |Ritz value| seen) when the
 * split it gives stands, else goes on to 1e-3: the split needs the eigenvector's signs, and the
 * refinement follows; a group is left whole only on the tighter test (src/modules/modularity.hpp).
 * The final pass of single-node moves comes after the tree, so a leaf may differ from its final
 * community by a few nodes. Any array may be NULL; capacity >= n_splits. */
FC_API fc_status fc_modules_splits(const fc_modules* modules, int64_t* parent, int64_t* child_a, int64_t* child_b,
                                   double* eigenvalue, double* gain, int64_t* iterations, double* residual,
                                   int64_t capacity);
FC_API void fc_modules_destroy(fc_modules* modules);

/* Q of any partition: labels (n_nodes values, any non-negative integers) of `graph` at
 * resolution gamma (signed graphs: FC_SIGNED_GOMEZ). */
FC_API fc_status fc_modularity_score(const fc_graph* graph, const int64_t* labels, double gamma, double* q);

/* ---------------------------------------------------------------------------------------------
 * Modules: Leiden (Traag, Waltman and van Eck 2019, Sci Rep 9:5233) on a graph. Each pass: fast
 * local moving (a node queue in a seeded random order, each node moved to the neighbouring or
 * empty community of the largest gain; the queue is taken in batches judged in parallel against
 * the state before the batch, then settled in queue order, each move checked exact against the
 * current state and the nodes around a move queued again), refinement (within each community, nodes still alone are
 * merged at random into well-connected subcommunities, with probability ~ exp(gain / randomness)
 * over the non-negative gains: the step that keeps communities connected), and aggregation of the
 * refined subcommunities into nodes, whose starting partition is the unrefined one; levels go on
 * while aggregation shrinks the graph. Passes repeat from the last partition until one moves no
 * node (or max_iterations passes). The quality is modularity with resolution gamma (the objective
 * of fc_modularity's signed modes: src/modules/modularity.hpp) or the Constant Potts Model
 * (Traag, Van Dooren and Nesterov 2011): H = sum_c (W_c - gamma n_c^2) / 2, W_c the weight inside
 * c counted from both ends, n_c its number of nodes; negative weights count as negative there.
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_leiden_quality {
  FC_LEIDEN_MODULARITY = 0, /* modularity with resolution gamma (signed graphs: options->signed_mode) */
  FC_LEIDEN_CPM = 1         /* Constant Potts Model with resolution gamma (a density: leidenalg's CPM) */
} fc_leiden_quality;

typedef struct fc_leiden_options {
  double resolution;      /* gamma > 0 and finite; default 1 */
  double randomness;      /* theta > 0 of the refinement's merges, in units of the weights; default
                             1e-4: about greedy, as leidenalg merges (igraph's beta is 0.01; larger
                             values merge more at random, which gave lower Q on bench/'s graphs) */
  uint64_t seed;          /* seeds the node orders and the refinement's draws (default 1) */
  int64_t max_iterations; /* passes at most (0, the default: until a pass moves no node; 1000 at most) */
  int32_t quality;        /* fc_leiden_quality (default FC_LEIDEN_MODULARITY) */
  int32_t signed_mode;    /* fc_signed_modularity of the modularity quality (default FC_SIGNED_GOMEZ) */
} fc_leiden_options;

/* Fill *options with the defaults above. */
FC_API fc_status fc_leiden_options_default(fc_leiden_options* options);

/* The Leiden modules of `graph` (options may be NULL: defaults), starting from initial_labels
 * (n_nodes non-negative integers, any values; communities are those of equal labels) or, when it
 * is NULL, from one community per node. The result is an fc_modules: fc_modules_info,
 * fc_modules_labels, fc_modules_destroy and fc_modularity_score apply; its division tree is empty
 * (n_splits 0). Q is modularity: for FC_LEIDEN_MODULARITY at options->resolution in
 * options->signed_mode (for FC_SIGNED_GOMEZ, fc_modularity_score(graph, labels, resolution)); for
 * FC_LEIDEN_CPM Newman's Q at gamma 1 (fc_modularity_score(graph, labels, 1)), not the CPM value.
 * Every community is connected (through edges of non-zero weight): refinement guarantees it at
 * convergence; a community still split into pieces after max_iterations passes, or one given so
 * by initial_labels that no pass touched, is split into its connected pieces at the end. A node
 * without edges (or with weight-0 edges only) is a community of its own whatever its initial
 * label; a graph without edges gives every node its own label and Q = 0. Same graph, options,
 * initial labels and seed: the same labels on every thread count and on CPU and CUDA contexts
 * alike (one host implementation serves every backend; the context gives threads for the degrees,
 * the moves' judgements, the refinement, the aggregation and the final connectivity check, whose
 * results do not depend on them: the moves' batches are set by the queue and the degrees alone,
 * and each community is refined with random draws of its own, seeded by the seed and the
 * community). Since issue 31's CPU work (aggregated rows in the order first met, not sorted; then
 * the refinement's draws per community; then the batched moves) the labels for a given seed
 * differ from those of earlier versions. The progress callback is asked
 * between levels (total n_nodes); a non-zero return gives FC_ERR_ABORTED. Options out of range
 * give FC_ERR_INVALID_ARG naming the field and value; a negative initial label names its node. */
FC_API fc_status fc_leiden(fc_context* ctx, const fc_graph* graph, const fc_leiden_options* options,
                           const int64_t* initial_labels, fc_modules** out);

/* ---------------------------------------------------------------------------------------------
 * Leiden, version 2 of its options: the same method with a choice of how the moves are made.
 * FC_LEIDEN_QUEUE is fc_leiden's, host code on every backend. FC_LEIDEN_SYNCHRONOUS judges many
 * nodes at once against the same state, which a GPU can do: on a CUDA context it runs on the
 * context's device, elsewhere (or when the device lacks the memory) on the host's threads, and
 * both give the same labels (fixed-point weights, exact in any order: src/backend/leiden_engine.hpp).
 *
 * FC_LEIDEN_SYNCHRONOUS, each level of a pass:
 *   - moves in rounds: in each, a seeded half of the nodes still active (alternating halves) move
 *     at once, each to its neighbouring community of the largest gain (ties to the smaller id)
 *     (or alone into an empty community) when it gains, judged against the state before the
 *     round; the neighbours of a moved node become active again;
 *   - refinement in rounds: inside each community, nodes still alone and well connected join the
 *     well-connected neighbouring subcommunity of the largest non-negative gain (greedy: the
 *     `randomness` option is not used), half of the nodes at a time;
 *   - aggregation of the subcommunities, each starting in its community, while it shrinks the
 *     graph.
 * Passes repeat until one moves no node (or max_iterations). The weights are rounded to fixed
 * point (relative error below 2^-60 of the graph's total weight) for the moves' sums; Q is
 * computed from the graph's own weights. Same labels on every thread count, on CPU and CUDA
 * contexts, and for any number of devices. Its labels differ from FC_LEIDEN_QUEUE's.
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_leiden_algorithm {
  FC_LEIDEN_QUEUE = 0,      /* fc_leiden's queue of single moves (host code) */
  FC_LEIDEN_SYNCHRONOUS = 1 /* rounds of simultaneous moves (the device on CUDA contexts) */
} fc_leiden_algorithm;

typedef struct fc_leiden_options_v2 {
  uint32_t size;          /* sizeof(fc_leiden_options_v2): later versions append fields after `base` */
  int32_t algorithm;      /* fc_leiden_algorithm (default FC_LEIDEN_QUEUE) */
  fc_leiden_options base; /* everything fc_leiden takes (defaults: fc_leiden_options_default's) */
} fc_leiden_options_v2;

/* Fill *options with the defaults (size set, FC_LEIDEN_QUEUE, fc_leiden_options_default's base). */
FC_API fc_status fc_leiden_options_v2_default(fc_leiden_options_v2* options);

/* fc_leiden with version-2 options (NULL: defaults). options->size must be at least the size of
 * this version's struct (FC_ERR_INVALID_ARG names it otherwise); with FC_LEIDEN_QUEUE the result
 * is fc_leiden's with options->base, bit for bit. Example:
 *   fc_leiden_options_v2 o;
 *   fc_leiden_options_v2_default(&o);
 *   o.algorithm = FC_LEIDEN_SYNCHRONOUS;
 *   fc_modules* m = NULL;
 *   if (fc_leiden_v2(ctx, graph, &o, NULL, &m) == FC_OK) { ... fc_modules_destroy(m); } */
FC_API fc_status fc_leiden_v2(fc_context* ctx, const fc_graph* graph, const fc_leiden_options_v2* options,
                              const int64_t* initial_labels, fc_modules** out);

/* ---------------------------------------------------------------------------------------------
 * Modules over time: multilayer modularity (Mucha, Richardson, Macon, Porter and Onnela 2010,
 * Science 328:876) of a sequence of graphs on the same n nodes (for example the windows' graphs
 * of an fc_dfc), each node coupled to itself across layers with weight omega:
 *   Q = 1/(2 mu) sum_{ijsr} [(A_ijs - gamma_s k_is k_js / (2 m_s)) delta_sr + delta_ij C_jsr] delta(g_is, g_jr),
 * C_jsr = omega between consecutive layers (FC_COUPLING_ORDINAL) or between every two layers
 * (FC_COUPLING_CATEGORICAL); 2 mu = sum_s 2 m_s + sum_{j, s != r} C_jsr. Optimized over the
 * supra-graph (n x n_layers nodes; node i of layer s is joined to the nodes of its layer's edges
 * and, through the coupling, to node i of the coupled layers) by Leiden's passes with a per-layer
 * null model: fast local moving, refinement and aggregation of the refined subcommunities, passes
 * repeated from the last partition until one moves no node. Every community is connected in the
 * supra-graph (through edges of non-zero weight and, when omega > 0, the coupling): refinement
 * guarantees it at convergence, and a community still in pieces after max_iterations passes is
 * split into its connected pieces (which cannot lower Q). Weights must be non-negative.
 * ------------------------------------------------------------------------------------------- */

typedef enum fc_multilayer_coupling {
  FC_COUPLING_ORDINAL = 0,    /* omega between layers s and s + 1 (a time series of windows) */
  FC_COUPLING_CATEGORICAL = 1 /* omega between every two layers (unordered conditions) */
} fc_multilayer_coupling;

typedef struct fc_multilayer_options {
  double resolution;      /* gamma >= 0 and finite of every layer (unless layer_resolutions); default 1 */
  double omega;           /* coupling >= 0 and finite; default 1 */
  uint64_t seed;          /* seeds the node orders (default 1) */
  int64_t max_iterations; /* passes at most (0, the default: until a pass moves no node; 1000 at most) */
  int32_t coupling;       /* fc_multilayer_coupling (default FC_COUPLING_ORDINAL) */
  int32_t reserved;       /* 0 */
} fc_multilayer_options;

typedef struct fc_multilayer fc_multilayer;

/* Fill *options with the defaults above. */
FC_API fc_status fc_multilayer_options_default(fc_multilayer_options* options);

/* The multilayer modules of layers[0 .. n_layers) (n_layers >= 1, every layer the same node
 * count: otherwise FC_ERR_INVALID_ARG names the layer and its count). layer_resolutions: n_layers
 * values gamma_s >= 0, or NULL for options->resolution in every layer; options may be NULL
 * (defaults). A layer without edges has no null term; a node without edges in any layer and no
 * coupling (omega 0 or one layer) is a community of its own in that layer. Same input and seed:
 * the same labels on every thread count and backend (host code). The progress callback is asked
 * between levels. */
FC_API fc_status fc_multilayer_modularity(fc_context* ctx, const fc_graph* const* layers, int64_t n_layers,
                                          const double* layer_resolutions, const fc_multilayer_options* options,
                                          fc_multilayer** out);

/* Versioned options of fc_multilayer_modularity_v2 (as fc_leiden_options_v2): the algorithm of
 * the passes, then fc_multilayer_options. FC_LEIDEN_QUEUE is fc_multilayer_modularity's result,
 * bit for bit (host code on every backend). FC_LEIDEN_SYNCHRONOUS makes each pass's moves and
 * refinement in rounds of simultaneous decisions, as fc_leiden_v2's FC_LEIDEN_SYNCHRONOUS does,
 * with the per-layer null model: the same labels on every backend and thread count (on a CUDA
 * context the device runs them; a device without the memory, or a context under a memory limit
 * too small, gets the host's steps and the same labels); its labels differ from the queue's. A
 * supra-node moves at most 4 times in a level (simultaneous moves could otherwise swap nodes back
 * and forth). Passes until none moves (max_iterations 0) can be many passes of few moves: on 400
 * regions x 100 windows (an H200), 2 passes took 32 ms for 99.6 % of the converged Q (0.195 s),
 * so base.max_iterations = 2 or 3 is the fast choice there (a community left in pieces is split).
 * The supra-graph of n nodes x L layers takes about 24 n L^2 bytes of per-layer sums on top of the
 * graph (n = 400, L = 100: 96 MB). */
typedef struct fc_multilayer_options_v2 {
  uint32_t size;      /* sizeof(fc_multilayer_options_v2): later versions append fields after `base` */
  int32_t algorithm;  /* fc_leiden_algorithm (default FC_LEIDEN_QUEUE) */
  fc_multilayer_options base;
} fc_multilayer_options_v2;

/* Fill *options with the defaults (size set, FC_LEIDEN_QUEUE, fc_multilayer_options_default's base). */
FC_API fc_status fc_multilayer_options_v2_default(fc_multilayer_options_v2* options);

/* fc_multilayer_modularity with versioned options (NULL: the defaults); options->size must be at
 * least this version's struct (FC_ERR_INVALID_ARG names it otherwise). Example:
 *   fc_multilayer_options_v2 o;
 *   fc_multilayer_options_v2_default(&o);
 *   o.algorithm = FC_LEIDEN_SYNCHRONOUS;
 *   o.base.omega = 0.5;
 *   fc_multilayer* m = NULL;
 *   if (fc_multilayer_modularity_v2(ctx, layers, n_layers, NULL, &o, &m) == FC_OK) { ... fc_multilayer_destroy(m); } */
FC_API fc_status fc_multilayer_modularity_v2(fc_context* ctx, const fc_graph* const* layers, int64_t n_layers,
                                             const double* layer_resolutions, const fc_multilayer_options_v2* options,
                                             fc_multilayer** out);

/* n_nodes, n_layers, the number of communities over all layers, and Q; any may be NULL. */
FC_API fc_status fc_multilayer_info(const fc_multilayer* multilayer, int64_t* n_nodes, int64_t* n_layers,
                                    int64_t* n_communities, double* q);

/* labels[s * n_nodes + i]: node i's community in layer s (layer-major), ids 0 .. n_communities - 1
 * shared across layers (numbered by first appearance). capacity >= n_nodes * n_layers. */
FC_API fc_status fc_multilayer_labels(const fc_multilayer* multilayer, int64_t* labels, int64_t capacity);

/* flexibility[i]: the fraction of the n_layers - 1 consecutive layer pairs in which node i changes
 * community (0 with one layer; Bassett et al. 2011, PNAS 108:7641). capacity >= n_nodes. */
FC_API fc_status fc_multilayer_flexibility(const fc_multilayer* multilayer, double* flexibility, int64_t capacity);

/* Module allegiance: allegiance[i * ld + j], the fraction of layers in which nodes i and j share
 * a community (1 on the diagonal); ld >= n_nodes, capacity >= (n_nodes - 1) * ld + n_nodes.
 * Dense: for region-level n. Errors leave the buffer untouched. */
FC_API fc_status fc_multilayer_allegiance(const fc_multilayer* multilayer, double* allegiance, int64_t ld,
                                          int64_t capacity);

/* Sparse module allegiance, for voxel-level n: the pairs i < j whose allegiance (the dense
 * matrix's value, bit for bit) is >= floor, floor in (0, 1], in row order (i ascending, then j):
 * rows[x], cols[x], values[x] for x < *count. *count (required) always gets the number of such
 * pairs. capacity 0 (the arrays may then be NULL) asks for the count alone and returns FC_OK; a
 * capacity below the count gives FC_ERR_BUFFER_TOO_SMALL (with *count set) and writes nothing.
 * Without the n x n matrix: a pair sharing t of the L layers shares one of any L - t + 1, so each
 * node's candidates come from its communities in that many layers; rows run on the host's
 * default OpenMP threads, the output does not depend on them. */
FC_API fc_status fc_multilayer_allegiance_pairs(const fc_multilayer* multilayer, double floor, int64_t* rows,
                                                int64_t* cols, double* values, int64_t capacity, int64_t* count);

/* Accepts NULL. */
FC_API void fc_multilayer_destroy(fc_multilayer* multilayer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FASTCONN_H */
