// What the extern "C" entry points of fastconn_cuda.h need from the CUDA backend, without CUDA
// headers: `struct CUstream_st*` is what cudaStream_t names.
#pragma once

#include <vector>

#include "backend/backend.hpp"

struct CUstream_st;

namespace fc {

// The stream whose queued work every later computation of this backend is ordered after
// (nullptr: the legacy default stream). Throws FC_ERR_INVALID_ARG unless `backend` is CUDA.
void cuda_set_stream(Backend& backend, CUstream_st* stream);
CUstream_st* cuda_get_stream(const Backend& backend);

// The CUDA device index the backend computes on. Throws FC_ERR_INVALID_ARG unless CUDA.
int cuda_device(const Backend& backend);

// Every device of the backend, the primary first (one for a single-device context).
std::vector<int> cuda_devices(const Backend& backend);

}  // namespace fc
