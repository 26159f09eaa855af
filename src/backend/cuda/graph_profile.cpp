// graph_profile.cpp - see graph_profile.hpp.
#include "backend/cuda/graph_profile.hpp"

#include <cstdio>
#include <mutex>

#include "base/profile.hpp"

namespace fc {
namespace cuda {
namespace {
std::mutex g_mutex;
}  // namespace

GraphProfile* GraphProfile::get() {
  static GraphProfile* const profile = [] {
    if (!profile_asks("graph")) return static_cast<GraphProfile*>(nullptr);
    static GraphProfile instance;  // printed by its destructor at exit
    return &instance;
  }();
  return profile;
}

void GraphProfile::add(Phase phase, Clock::time_point since) {
  const double s = std::chrono::duration<double>(Clock::now() - since).count();
  std::lock_guard<std::mutex> lock(g_mutex);
  seconds_[phase] += s;
}

void GraphProfile::add_seconds(Phase phase, double seconds) {
  std::lock_guard<std::mutex> lock(g_mutex);
  seconds_[phase] += seconds;
}

void GraphProfile::graph_done(bool on_device) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++graphs_;
  if (on_device) ++on_device_;
}

GraphProfile::~GraphProfile() {
  std::fprintf(stderr,
               "[fastconn profile graph] %ld graphs (%ld assembled on the device): edges %.4f s, assemble %.4f s, "
               "copy %.4f s (besides: the next window ahead %.4f s, then the copy's wait %.4f s)\n",
               graphs_, on_device_, seconds_[kEdges], seconds_[kAssemble], seconds_[kCopy], seconds_[kAhead], seconds_[kWait]);
}

}  // namespace cuda
}  // namespace fc
