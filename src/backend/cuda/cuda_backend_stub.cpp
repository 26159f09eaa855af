// Built when CUDA is not compiled in: FC_BACKEND_CUDA is unavailable and AUTO picks the CPU.
#include "backend/backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "base/error.hpp"

namespace fc {

bool cuda_backend_compiled() { return false; }

std::shared_ptr<Backend> make_cuda_backend(int) {
  fail(FC_ERR_BACKEND_UNAVAILABLE,
       "this fastconn was built without CUDA (configure with -DFASTCONN_CUDA=ON on a machine with the CUDA toolkit)");
}

std::shared_ptr<Backend> make_cuda_devices_backend(const std::vector<int>&) { return make_cuda_backend(0); }

}  // namespace fc

// fastconn_cuda.h is installed in every build; without CUDA its functions exist and say why
// they cannot work.
namespace fc {
namespace {
[[noreturn]] void no_cuda() {
  fail(FC_ERR_BACKEND_UNAVAILABLE, "this fastconn was built without CUDA; the CUDA-only functions are unavailable");
}
}  // namespace
void cuda_set_stream(Backend&, CUstream_st*) { no_cuda(); }
CUstream_st* cuda_get_stream(const Backend&) { no_cuda(); }
int cuda_device(const Backend&) { no_cuda(); }
std::vector<int> cuda_devices(const Backend&) { no_cuda(); }
}  // namespace fc
