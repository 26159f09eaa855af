#include "context/context.hpp"

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "backend/split_backend.hpp"
#include "base/error.hpp"

namespace fc {
namespace {

// FASTCONN_SPLIT_CPU=k (k >= 2), a testing aid: a CPU context is then a split backend over k CPU
// backends (backend/split_backend.hpp), so that the split of a multi-GPU context is tested
// without GPUs. Unset, empty or 1: one CPU backend.
std::shared_ptr<Backend> cpu_backend_from_environment() {
  const char* env = std::getenv("FASTCONN_SPLIT_CPU");
  if (env == nullptr || *env == '\0') return make_cpu_backend();
  char* end = nullptr;
  const long k = std::strtol(env, &end, 10);
  if (*end != '\0' || k < 1 || k > 64)
    fail(FC_ERR_INVALID_ARG, std::string("FASTCONN_SPLIT_CPU is \"") + env +
                                 "\"; use a whole number of CPU parts from 1 to 64 (a testing aid), or unset it");
  std::vector<std::shared_ptr<Backend>> parts;
  std::vector<std::string> labels;
  for (long i = 0; i < k; ++i) {
    parts.push_back(make_cpu_backend());
    labels.push_back("part " + std::to_string(i));
  }
  return make_split_backend(std::move(parts), std::move(labels));
}

}  // namespace

std::shared_ptr<ContextState> create_context(const fc_backend& backend, int device) {
  const int b = raw_enum(backend);
  if (b != FC_BACKEND_AUTO && b != FC_BACKEND_CPU && b != FC_BACKEND_CUDA)
    fail(FC_ERR_INVALID_ARG, "backend " + std::to_string(b) +
                                 " is not one of FC_BACKEND_AUTO (0), FC_BACKEND_CPU (1), FC_BACKEND_CUDA (2)");
  if (device < -1) fail(FC_ERR_INVALID_ARG, "device " + std::to_string(device) + " is negative (use -1 for the default device)");
  auto state = std::make_shared<ContextState>();
  if (backend == FC_BACKEND_CPU) {
    state->backend = cpu_backend_from_environment();
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

std::shared_ptr<ContextState> create_context_cuda_devices(const int* devices, int n_devices) {
  if (n_devices < 0) fail(FC_ERR_INVALID_ARG, "n_devices is " + std::to_string(n_devices) + "; use >= 1, or 0 for every visible device");
  if (n_devices > 0) require_not_null(devices, "devices");
  std::vector<int> ids;
  std::set<int> seen;
  for (int i = 0; i < n_devices; ++i) {
    const int id = devices[i];
    if (id < 0) fail(FC_ERR_INVALID_ARG, "devices[" + std::to_string(i) + "] is " + std::to_string(id) + ", a negative device id");
    if (!seen.insert(id).second)
      fail(FC_ERR_INVALID_ARG, "devices[" + std::to_string(i) + "] is " + std::to_string(id) + ", which devices lists twice");
    ids.push_back(id);
  }
  auto state = std::make_shared<ContextState>();
  state->backend = make_cuda_devices_backend(ids);
  return state;
}

}  // namespace fc
