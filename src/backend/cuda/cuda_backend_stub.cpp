// Built when CUDA is not compiled in: FC_BACKEND_CUDA is unavailable and AUTO picks the CPU.
#include "backend/backend.hpp"
#include "core/error.hpp"

namespace fc {

bool cuda_backend_compiled() { return false; }

std::shared_ptr<Backend> make_cuda_backend(int) {
  fail(FC_ERR_BACKEND_UNAVAILABLE,
       "this fastconn was built without CUDA (configure with -DFASTCONN_CUDA=ON on a machine with the CUDA toolkit)");
}

}  // namespace fc
