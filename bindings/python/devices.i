/* fastconn.i's part for a context over several GPUs (fastconn_cuda.h's
 * fc_context_create_cuda_devices and fc_context_get_cuda_devices; the rest of that header, device
 * pointers and streams, has no Python use): the ids as a 1-D int32 array, None for every visible
 * device; the ids out into a writable int32 array whose length is the capacity. */
%{
#include "fastconn/fastconn_cuda.h"
%}
%typemap(in, fragment="fcpy_vector") (const int* devices, int n_devices) (PyArrayObject* array = NULL) {
  if ($input == Py_None) {
    $1 = NULL;
    $2 = 0;
  } else {
    array = fcpy_vector($input, NPY_INT32, 0);
    if (array == NULL) SWIG_fail;
    $1 = (const int*)PyArray_DATA(array);
    $2 = (int)PyArray_DIM(array, 0);
  }
}
%typemap(in, fragment="fcpy_vector") (int* devices, int capacity) (PyArrayObject* array = NULL) {
  array = fcpy_vector($input, NPY_INT32, 1);
  if (array == NULL) SWIG_fail;
  $1 = (int*)PyArray_DATA(array);
  $2 = (int)PyArray_DIM(array, 0);
}
%apply int* OUTPUT { int* n_devices };

fc_status fc_context_create_cuda_devices(const int* devices, int n_devices, fc_context** out);
fc_status fc_context_get_cuda_devices(const fc_context* ctx, int* devices, int capacity, int* n_devices);
