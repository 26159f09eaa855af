/* fastconn.i's part for the compact value formats (fc_value_format: fc_pcc_triu_compact,
 * fc_pcc_dense_compact, fc_blocks_next_compact, fc_dfc_triu_compact), %included by it after its
 * typemaps. The outputs are numpy arrays of 2-byte items used in place: int16 for
 * FC_VALUES_INT16 codes, float16 (or uint16, the same bits) for FC_VALUES_HALF; 1-D and
 * contiguous for the triangles and blocks, 2-D with contiguous rows for the dense matrix.
 * Decoding is numpy's (fastconn.decode): fc_decode_values is not wrapped, nor the callback twin
 * fc_pcc_blocks_foreach_compact (Python pulls blocks). */

%{
/* The writable native array of 2-byte items behind `input` with `dims` dimensions (1-D:
 * contiguous); NULL with a TypeError / ValueError otherwise. */
static PyArrayObject* fcpy_codes(PyObject* input, int dims) {
  PyArrayObject* array;
  int type;
  if (!PyArray_Check(input)) {
    PyErr_SetString(PyExc_TypeError, "the output of a compact call must be a numpy array of int16 or float16");
    return NULL;
  }
  array = (PyArrayObject*)input;
  type = PyArray_TYPE(array);
  if (type != NPY_INT16 && type != NPY_UINT16 && type != NPY_HALF) {
    PyErr_SetString(PyExc_TypeError, "the output of a compact call must be int16 (FC_VALUES_INT16) or float16 (FC_VALUES_HALF)");
    return NULL;
  }
  if (!require_dimensions(array, dims) || !require_native(array) || !fcpy_require_writeable(array)) return NULL;
  if (dims == 1 && !require_contiguous(array)) return NULL;
  return array;
}
%}

/* (codes, capacity in codes): a 1-D array of 2-byte items */
%define FCPY_CODES_OUT(PTR)
%typemap(in, fragment="fcpy_vector") (void* PTR, int64_t capacity) (PyArrayObject* array = NULL) {
  array = fcpy_codes($input, 1);
  if (array == NULL) SWIG_fail;
  $1 = PyArray_DATA(array);
  $2 = (int64_t)PyArray_DIM(array, 0);
}
%enddef
FCPY_CODES_OUT(out)   /* fc_pcc_triu_compact, fc_dfc_triu_compact */
FCPY_CODES_OUT(buf)   /* fc_blocks_next_compact */

/* The dense output: as fastconn.i's float matrices, with 2-byte items. */
%typemap(in, fragment="fcpy_strided,fcpy_vector") (void* out, int64_t ld)
  (PyArrayObject* array = NULL, int64_t out_rows = 0, int64_t out_cols = 0)
{
  array = fcpy_codes($input, 2);
  if (array == NULL) SWIG_fail;
  out_rows = (int64_t)PyArray_DIM(array, 0);
  out_cols = (int64_t)PyArray_DIM(array, 1);
  if (out_cols > 1 && PyArray_STRIDE(array, 1) != 2) {
    PyErr_SetString(PyExc_ValueError, "the output matrix needs contiguous rows (row-major, unit column stride)");
    SWIG_fail;
  }
  $2 = out_rows <= 1 ? (out_cols > 0 ? out_cols : 1) : fcpy_element_stride(array, 0, "row");
  if ($2 < 0) SWIG_fail;
  if (out_rows > 1 && $2 < out_cols) {
    PyErr_SetString(PyExc_ValueError, "the output matrix rows overlap");
    SWIG_fail;
  }
  $1 = PyArray_DATA(array);
}

/* out_rows4 / out_cols4: the dense typemap's locals for argument 4 (out). */
%exception fc_pcc_dense_compact {
  if (!fcpy_require_matrix_shape(arg2, arg2, out_rows4, out_cols4)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

%ignore fc_pcc_blocks_foreach_compact;
%ignore fc_decode_values;
%ignore fc_decode_values_f64;
