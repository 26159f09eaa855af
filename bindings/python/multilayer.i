/* fastconn.i's part for multilayer modularity (fc_multilayer_modularity, its _v2 and its
 * result's accessors), %included by it after its typemaps. */

FCPY_HANDLE(fc_multilayer, fc_multilayer_destroy)

%apply int64_t* OUTPUT { int64_t* n_layers };               /* fc_multilayer_info */

/* The layers: a sequence of fc_graph proxies, passed as a temporary array of their handles. */
%typemap(in) (const fc_graph* const* layers, int64_t n_layers) (const fc_graph** handles = NULL) {
  Py_ssize_t count, k;
  if (!PySequence_Check($input)) {
    PyErr_SetString(PyExc_TypeError, "layers must be a sequence of fc_graph");
    SWIG_fail;
  }
  count = PySequence_Size($input);
  if (count < 0) SWIG_fail;
  handles = (const fc_graph**)calloc(count > 0 ? (size_t)count : 1, sizeof *handles);
  if (handles == NULL) {
    PyErr_NoMemory();
    SWIG_fail;
  }
  for (k = 0; k < count; ++k) {
    void* pointer = NULL;
    PyObject* item = PySequence_GetItem($input, k);
    const int ok = item != NULL && SWIG_IsOK(SWIG_ConvertPtr(item, &pointer, $descriptor(fc_graph*), 0));
    Py_XDECREF(item);
    if (!ok) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "layers[%ld] is not an fc_graph", (long)k);
      SWIG_fail;
    }
    handles[k] = (const fc_graph*)pointer;
  }
  $1 = ($1_ltype)handles;
  $2 = (int64_t)count;
}
%typemap(freearg) (const fc_graph* const* layers, int64_t n_layers) { free((void*)handles$argnum); }

FCPY_VECTOR_ARG(const double, NPY_DOUBLE, layer_resolutions, 0, 1) /* None: options->resolution */
FCPY_VECTOR_OUT(double, NPY_DOUBLE, flexibility, capacity)

/* fc_multilayer_modularity and fc_multilayer_modularity_v2 read n_layers resolutions when they
 * are given. */
%define FCPY_MULTILAYER_CALL(FUNCTION, OPTIONS)
%exception FUNCTION {
  if (arg4 != NULL && !fcpy_require_length("layer_resolutions", length4, arg3, "the layer count is")) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  result = FUNCTION(arg1, (const fc_graph* const*)arg2, arg3, (const double*)arg4, (OPTIONS const*)arg5, arg6);
  Py_END_ALLOW_THREADS
}
%enddef
FCPY_MULTILAYER_CALL(fc_multilayer_modularity, fc_multilayer_options)
/* fc_multilayer_options_v2's member `base` is a plain struct: SWIG's setter copies an
 * fc_multilayer_options into it (options.base = o), which is how fastconn.multilayer_modularity
 * fills it. */
FCPY_MULTILAYER_CALL(fc_multilayer_modularity_v2, fc_multilayer_options_v2)

/* The dense allegiance: a writable C-contiguous 2-D float64 array; ld is its row length and the
 * capacity its size, which fastconn checks against n_nodes. */
%typemap(in, fragment="fcpy_strided,fcpy_vector") (double* allegiance, int64_t ld, int64_t capacity)
  (PyArrayObject* array = NULL)
{
  array = fcpy_matrix($input, NPY_DOUBLE);
  if (array == NULL || !fcpy_require_writeable(array) || !require_contiguous(array)) SWIG_fail;
  $1 = (double*)PyArray_DATA(array);
  $2 = (int64_t)PyArray_DIM(array, 1);
  $3 = (int64_t)PyArray_SIZE(array);
}

/* fc_multilayer_allegiance_pairs: three writable 1-D arrays of one length (the capacity), or
 * None for each (capacity 0: the count alone); the count comes back. */
FCPY_VECTOR_ARG(int64_t, NPY_INT64, rows, 1, 1)
FCPY_VECTOR_ARG(int64_t, NPY_INT64, cols, 1, 1)
FCPY_VECTOR_ARG(double, NPY_DOUBLE, values, 1, 1)
%apply int64_t* OUTPUT { int64_t* count };
%exception fc_multilayer_allegiance_pairs {
  {
    static const char* const names[] = {"rows", "cols", "values"};
    const int64_t lengths[] = {length3, length4, length5};
    const int64_t common = fcpy_common_length(names, lengths, 3);
    if (common == -2) SWIG_fail;
    if (common >= 0 && (length3 < 0 || length4 < 0 || length5 < 0)) {
      PyErr_SetString(PyExc_ValueError, "rows, cols and values are all arrays or all None");
      SWIG_fail;
    }
    arg6 = common < 0 ? 0 : common;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
