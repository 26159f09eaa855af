// Where fc_modularity's time goes (modules/), printed when FASTCONN_PROFILE asks for it.
#pragma once

#include <chrono>

namespace fc {

// Where fc_modularity's time goes, printed to stderr when FASTCONN_PROFILE contains "modularity"
// (for the benchmarks; nothing is measured otherwise).
struct Phases {
  bool on = false;
  double induced = 0, eigen = 0, products = 0, refine = 0, final_moves = 0, upload = 0;
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
  // Adds the seconds f takes to `into` when on.
  void add(const Phases& o) {
    induced += o.induced;
    eigen += o.eigen;
    products += o.products;
    refine += o.refine;
    final_moves += o.final_moves;
    upload += o.upload;
  }
  template <class F>
  auto time(double& into, F&& f) {
    if (!on) return f();
    const Clock::time_point t0 = Clock::now();
    struct Add {
      double& into;
      Clock::time_point t0;
      ~Add() { into += since(t0); }
    } add{into, t0};
    return f();
  }
};

}  // namespace fc
