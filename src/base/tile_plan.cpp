#include "base/tile_plan.hpp"

#include <unistd.h>

#include <algorithm>

#include "base/error.hpp"

namespace fc {

int64_t plan_tile_rows(int64_t bytes_per_row, int64_t budget, int64_t max_rows, const std::string& what) {
  if (bytes_per_row <= 0 || max_rows <= 0) return 1;
  if (budget < bytes_per_row)
    fail(FC_ERR_OUT_OF_MEMORY, "memory limit of " + std::to_string(budget) + " bytes is below the " +
                                   std::to_string(bytes_per_row) + " bytes that one row of " + what +
                                   " needs; raise it with fc_context_set_memory_limit (0 = automatic)");
  return std::max<int64_t>(1, std::min<int64_t>(max_rows, budget / bytes_per_row));
}

int64_t default_host_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  const int64_t gib = int64_t(1) << 30;
  if (pages <= 0 || page_size <= 0) return gib / 4;
  return std::min<int64_t>(gib, static_cast<int64_t>(pages) * page_size / 4);
}

}  // namespace fc
