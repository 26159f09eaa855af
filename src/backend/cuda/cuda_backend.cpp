// CUDA backend (built when the CUDA toolkit is found). Until the real backend lands (issue
// "CUDA backend"), it reports whether a device is visible and is otherwise unavailable, so AUTO
// falls back to the CPU.
#include <cuda_runtime_api.h>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace fc {

bool cuda_backend_compiled() { return true; }

std::shared_ptr<Backend> make_cuda_backend(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
    fail(FC_ERR_BACKEND_UNAVAILABLE, std::string("no usable CUDA device: cudaGetDeviceCount failed (") +
                                         cudaGetErrorString(status) + ")");
  if (count == 0) fail(FC_ERR_BACKEND_UNAVAILABLE, "no CUDA device is visible");
  if (device >= count)
    fail(FC_ERR_BACKEND_UNAVAILABLE, "CUDA device " + std::to_string(device) + " requested but only " +
                                         std::to_string(count) + " visible");
  fail(FC_ERR_BACKEND_UNAVAILABLE, "the CUDA backend's computations are not implemented in this version");
}

}  // namespace fc
