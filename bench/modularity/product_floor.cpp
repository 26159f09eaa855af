// What one pass of the modularity eigensolver over a graph's entries can cost on this machine's
// cores: the floor under fc_modularity's host products (bench/RESULTS-modularity.md).
//
//   product_floor GRAPH.fcg [--threads T] [--reps R]
//
// On the whole graph (16-bit columns when it has at most 65,536 nodes, as fastconn's subgraphs
// use, else 32-bit), one pass each, medians of R:
//   read     the columns streamed and summed: the bytes a pass cannot avoid (memory bandwidth);
//   ordered  y_i = sum of x over row i's columns in entry order, one running sum a row: the order
//            of fastconn's host product, which the CUDA backend repeats bit for bit (fastconn
//            itself interleaves 4 rows, faster; its own pass time is in FASTCONN_PROFILE's lines);
//   lanes    the same sums split over 4 running sums per row: a summation order free of the add
//            chain (different bits), the gather's floor.
// The ratios say how far the product is from its floors.
#include <fastconn/fastconn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

template <class F>
double median_ms(int reps, F&& pass) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class Col>
void run(const std::vector<int64_t>& off, const std::vector<Col>& col, int threads, int reps) {
  const int64_t n = int64_t(off.size()) - 1, entries = int64_t(col.size());
  std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 1.0 / double(1 + i % 97);
  volatile uint64_t sink = 0;
  const double read = median_ms(reps, [&] {
    uint64_t s = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : s)
    for (int64_t e = 0; e < entries; ++e) s += col[static_cast<size_t>(e)];
    sink = sink + s;
  });
  const double ordered = median_ms(reps, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      double sum = 0;
      for (int64_t e = off[static_cast<size_t>(i)]; e < off[static_cast<size_t>(i + 1)]; ++e)
        sum += x[col[static_cast<size_t>(e)]];
      y[static_cast<size_t>(i)] = sum;
    }
  });
  const double lanes = median_ms(reps, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      double s[4] = {0, 0, 0, 0};
      int64_t e = off[static_cast<size_t>(i)];
      const int64_t end = off[static_cast<size_t>(i + 1)];
      for (; e + 4 <= end; e += 4)
        for (int k = 0; k < 4; ++k) s[k] += x[col[static_cast<size_t>(e + k)]];
      for (; e < end; ++e) s[0] += x[col[static_cast<size_t>(e)]];
      y[static_cast<size_t>(i)] = (s[0] + s[1]) + (s[2] + s[3]);
    }
  });
  const double bytes = double(entries) * sizeof(Col);
  std::printf("%lld nodes, %lld entries, %d-bit columns, %d threads, medians of %d passes\n", (long long)n,
              (long long)entries, int(8 * sizeof(Col)), threads, reps);
  std::printf("| pass | ms | entries/s | x read floor |\n| --- | ---: | ---: | ---: |\n");
  std::printf("| read (columns streamed, %.0f MB) | %.2f | %.2e | 1.00 |\n", bytes / 1e6, read, entries / read * 1e3);
  std::printf("| lanes (4 sums a row: the gather's floor) | %.2f | %.2e | %.2f |\n", lanes, entries / lanes * 1e3,
              lanes / read);
  std::printf("| ordered (one running sum a row, fastconn\'s order) | %.2f | %.2e | %.2f |\n", ordered,
              entries / ordered * 1e3, ordered / read);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s GRAPH.fcg [--threads T] [--reps R]\n", argv[0]);
    return 2;
  }
  int threads = 2, reps = 21;
  for (int a = 2; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--threads")) threads = std::atoi(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--reps")) reps = std::atoi(argv[a + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }
  if (threads < 1 || reps < 1) {
    std::fprintf(stderr, "--threads and --reps must be at least 1\n");
    return 2;
  }
  fc_graph* g = nullptr;
  if (fc_graph_load(argv[1], &g) != FC_OK) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], fc_last_error());
    return 1;
  }
  int64_t n = 0, edges = 0;
  fc_graph_info(g, &n, &edges);
  std::vector<int64_t> off(static_cast<size_t>(n + 1)), wide(static_cast<size_t>(2 * edges));
  if (fc_graph_csr(g, off.data(), wide.data(), nullptr, int64_t(wide.size())) != FC_OK) {
    std::fprintf(stderr, "fc_graph_csr: %s\n", fc_last_error());
    fc_graph_destroy(g);
    return 1;
  }
  fc_graph_destroy(g);
  wide.resize(static_cast<size_t>(off.back()));
  if (n <= 65536) run(off, std::vector<uint16_t>(wide.begin(), wide.end()), threads, reps);
  else run(off, std::vector<uint32_t>(wide.begin(), wide.end()), threads, reps);
  return 0;
}
