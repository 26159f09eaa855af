/* fastconn.i's part for partial correlation and precision (fc_partial_correlation / _triu),
 * %included by it after its typemaps: `out, ld` is fastconn.i's dense matrix typemap (argument 5)
 * and `out, capacity` its vector one; the intensity applied comes back as a second value. */

%apply double* OUTPUT { double* shrinkage_used };

/* out_rows5 / out_cols5: the dense typemap's locals for argument 5 (out). */
%exception fc_partial_correlation {
  if (!fcpy_require_matrix_shape(arg2, arg2, out_rows5, out_cols5)) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
