// A compute backend (cpu/ always, cuda/ when built): one interface per capability, each in its
// own header (pcc_backend.hpp, graph_backend.hpp, window_backend.hpp, modules_backend.hpp,
// centrality_backend.hpp, partial_backend.hpp, lfcd_backend.hpp), and this one joining them with what names the backend.
//
// The capabilities above (src/pcc, src/graph, src/dfc, src/modules, src/centrality) validate
// arguments, normalize the input in float64 and decide what to compute; a backend stores normalized series and computes
// products of them. A backend never calls the public API and never sees unvalidated input.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/centrality_backend.hpp"
#include "backend/graph_backend.hpp"
#include "backend/lfcd_backend.hpp"
#include "backend/modules_backend.hpp"
#include "backend/partial_backend.hpp"
#include "backend/pcc_backend.hpp"
#include "backend/window_backend.hpp"
#include "fastconn/fastconn.h"

namespace fc {

class Backend : public PccBackend, public GraphBackend, public WindowBackend, public ModulesBackend,
                public CentralityBackend, public PartialBackend, public LfcdBackend {
 public:
  virtual ~Backend() = default;

  virtual fc_backend kind() const = 0;
  virtual std::string describe() const = 0;  // e.g. "CPU (OpenBLAS, 2 threads)"
};

// Creates a backend; throws fc::Error(FC_ERR_BACKEND_UNAVAILABLE) with the reason when the kind
// is not built in or has no usable device. AUTO is resolved by the caller (context/context.cpp).
std::shared_ptr<Backend> make_cpu_backend();
std::shared_ptr<Backend> make_cuda_backend(int device);  // src/backend/cuda/
// Over the listed devices (distinct, non-negative; empty: every visible one): one CudaBackend,
// or a SplitBackend over one per device (backend/split_backend.hpp), the first the primary.
// FC_ERR_INVALID_ARG for an id past the device count.
std::shared_ptr<Backend> make_cuda_devices_backend(const std::vector<int>& devices);
bool cuda_backend_compiled();

}  // namespace fc
