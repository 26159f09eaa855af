// TEMPORARY (removed once both backends implement the network primitives; then they become pure
// virtual again): a backend that lacks one reports it instead of failing to build.
#include "backend/backend.hpp"
#include "core/error.hpp"

namespace fc {
namespace {
[[noreturn]] void pending(const Backend& b, const char* what) {
  fail(FC_ERR_BACKEND_UNAVAILABLE, std::string(what) + " is not yet implemented on the " + b.describe() + " backend");
}
}  // namespace
void Backend::threshold_edges(const SeriesView&, const EdgeTest&, UpperEdges&, const RunSettings&) { pending(*this, "threshold_edges"); }
void Backend::threshold_degree(const SeriesView&, const EdgeTest&, int64_t*, double*, const RunSettings&) { pending(*this, "threshold_degree"); }
void Backend::abs_histogram(const SeriesView&, std::vector<int64_t>&, const RunSettings&) { pending(*this, "abs_histogram"); }
void Backend::top_k(const SeriesView&, int64_t, int64_t*, float*, const RunSettings&) { pending(*this, "top_k"); }
}  // namespace fc
