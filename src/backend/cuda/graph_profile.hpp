// Where fc_pcc_graph's time goes on the CUDA backend (for the benchmarks: bench/RESULTS-gpu.md
// uses it to say what bounds the dynamic graphs). Summed over every graph the process builds and
// printed to stderr at exit when FASTCONN_PROFILE contains "graph"; nothing is measured otherwise.
// Each phase ends at a synchronization the path makes anyway, so timing adds none, except the
// assembly's: it runs beside the next graph's work, and a profiled run waits for it.
//   edges     threshold_edges: the bands' products and the edge compaction into the arena
//   assemble  the symmetric CSR built on the device (count, scan, place, sort, place)
//   copy      the CSR to the host arrays (locked: one D2H each; else the staging ring), less:
//   ahead     fc_dfc_next_graph's next window, built while the copy runs (copy_csr's meanwhile)
//   wait      what the copy still took after the next window was built
#pragma once

#include <chrono>

namespace fc {
namespace cuda {

class GraphProfile {
 public:
  enum Phase { kEdges, kAssemble, kCopy, kAhead, kWait, kPhases };
  using Clock = std::chrono::steady_clock;

  // The process's profile, or null when FASTCONN_PROFILE does not ask for it.
  static GraphProfile* get();

  void add(Phase phase, Clock::time_point since);
  void add_seconds(Phase phase, double seconds);
  void graph_done(bool on_device);

 private:
  GraphProfile() = default;
  ~GraphProfile();
  double seconds_[kPhases] = {};
  long graphs_ = 0, on_device_ = 0;
};

// Adds the time from `since` to now to `phase` when the profile is on.
inline void profile_phase(GraphProfile* p, GraphProfile::Phase phase, GraphProfile::Clock::time_point since) {
  if (p != nullptr) p->add(phase, since);
}

}  // namespace cuda
}  // namespace fc
