// Every CUDA runtime and cuBLAS status goes through these checks: a failure becomes an
// fc::Error naming the call and the error, FC_ERR_OUT_OF_MEMORY for a failed allocation and
// FC_ERR_CUDA otherwise.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "base/error.hpp"

namespace fc {
namespace cuda {

[[noreturn]] inline void fail_cuda(cudaError_t status, const char* call) {
  cudaGetLastError();  // clear a sticky-free error so the next call starts clean
  const fc_status code = status == cudaErrorMemoryAllocation ? FC_ERR_OUT_OF_MEMORY : FC_ERR_CUDA;
  fail(code, std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) fail_cuda(status, call);
}

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const fc_status code = status == CUBLAS_STATUS_ALLOC_FAILED ? FC_ERR_OUT_OF_MEMORY : FC_ERR_CUDA;
  fail(code, std::string(call) + " failed: " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

}  // namespace cuda
}  // namespace fc

// The call's text is its name in the message: FC_CUDA(cudaMalloc(&p, bytes)).
#define FC_CUDA(call) ::fc::cuda::check_cuda((call), #call)
#define FC_CUBLAS(call) ::fc::cuda::check_cublas((call), #call)
