#include "context/context.hpp"

#include "base/error.hpp"

namespace fc {

std::shared_ptr<ContextState> create_context(const fc_backend& backend, int device) {
  const int b = raw_enum(backend);
  if (b != FC_BACKEND_AUTO && b != FC_BACKEND_CPU && b != FC_BACKEND_CUDA)
    fail(FC_ERR_INVALID_ARG, "backend " + std::to_string(b) +
                                 " is not one of FC_BACKEND_AUTO (0), FC_BACKEND_CPU (1), FC_BACKEND_CUDA (2)");
  if (device < -1) fail(FC_ERR_INVALID_ARG, "device " + std::to_string(device) + " is negative (use -1 for the default device)");
  auto state = std::make_shared<ContextState>();
  if (backend == FC_BACKEND_CPU) {
    state->backend = make_cpu_backend();
  } else if (backend == FC_BACKEND_CUDA) {
    state->backend = make_cuda_backend(device);
  } else {
    try {
      state->backend = make_cuda_backend(device);
    } catch (const Error& e) {
      if (e.status() != FC_ERR_BACKEND_UNAVAILABLE && e.status() != FC_ERR_CUDA) throw;
      state->backend = make_cpu_backend();  // AUTO: no usable GPU, so the CPU reference
    }
  }
  return state;
}

}  // namespace fc
