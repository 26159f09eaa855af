/* fastconn.i's part for lFCD (fc_pcc_lfcd), %included by it after its typemaps: the voxel
 * coordinates (an (n, 3) int32 array, passed flat), the grid's three dimensions and the counts,
 * each a 1-D array whose length is checked against the series before the call. */
FCPY_VECTOR_ARG(const int32_t, NPY_INT32, coords, 0, 0)
FCPY_VECTOR_ARG(const int64_t, NPY_INT64, dims, 0, 0)
FCPY_VECTOR_ARG(int64_t, NPY_INT64, lfcd, 1, 0)

/* lengthN: the typemap local of argument N. The call is spelled out (not $action): SWIG's
 * stdint.i would cast the const int64_t* to long long const*, another type where int64_t is long
 * (see fc_graph_create_csr). */
%exception fc_pcc_lfcd {
  {
    int64_t n = -1;
    if (arg2 != NULL && fc_series_info(arg2, &n, NULL, NULL) == FC_OK &&
        (!fcpy_require_length("coords", length3, 3 * n, "it holds (i, j, k) per series: 3 x the series count") ||
         !fcpy_require_length("lfcd", length8, n, "the series count is"))) SWIG_fail;
    if (!fcpy_require_length("dims", length4, 3, "it holds (nx, ny, nz):")) SWIG_fail;
  }
  Py_BEGIN_ALLOW_THREADS
  result = fc_pcc_lfcd(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8);
  Py_END_ALLOW_THREADS
}
