/* fastconn.i - SWIG interface of the low-level module fastconn._fastconn.
 *
 * Wraps only the public C header include/fastconn/fastconn.h, nearly one to one; the friendly
 * API (numpy layouts, defaults, dense matrices, generators) lives in fastconn/*.py. Built with
 * `swig -python -builtin -interface _fastconn`: the C extension is the module (no proxy .py).
 *
 * What this layer adds to the C functions, and why:
 *  - Every fc_status >= 100 raises at once, with fc_last_error() read right after the call (it
 *    is thread-local and overwritten by the next fastconn call): FastconnError (a RuntimeError),
 *    InvalidArgumentError (also a ValueError) for the 2xx range, OutOfMemoryError (also a
 *    MemoryError), BackendUnavailableError, AbortedError. Each carries .status. A function whose
 *    only result is its status returns None; the iterators' FC_OK / FC_DONE (fc_blocks_next(_f64, _compact),
 *    fc_dfc_next_triu, fc_dfc_next_graph) is returned as an int.
 *  - The GIL is released around every C call (%exception below), so other Python threads run
 *    while fastconn computes. The only path back into Python is the progress trampoline, which
 *    takes the GIL with PyGILState_Ensure. (SWIG's -threads option is not used: it would also
 *    wrap the typemap code that touches Python objects.)
 *  - The progress trampoline checks PyErr_CheckSignals first, so Ctrl-C cancels a long call and
 *    KeyboardInterrupt (or whatever the Python callback raised) comes out of the C call.
 *  - Handles (fc_context, fc_series, fc_blocks, fc_graph, fc_dfc, fc_modules) are owned proxies:
 *    Python's garbage collector calls fc_*_destroy, so the *_destroy functions are not exposed
 *    (no double free).
 *  - Arrays cross as numpy arrays without copies: an input series set is any aligned, native
 *    float32 / float64 2-D array whose axis 0 is the series and axis 1 the time; its strides
 *    (bytes) become series_stride / time_stride (elements). Outputs are writable arrays whose
 *    sizes are checked against the series before the call, so no call writes out of bounds.
 */
%module(package="fastconn") _fastconn

%{
#define SWIG_FILE_WITH_INIT
#include "fastconn/fastconn.h"
%}

%include <stdint.i>
%include <typemaps.i>
%include "numpy.i"

%init %{
  import_array();
  fcpy_add_exceptions(d);
%}

/* ---------------------------------------------------------------------------------------------
 * Exceptions and status mapping.
 * ------------------------------------------------------------------------------------------- */
%{
static PyObject* fcpy_error = NULL;          /* FastconnError(RuntimeError) */
static PyObject* fcpy_invalid = NULL;        /* InvalidArgumentError(FastconnError, ValueError) */
static PyObject* fcpy_memory = NULL;         /* OutOfMemoryError(FastconnError, MemoryError) */
static PyObject* fcpy_unavailable = NULL;    /* BackendUnavailableError(FastconnError) */
static PyObject* fcpy_aborted = NULL;        /* AbortedError(FastconnError) */

static PyObject* fcpy_new_exception(PyObject* dict, const char* name, PyObject* base, PyObject* mixin) {
  char qualified[96];
  PyObject* bases = mixin ? PyTuple_Pack(2, base, mixin) : PyTuple_Pack(1, base);
  PyObject* cls;
  if (bases == NULL) return NULL;
  PyOS_snprintf(qualified, sizeof qualified, "fastconn.%s", name);
  cls = PyErr_NewException(qualified, bases, NULL);
  Py_DECREF(bases);
  if (cls != NULL) PyDict_SetItemString(dict, name, cls); /* the dict takes its own reference */
  return cls;
}

static void fcpy_add_exceptions(PyObject* dict) {
  fcpy_error = fcpy_new_exception(dict, "FastconnError", PyExc_RuntimeError, NULL);
  if (fcpy_error == NULL) return;
  fcpy_invalid = fcpy_new_exception(dict, "InvalidArgumentError", fcpy_error, PyExc_ValueError);
  fcpy_memory = fcpy_new_exception(dict, "OutOfMemoryError", fcpy_error, PyExc_MemoryError);
  fcpy_unavailable = fcpy_new_exception(dict, "BackendUnavailableError", fcpy_error, NULL);
  fcpy_aborted = fcpy_new_exception(dict, "AbortedError", fcpy_error, NULL);
}

/* Sets the Python exception for a failed call. Must run before any other fastconn call in this
 * thread, since fc_last_error() is overwritten by the next failure. */
static void fcpy_raise(fc_status status) {
  PyObject* cls = fcpy_error;
  PyObject* exc;
  const char* text = fc_last_error();
  if (PyErr_Occurred()) return; /* the progress callback raised (e.g. KeyboardInterrupt): keep it */
  if (status >= 200 && status < 300) cls = fcpy_invalid;
  else if (status == FC_ERR_OUT_OF_MEMORY) cls = fcpy_memory;
  else if (status == FC_ERR_BACKEND_UNAVAILABLE) cls = fcpy_unavailable;
  else if (status == FC_ERR_ABORTED) cls = fcpy_aborted;
  exc = PyObject_CallFunction(cls, "s", (text && text[0]) ? text : fc_status_string(status));
  if (exc == NULL) return;
  PyObject* code = PyLong_FromLong((long)status);
  if (code != NULL) {
    PyObject_SetAttrString(exc, "status", code);
    Py_DECREF(code);
  }
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
}
%}

/* Errors raise; FC_OK becomes None, so functions with outputs return just the outputs. */
%typemap(out) fc_status {
  if ((int)$1 >= 100) {
    fcpy_raise($1);
    SWIG_fail;
  }
  if ($1 == FC_OK) {
    $result = Py_None;
    Py_INCREF(Py_None);
  } else {
    $result = PyLong_FromLong((long)$1);
  }
}
/* ... except for the iterators, whose FC_OK / FC_DONE is the answer. */
%typemap(out) fc_status fc_blocks_next, fc_status fc_blocks_next_f64, fc_status fc_blocks_next_compact,
              fc_status fc_dfc_next_triu, fc_status fc_dfc_next_graph {
  if ((int)$1 >= 100) {
    fcpy_raise($1);
    SWIG_fail;
  }
  $result = PyLong_FromLong((long)$1);
}

/* The GIL is released around the C call only ($action), never around typemap code. */
%exception {
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* ---------------------------------------------------------------------------------------------
 * Handles: owned proxies whose destructor is fc_*_destroy. These empty definitions are seen by
 * SWIG only (the C structs stay opaque); they give each handle a Python class with a destructor.
 * ------------------------------------------------------------------------------------------- */
%define FCPY_HANDLE(TYPE, DESTROY)
%nodefaultctor TYPE;
%ignore DESTROY;
struct TYPE {};
%extend TYPE {
  ~TYPE() { DESTROY($self); }
}
%typemap(in, numinputs=0) TYPE** out (TYPE* temp = NULL) { $1 = &temp; }
%typemap(argout) TYPE** out {
  $result = SWIG_Python_AppendOutput($result, SWIG_NewPointerObj(*$1, $*1_descriptor, SWIG_POINTER_OWN));
}
%enddef
FCPY_HANDLE(fc_context, fc_context_destroy)
FCPY_HANDLE(fc_series, fc_series_destroy)
FCPY_HANDLE(fc_blocks, fc_blocks_destroy)
FCPY_HANDLE(fc_graph, fc_graph_destroy)
FCPY_HANDLE(fc_dfc, fc_dfc_destroy)
FCPY_HANDLE(fc_modules, fc_modules_destroy)

/* ---------------------------------------------------------------------------------------------
 * Scalar outputs.
 * ------------------------------------------------------------------------------------------- */
%apply int* OUTPUT { int* major, int* minor, int* patch };
%apply int* OUTPUT { int* out };
%apply int64_t* OUTPUT { int64_t* n_series, int64_t* n_time, int64_t* n_constant };
%apply int64_t* OUTPUT { int64_t* i, int64_t* j };
%apply int64_t* OUTPUT { int64_t* out };
%apply int64_t* OUTPUT { int64_t* n_nodes, int64_t* n_edges };
%apply int64_t* OUTPUT { int64_t* n_windows, int64_t* length, int64_t* window };    /* fc_dfc_info, _next_graph */
%apply int64_t* OUTPUT { int64_t* n_communities, int64_t* n_splits };              /* fc_modules_info */
%apply double* OUTPUT { double* q };                         /* fc_modules_info, fc_modularity_score */
%apply double* OUTPUT { double* rel_error };                 /* fc_pcc_lowrank (one value) */

%define FCPY_ENUM_OUT(TYPE)
%typemap(in, numinputs=0) TYPE* out (TYPE temp = (TYPE)0) { $1 = &temp; }
%typemap(argout) TYPE* out { $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)*$1)); }
%enddef
FCPY_ENUM_OUT(fc_backend)
FCPY_ENUM_OUT(fc_precision)

%typemap(in, numinputs=0) fc_block_info* info (fc_block_info temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) fc_block_info* info {
  $result = SWIG_Python_AppendOutput($result, Py_BuildValue("(LLLL)", (long long)$1->row_begin,
      (long long)$1->row_end, (long long)$1->triu_offset, (long long)$1->count));
}

%typemap(in, numinputs=0) fc_dfc_block_info* info (fc_dfc_block_info temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) fc_dfc_block_info* info {
  $result = SWIG_Python_AppendOutput($result, Py_BuildValue("(LLLLLLL)", (long long)$1->window,
      (long long)$1->time_begin, (long long)$1->row_begin, (long long)$1->row_end, (long long)$1->triu_offset,
      (long long)$1->count, (long long)$1->n_constant));
}

/* ---------------------------------------------------------------------------------------------
 * Input series: a 2-D numpy array, axis 0 = series, axis 1 = time, used in place.
 * ------------------------------------------------------------------------------------------- */
%fragment("fcpy_strided", "header", fragment="NumPy_Fragments") %{
/* Element stride of axis `axis`, or -1 (with a ValueError set) when the byte stride is not a
 * positive multiple of the item size. An axis of length 1 has no meaningful stride: 1 will do
 * (fastconn accepts any nesting when a dimension has one element). */
static int64_t fcpy_element_stride(PyArrayObject* array, int axis, const char* what) {
  const npy_intp bytes = PyArray_STRIDE(array, axis);
  const npy_intp item = PyArray_ITEMSIZE(array);
  if (PyArray_DIM(array, axis) <= 1) return 1;
  if (bytes <= 0 || bytes % item != 0) {
    PyErr_Format(PyExc_ValueError,
                 "the %s axis has a stride of %ld bytes; fastconn needs a positive multiple of the "
                 "item size (%ld): pass a copy, e.g. numpy.ascontiguousarray(x)",
                 what, (long)bytes, (long)item);
    return -1;
  }
  return (int64_t)(bytes / item);
}

/* The array behind `input` if it has `typecode`, 2 dimensions, native byte order and aligned
 * data; NULL with a TypeError / ValueError otherwise. No conversion: the caller's data is used. */
static PyArrayObject* fcpy_matrix(PyObject* input, int typecode) {
  PyArrayObject* array = obj_to_array_no_conversion(input, typecode);
  if (array == NULL || !require_dimensions(array, 2) || !require_native(array)) return NULL;
  if (!PyArray_ISALIGNED(array)) {
    PyErr_SetString(PyExc_ValueError, "the array is not aligned; pass numpy.require(x, requirements='A')");
    return NULL;
  }
  return array;
}
%}

%define FCPY_SERIES_IN(CTYPE, TYPECODE)
%typemap(in, fragment="fcpy_strided")
  (const CTYPE* data, int64_t n_series, int64_t n_time, int64_t series_stride, int64_t time_stride)
  (PyArrayObject* array = NULL)
{
  array = fcpy_matrix($input, TYPECODE);
  if (array == NULL) SWIG_fail;
  $1 = ($1_ltype)PyArray_DATA(array);
  $2 = (int64_t)PyArray_DIM(array, 0);
  $3 = (int64_t)PyArray_DIM(array, 1);
  $4 = fcpy_element_stride(array, 0, "series");
  $5 = fcpy_element_stride(array, 1, "time");
  if ($4 < 0 || $5 < 0) SWIG_fail;
}
%enddef
FCPY_SERIES_IN(float, NPY_FLOAT)
FCPY_SERIES_IN(double, NPY_DOUBLE)

/* ---------------------------------------------------------------------------------------------
 * Outputs: writable numpy arrays filled in place.
 * ------------------------------------------------------------------------------------------- */
%fragment("fcpy_vector", "header", fragment="NumPy_Fragments") %{
static int fcpy_require_writeable(PyArrayObject* array) {
  if (PyArray_ISWRITEABLE(array)) return 1;
  PyErr_SetString(PyExc_ValueError, "the output array is read-only");
  return 0;
}

/* The 1-D contiguous native array of `typecode` behind `input`, used in place (writable when
 * `writable`); NULL with a TypeError / ValueError otherwise. */
static PyArrayObject* fcpy_vector(PyObject* input, int typecode, int writable) {
  PyArrayObject* array = obj_to_array_no_conversion(input, typecode);
  if (array == NULL || !require_dimensions(array, 1) || !require_contiguous(array) || !require_native(array)) return NULL;
  if (writable && !fcpy_require_writeable(array)) return NULL;
  return array;
}
%}

/* A whole 1-D contiguous array: (pointer, capacity in elements). fastconn checks the capacity. */
%define FCPY_VECTOR_OUT(CTYPE, TYPECODE, PTR, COUNT)
%typemap(in, fragment="fcpy_vector") (CTYPE* PTR, int64_t COUNT) (PyArrayObject* array = NULL) {
  array = fcpy_vector($input, TYPECODE, 1);
  if (array == NULL) SWIG_fail;
  $1 = (CTYPE*)PyArray_DATA(array);
  $2 = (int64_t)PyArray_DIM(array, 0);
}
%enddef
FCPY_VECTOR_OUT(float, NPY_FLOAT, out, capacity)
FCPY_VECTOR_OUT(double, NPY_DOUBLE, out, capacity)
FCPY_VECTOR_OUT(float, NPY_FLOAT, buf, capacity)
FCPY_VECTOR_OUT(double, NPY_DOUBLE, buf, capacity)         /* fc_blocks_next_f64 */
FCPY_VECTOR_OUT(float, NPY_FLOAT, factor, capacity)         /* fc_pcc_lowrank */
FCPY_VECTOR_OUT(float, NPY_FLOAT, factors, capacity)        /* fc_dfc_lowrank */
FCPY_VECTOR_OUT(int64_t, NPY_INT64, labels, capacity)       /* fc_modules_labels */

/* A 2-D float32 (float64 for the _f64 calls) array with unit column stride (it may be a view
 * into a larger matrix): (pointer, leading dimension). The C API has no rows / columns to check
 * against, so the shape is kept in locals and compared with the series by the function-specific
 * checks below. */
%define FCPY_MATRIX_OUT(CTYPE, TYPECODE)
%typemap(in, fragment="fcpy_strided,fcpy_vector") (CTYPE* out, int64_t ld)
  (PyArrayObject* array = NULL, int64_t out_rows = 0, int64_t out_cols = 0)
{
  array = fcpy_matrix($input, TYPECODE);
  if (array == NULL || !fcpy_require_writeable(array)) SWIG_fail;
  out_rows = (int64_t)PyArray_DIM(array, 0);
  out_cols = (int64_t)PyArray_DIM(array, 1);
  if (out_cols > 1 && PyArray_STRIDE(array, 1) != (npy_intp)sizeof(CTYPE)) {
    PyErr_SetString(PyExc_ValueError, "the output matrix needs contiguous rows (row-major, unit column stride)");
    SWIG_fail;
  }
  $2 = out_rows <= 1 ? (out_cols > 0 ? out_cols : 1) : fcpy_element_stride(array, 0, "row");
  if ($2 < 0) SWIG_fail;
  if (out_rows > 1 && $2 < out_cols) {
    PyErr_SetString(PyExc_ValueError, "the output matrix rows overlap");
    SWIG_fail;
  }
  $1 = (CTYPE*)PyArray_DATA(array);
}
%enddef
FCPY_MATRIX_OUT(float, NPY_FLOAT)
FCPY_MATRIX_OUT(double, NPY_DOUBLE)

%{
/* 1 if an out_rows x out_cols output holds the rows x cols result of series a and b. */
static int fcpy_require_matrix_shape(const fc_series* a, const fc_series* b, int64_t out_rows, int64_t out_cols) {
  int64_t rows = 0, cols = 0;
  if (a == NULL || b == NULL) return 1; /* fastconn reports the NULL argument itself */
  if (fc_series_info(a, &rows, NULL, NULL) != FC_OK || fc_series_info(b, &cols, NULL, NULL) != FC_OK) return 1;
  if (out_rows == rows && out_cols == cols) return 1;
  PyErr_Format(PyExc_ValueError, "the output matrix is %lld x %lld; this result is %lld x %lld",
               (long long)out_rows, (long long)out_cols, (long long)rows, (long long)cols);
  return 0;
}
%}
/* arg2 / arg3 are SWIG's names of the series arguments; out_rows3 / out_rows4 are the typemap
 * locals above, numbered after the position of `out`. */
%exception fc_pcc_dense {
  if (!fcpy_require_matrix_shape(arg2, arg2, out_rows3, out_cols3)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%exception fc_pcc_cross {
  if (!fcpy_require_matrix_shape(arg2, arg3, out_rows4, out_cols4)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%exception fc_pcc_dense_f64 {
  if (!fcpy_require_matrix_shape(arg2, arg2, out_rows3, out_cols3)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%exception fc_pcc_cross_f64 {
  if (!fcpy_require_matrix_shape(arg2, arg3, out_rows4, out_cols4)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* ---------------------------------------------------------------------------------------------
 * Progress: a Python callable (or None) behind a C trampoline. The caller keeps the callable
 * alive while the context may call it (fastconn.Context does).
 * ------------------------------------------------------------------------------------------- */
%{
/* Runs in the thread that made the (GIL-released) API call. Returns non-zero to cancel: when a
 * signal handler raised (Ctrl-C), when the callable raised, or when it returned a true value. */
static int fcpy_progress(int64_t done, int64_t total, void* user) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* fn = (PyObject*)user;
  int stop = 0;
  if (PyErr_Occurred() || PyErr_CheckSignals() != 0) {
    stop = 1;
  } else if (fn != NULL && fn != Py_None) {
    PyObject* answer = PyObject_CallFunction(fn, "LL", (long long)done, (long long)total);
    if (answer == NULL) {
      stop = 1;
    } else {
      stop = PyObject_IsTrue(answer);
      if (stop < 0) stop = 1;
      Py_DECREF(answer);
    }
  }
  PyGILState_Release(gil);
  return stop;
}
%}
%typemap(in) (fc_progress_fn fn, void* user) {
  if ($input != Py_None && !PyCallable_Check($input)) {
    PyErr_SetString(PyExc_TypeError, "progress must be a callable(done, total) or None");
    SWIG_fail;
  }
  $1 = fcpy_progress;
  $2 = (void*)$input; /* borrowed: see above */
}

/* ---------------------------------------------------------------------------------------------
 * Networks. These C functions take one capacity for several arrays (fc_graph_csr,
 * fc_graph_edges) or none (fc_graph_create_csr, fc_pcc_degree), so each array argument keeps
 * its length in a typemap local (`length`, numbered after the argument's position: length3 is
 * argument 3's), and the function's %exception checks the lengths against each other and the
 * handle before the call, then derives the capacity: no call reads or writes out of bounds.
 * ------------------------------------------------------------------------------------------- */

/* A 1-D array argument used in place: an output when WRITABLE, else an input; None passes NULL
 * when NULLABLE (length stays -1). */
%define FCPY_VECTOR_ARG(CTYPE, TYPECODE, NAME, WRITABLE, NULLABLE)
%typemap(in, fragment="fcpy_vector") CTYPE* NAME (PyArrayObject* array = NULL, int64_t length = -1) {
  if (NULLABLE && $input == Py_None) {
    $1 = NULL;
  } else {
    array = fcpy_vector($input, TYPECODE, WRITABLE);
    if (array == NULL) SWIG_fail;
    $1 = ($1_ltype)PyArray_DATA(array);
    length = (int64_t)PyArray_DIM(array, 0);
  }
}
%enddef
FCPY_VECTOR_ARG(int64_t, NPY_INT64, row_offsets, 1, 0)       /* fc_graph_csr */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, columns, 1, 0)
FCPY_VECTOR_ARG(float, NPY_FLOAT, weights, 1, 1)             /* fc_graph_csr, fc_graph_edges */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, edge_i, 1, 0)            /* fc_graph_edges */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, edge_j, 1, 0)
FCPY_VECTOR_ARG(const int64_t, NPY_INT64, columns, 0, 0)     /* fc_graph_create_csr */
FCPY_VECTOR_ARG(const float, NPY_FLOAT, weights, 0, 1)
FCPY_VECTOR_ARG(int64_t, NPY_INT64, degree, 1, 1)            /* fc_pcc_degree */
FCPY_VECTOR_ARG(double, NPY_DOUBLE, strength, 1, 1)

/* fc_graph_create_csr's node count is the length of row_offsets minus one. */
%typemap(in, fragment="fcpy_vector") (int64_t n_nodes, const int64_t* row_offsets) (PyArrayObject* array = NULL) {
  array = fcpy_vector($input, NPY_INT64, 0);
  if (array == NULL) SWIG_fail;
  if (PyArray_DIM(array, 0) < 1) {
    PyErr_SetString(PyExc_ValueError, "row_offsets is empty; it needs n_nodes + 1 values");
    SWIG_fail;
  }
  $1 = (int64_t)PyArray_DIM(array, 0) - 1;
  $2 = ($2_ltype)PyArray_DATA(array);
}

/* The capacity of fc_graph_csr / fc_graph_edges is set by their %exception below. (Every other
 * capacity is part of a (pointer, capacity) pair above, which SWIG matches first.) */
%typemap(in, numinputs=0) int64_t capacity "$1 = 0;"

%{
/* 1 if an array of `length` elements (-1: None, not checked) has the `expected` length. */
static int fcpy_require_length(const char* what, int64_t length, int64_t expected, const char* because) {
  if (length < 0 || length == expected) return 1;
  PyErr_Format(PyExc_ValueError, "%s has %lld elements; %s %lld", what, (long long)length, because, (long long)expected);
  return 0;
}

/* The node count of a graph, or -1 when fastconn cannot tell (a NULL handle: the call itself
 * then reports it). */
static int64_t fcpy_graph_nodes(const fc_graph* graph) {
  int64_t n = 0;
  return graph != NULL && fc_graph_info(graph, &n, NULL) == FC_OK ? n : -1;
}
%}

%exception fc_graph_csr {
  {
    const int64_t n = fcpy_graph_nodes(arg1);
    if (n >= 0 && !fcpy_require_length("row_offsets", length2, n + 1, "the graph's n_nodes + 1 is")) SWIG_fail;
    if (!fcpy_require_length("weights", length4, length3, "it must match columns, which has")) SWIG_fail;
    arg5 = length3;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* fc_graph_edges under other output names, since `int64_t* i, int64_t* j` are fc_triu_pair's
 * scalar outputs above. */
%ignore fc_graph_edges;
%rename(fc_graph_edges) fcpy_graph_edges;
%exception fcpy_graph_edges {
  if (!fcpy_require_length("edge_j", length3, length2, "it must match edge_i, which has")) SWIG_fail;
  if (!fcpy_require_length("weights", length4, length2, "it must match edge_i, which has")) SWIG_fail;
  arg5 = length2;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%inline %{
static fc_status fcpy_graph_edges(const fc_graph* graph, int64_t* edge_i, int64_t* edge_j, float* weights,
                                  int64_t capacity) {
  return fc_graph_edges(graph, edge_i, edge_j, weights, capacity);
}
%}

/* fastconn reads row_offsets[n_nodes] entries of columns and weights. The call is spelled out
 * instead of $action: SWIG's stdint.i takes int64_t for long long, and its generated call would
 * cast the const pointers to long long const* (a different type where int64_t is long). */
%exception fc_graph_create_csr {
  if (arg2[arg1] > length3) {
    PyErr_Format(PyExc_ValueError, "row_offsets[%lld] is %lld but columns has only %lld elements", (long long)arg1,
                 (long long)arg2[arg1], (long long)length3);
    SWIG_fail;
  }
  if (!fcpy_require_length("weights", length4, length3, "it must match columns, which has")) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  result = fc_graph_create_csr(arg1, arg2, arg3, arg4, arg5);
  Py_END_ALLOW_THREADS
}

%exception fc_pcc_degree {
  {
    int64_t n = -1;
    if (arg2 != NULL && fc_series_info(arg2, &n, NULL, NULL) == FC_OK &&
        (!fcpy_require_length("degree", length5, n, "the series count is") ||
         !fcpy_require_length("strength", length6, n, "the series count is"))) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* ---------------------------------------------------------------------------------------------
 * Dynamic connectivity, low rank and modules: the same scheme. Arrays without a capacity of their
 * own (fc_dfc_degree's W x N outputs, fc_dfc_summary's two triangles, fc_dfc_lowrank's W errors,
 * the split arrays, fc_modularity_score's labels) are checked against the series, the window
 * count, each other or the graph before the call.
 * ------------------------------------------------------------------------------------------- */
FCPY_VECTOR_ARG(double, NPY_DOUBLE, mean, 1, 1)              /* fc_dfc_summary */
FCPY_VECTOR_ARG(double, NPY_DOUBLE, sd, 1, 1)
FCPY_VECTOR_ARG(double, NPY_DOUBLE, rel_errors, 1, 1)        /* fc_dfc_lowrank (shim below) */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, parent, 1, 1)            /* fc_modules_splits */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, child_a, 1, 1)
FCPY_VECTOR_ARG(int64_t, NPY_INT64, child_b, 1, 1)
FCPY_VECTOR_ARG(double, NPY_DOUBLE, eigenvalue, 1, 1)
FCPY_VECTOR_ARG(double, NPY_DOUBLE, gain, 1, 1)
FCPY_VECTOR_ARG(int64_t, NPY_INT64, iterations, 1, 1)
FCPY_VECTOR_ARG(double, NPY_DOUBLE, residual, 1, 1)
FCPY_VECTOR_ARG(const int64_t, NPY_INT64, labels, 0, 0)      /* fc_modularity_score */
FCPY_VECTOR_ARG(const int64_t, NPY_INT64, initial_labels, 0, 1) /* fc_leiden (None: singletons) */

%{
/* The series count of a series set, or -1 when fastconn cannot tell (a NULL handle: the call
 * itself then reports it). */
static int64_t fcpy_series_count(const fc_series* series) {
  int64_t n = 0;
  return series != NULL && fc_series_info(series, &n, NULL, NULL) == FC_OK ? n : -1;
}

/* The number of windows of (length, step) in a series set, or -1 when the series or the window
 * spec is invalid: the call itself then reports it (and writes nothing). */
static int64_t fcpy_window_count(const fc_series* series, int64_t length, int64_t step) {
  int64_t n_time = 0;
  if (series == NULL || fc_series_info(series, NULL, &n_time, NULL) != FC_OK) return -1;
  return fc_window_count(n_time, length, step);
}

/* The common length of the given arrays (-1: None, skipped), or -2 with a ValueError when two
 * differ; -1 when every array is None. */
static int64_t fcpy_common_length(const char* const* names, const int64_t* lengths, int count) {
  int first = -1, k;
  for (k = 0; k < count; ++k) {
    if (lengths[k] < 0) continue;
    if (first < 0) {
      first = k;
    } else if (lengths[k] != lengths[first]) {
      PyErr_Format(PyExc_ValueError, "%s has %lld elements; it must match %s, which has %lld", names[k],
                   (long long)lengths[k], names[first], (long long)lengths[first]);
      return -2;
    }
  }
  return first < 0 ? -1 : lengths[first];
}
%}

/* W x N window-major outputs: arg2 the series, arg3 / arg4 length and step. */
%exception fc_dfc_degree {
  {
    const int64_t n = fcpy_series_count(arg2), w = fcpy_window_count(arg2, arg3, arg4);
    if (n >= 0 && w >= 0 && (!fcpy_require_length("degree", length9, w * n, "windows x series is") ||
                             !fcpy_require_length("strength", length10, w * n, "windows x series is"))) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* mean and sd share one capacity (arg10); fastconn checks it against the triangle. */
%exception fc_dfc_summary {
  {
    static const char* const names[] = {"mean", "sd"};
    const int64_t lengths[] = {length8, length9};
    const int64_t common = fcpy_common_length(names, lengths, 2);
    if (common == -2) SWIG_fail;
    arg10 = common < 0 ? 0 : common;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* fc_dfc_lowrank under another name of its error output, since `double* rel_error` is
 * fc_pcc_lowrank's one scalar output above; here it is an array of W values. */
%ignore fc_dfc_lowrank;
%rename(fc_dfc_lowrank) fcpy_dfc_lowrank;
%exception fcpy_dfc_lowrank {
  {
    const int64_t w = fcpy_window_count(arg2, arg3, arg4);
    if (w >= 0 && !fcpy_require_length("rel_errors", length10, w, "the window count is")) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%inline %{
static fc_status fcpy_dfc_lowrank(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                  double sigma, int64_t rank, float* factors, int64_t capacity, double* rel_errors) {
  return fc_dfc_lowrank(ctx, series, length, step, taper, sigma, rank, factors, capacity, rel_errors);
}
%}

/* The split arrays share one capacity (arg9); fastconn checks it against n_splits. */
%exception fc_modules_splits {
  {
    static const char* const names[] = {"parent", "child_a", "child_b", "eigenvalue", "gain", "iterations",
                                        "residual"};
    const int64_t lengths[] = {length2, length3, length4, length5, length6, length7, length8};
    const int64_t common = fcpy_common_length(names, lengths, 7);
    if (common == -2) SWIG_fail;
    arg9 = common < 0 ? 0 : common;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* fastconn reads n_nodes labels. The call is spelled out for the const pointer, as for
 * fc_graph_create_csr. */
%exception fc_modularity_score {
  {
    const int64_t n = fcpy_graph_nodes(arg1);
    if (n >= 0 && !fcpy_require_length("labels", length2, n, "the graph's n_nodes is")) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  result = fc_modularity_score(arg1, arg2, arg3, arg4);
  Py_END_ALLOW_THREADS
}

/* fc_leiden and fc_leiden_v2 read n_nodes initial labels when they are given. */
%define FCPY_LEIDEN_CALL(FUNCTION, OPTIONS)
%exception FUNCTION {
  {
    const int64_t n = fcpy_graph_nodes(arg2);
    if (arg4 != NULL && n >= 0 && !fcpy_require_length("initial_labels", length4, n, "the graph's n_nodes is"))
      SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  result = FUNCTION(arg1, arg2, (OPTIONS const*)arg3, arg4, arg5);
  Py_END_ALLOW_THREADS
}
%enddef
FCPY_LEIDEN_CALL(fc_leiden, fc_leiden_options)
/* fc_leiden_options_v2's member `base` is a plain struct: SWIG's setter copies an
 * fc_leiden_options into it (options.base = o), which is how fastconn.leiden fills it. */
FCPY_LEIDEN_CALL(fc_leiden_v2, fc_leiden_options_v2)

/* The callback twins of the block and window iterators take a C function pointer; Python uses
 * the pull iterators (fastconn.blocks, fastconn.sliding_windows) instead. */
%ignore fc_pcc_blocks_foreach;
%ignore fc_dfc_foreach_triu;

%include "centrality.i"
%include "partial.i"
%include "lfcd.i"
%include "compact.i"
%include "multilayer.i"
%include "devices.i"

%include "fastconn/fastconn_export.h"
%include "fastconn/fastconn_version.h"
%include "fastconn/fastconn.h"
