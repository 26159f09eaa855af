// The voxel grids of the lFCD tests (test_lfcd.cpp, tests/gpu/test_cuda_lfcd.cpp): the series'
// voxels, fc_pcc_lfcd over them, and the neighbours of a voxel found here from the coordinates
// alone (a map, not the library's lookup), for the region growings the tests write themselves.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <tuple>
#include <vector>

#include "api_calls.hpp"

namespace fctest {

struct Grid {
  std::vector<int32_t> coords;  // n x 3
  int64_t dims[3] = {1, 1, 1};
  int64_t n() const { return static_cast<int64_t>(coords.size() / 3); }
};

inline std::vector<int64_t> lfcd(const Context& ctx, const Series& s, const Grid& g, int neighbourhood,
                                 fc_edge_rule rule, double t) {
  std::vector<int64_t> out(static_cast<size_t>(g.n()), -7);
  check(fc_pcc_lfcd(ctx.get(), s.get(), g.coords.data(), g.dims, neighbourhood, rule, t, out.data()), "fc_pcc_lfcd");
  return out;
}

// The series of each occupied voxel, and f(u) for each series u adjacent to series v: sharing a
// face (neighbourhood 6), a face or an edge (18), or a face, an edge or a corner (26).
class Voxels {
 public:
  explicit Voxels(const Grid& g) : g_(g) {
    for (int64_t s = 0; s < g.n(); ++s) at_[{g.coords[3 * s], g.coords[3 * s + 1], g.coords[3 * s + 2]}] = s;
  }
  template <class F>
  void neighbours(int64_t v, int neighbourhood, F&& f) const {
    const int reach = neighbourhood == 6 ? 1 : neighbourhood == 18 ? 2 : 3;
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj)
        for (int dk = -1; dk <= 1; ++dk) {
          const int steps = std::abs(di) + std::abs(dj) + std::abs(dk);
          if (steps == 0 || steps > reach) continue;
          const auto it = at_.find({g_.coords[3 * v] + di, g_.coords[3 * v + 1] + dj, g_.coords[3 * v + 2] + dk});
          if (it != at_.end()) f(it->second);
        }
  }

 private:
  const Grid& g_;
  std::map<std::tuple<int, int, int>, int64_t> at_;
};

}  // namespace fctest
