// lFCD, local functional connectivity density (Tomasi and Volkow 2010, PNAS 107:9885; AFNI's
// 3dLFCD): for each seed voxel, the size of the cluster grown from it over the voxel grid, where a
// voxel adjacent to the cluster joins when its r with the seed passes the threshold. Only
// seed-to-candidate products are computed (the clusters and their boundaries), from the stored
// normalized rows on the host, whatever the backend.
#pragma once

#include <cstdint>

#include "context/context.hpp"
#include "pcc/series.hpp"

namespace fc {

// Seeds per progress report (and per cancellation check).
constexpr int64_t kLfcdSeedsPerStep = 4096;

// fc_pcc_lfcd: validates every argument (the header's contract), then writes s.n counts into lfcd.
void pcc_lfcd(const ContextState& ctx, const SeriesData& s, const int32_t* coords, const int64_t* dims, int neighbourhood,
              const fc_edge_rule& rule, double threshold, int64_t* lfcd);

}  // namespace fc
