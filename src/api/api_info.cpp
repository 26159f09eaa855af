// Version, status names, the thread-local last error, and build capabilities.
#include <string>

#include "api/api_guard.hpp"
#include "backend/backend.hpp"
#include "backend/cpu/cpu_info.hpp"
#include "fastconn/fastconn.h"

namespace fc {
namespace {
thread_local std::string last_error_text;
}
void set_last_error(const std::string& message) { last_error_text = message; }
}  // namespace fc

extern "C" {

FC_API void fc_version(int* major, int* minor, int* patch) {
  if (major) *major = FASTCONN_VERSION_MAJOR;
  if (minor) *minor = FASTCONN_VERSION_MINOR;
  if (patch) *patch = FASTCONN_VERSION_PATCH;
}

FC_API const char* fc_status_string(fc_status status) {
  switch (fc::raw_enum(status)) {  // any int: never loaded as fc_status
    case FC_OK: return "FC_OK: success";
    case FC_DONE: return "FC_DONE: no more blocks";
    case FC_ERR_CUDA: return "FC_ERR_CUDA: a CUDA call failed";
    case FC_ERR_OUT_OF_MEMORY: return "FC_ERR_OUT_OF_MEMORY: out of memory";
    case FC_ERR_BACKEND_UNAVAILABLE: return "FC_ERR_BACKEND_UNAVAILABLE: backend not available";
    case FC_ERR_IO: return "FC_ERR_IO: input/output error";
    case FC_ERR_NULL_ARG: return "FC_ERR_NULL_ARG: a required pointer is NULL";
    case FC_ERR_INVALID_ARG: return "FC_ERR_INVALID_ARG: invalid argument";
    case FC_ERR_BUFFER_TOO_SMALL: return "FC_ERR_BUFFER_TOO_SMALL: output buffer too small";
    case FC_ERR_NONFINITE_INPUT: return "FC_ERR_NONFINITE_INPUT: input holds NaN or Inf";
    case FC_ERR_ABORTED: return "FC_ERR_ABORTED: cancelled";
    case FC_ERR_BAD_STATE: return "FC_ERR_BAD_STATE: handle in the wrong state";
    case FC_ERR_INTERNAL: return "FC_ERR_INTERNAL: internal error";
  }
  return "unknown fc_status";
}

FC_API const char* fc_last_error(void) { return fc::last_error_text.c_str(); }

FC_API int fc_has_cuda(void) { return fc::cuda_backend_compiled() ? 1 : 0; }

FC_API const char* fc_cpu_info(void) {
  static const std::string text = fc::cpu::cpu_info();  // thread-safe, made once
  return text.c_str();
}

}  // extern "C"
