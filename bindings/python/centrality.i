/* fastconn.i's part for centrality, rank correlation and Fisher z (fc_pcc_ecm,
 * fc_pcc_ecm_thresholded, fc_dfc_ecm, fc_graph_eigenvector_centrality, fc_series_create_ranked_*,
 * fc_fisher_z_*), %included by it after its typemaps: the ranked series creators take fastconn.i's
 * series typemap as they are. */

/* (pointer, capacity) outputs; fastconn checks the capacity. */
FCPY_VECTOR_OUT(double, NPY_DOUBLE, centrality, capacity)  /* fc_pcc_ecm(_thresholded), fc_graph_eigenvector_centrality */
FCPY_VECTOR_OUT(float, NPY_FLOAT, values, count)            /* fc_fisher_z_f32, in place */
FCPY_VECTOR_OUT(double, NPY_DOUBLE, values, count)          /* fc_fisher_z_f64, in place */

/* The eigenvalue: fastconn.i's `eigenvalue` array typemap (fc_modules_splits'), here a 1-element
 * float64 array or None; lengthN is that typemap's local for argument N. */
%exception fc_pcc_ecm {
  if (!fcpy_require_length("eigenvalue", length6, 1, "it holds one value, so its length must be")) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%exception fc_pcc_ecm_thresholded {
  if (!fcpy_require_length("eigenvalue", length9, 1, "it holds one value, so its length must be")) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
%exception fc_graph_eigenvector_centrality {
  if (!fcpy_require_length("eigenvalue", length7, 1, "it holds one value, so its length must be")) SWIG_fail;
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
/* fc_dfc_ecm: W eigenvalues (arg2 the series, arg3 / arg4 length and step; eigenvalue is argument
 * 10); the W x N centralities are checked by fastconn against its capacity. */
%exception fc_dfc_ecm {
  {
    const int64_t w = fcpy_window_count(arg2, arg3, arg4);
    if (w >= 0 && !fcpy_require_length("eigenvalue", length10, w, "the window count is")) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}
