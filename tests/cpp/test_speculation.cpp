// fc_modularity's device path on the host: find_modules with a GroupProducts engine that does the
// CUDA kernels' arithmetic (kernels/group_product.cuh: each row's terms in the graph's entry order,
// the diagonal correction from the graph) in a HostSpace. It must find the host's modules bit for
// bit, also when the larger child of each split is solved ahead on a spare engine while the split
// is made (without the fine-tuning; modularity.cpp: SpareEngines, speculate), which this engine
// lets CI run without a GPU: the same labels, splits, eigenvalues and iterations, with speculative
// eigenpairs taken.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "modules/leading_eigen.hpp"
#include "modules/local_graph.hpp"
#include "modules/modularity.hpp"
#include "planted_graph.hpp"

namespace {

class HostEngine : public fc::GroupProducts {
 public:
  HostEngine(const fc::GraphData& g, double c_pos, double c_neg, std::shared_ptr<std::atomic<int>> engines)
      : g_(g), c_pos_(c_pos), c_neg_(c_neg), engines_(std::move(engines)), local_of_(size_t(g.n), -1) {
    ++*engines_;
  }

  fc::EigenSpace& select(const std::vector<int64_t>& nodes, const fc::GroupTerms& terms) override {
    for (int64_t u : nodes_) local_of_[size_t(u)] = -1;
    nodes_ = nodes;
    for (size_t i = 0; i < nodes_.size(); ++i) local_of_[size_t(nodes_[i])] = int64_t(i);
    const size_t n = nodes_.size();
    kp_.assign(terms.k_pos, terms.k_pos + n);
    kn_.assign(terms.k_neg, terms.k_neg + n);
    gd_pos_ = terms.gd_pos;
    gd_neg_ = terms.gd_neg;
    r_.resize(n);
    for (size_t i = 0; i < n; ++i) {  // group_diagonal: the row's sum of weights, then the terms
      const double sum = row_sum(nodes_[i], nullptr);
      const double pos = (terms.d_pos * kp_[i]) * terms.group_pos, neg = (terms.d_neg * kn_[i]) * terms.group_neg;
      r_[i] = sum - terms.gamma * (pos - neg);
    }
    space_ = std::make_unique<fc::HostSpace>(
        [this](const double* x, double* y) {
          const int64_t m = int64_t(nodes_.size());
          const double p = fc::deterministic_dot(kp_.data(), x, m, 1);
          const double q = gd_neg_ != 0 ? fc::deterministic_dot(kn_.data(), x, m, 1) : 0.0;
          for (int64_t i = 0; i < m; ++i) {  // group_product: GroupFinish's expression
            const double a = row_sum(nodes_[size_t(i)], x) - (gd_pos_ * kp_[size_t(i)]) * p;
            y[i] = (a + (gd_neg_ * kn_[size_t(i)]) * q) - r_[size_t(i)] * x[i];
          }
        },
        1);
    return *space_;
  }

  std::unique_ptr<fc::GroupProducts> another() const override {
    return std::make_unique<HostEngine>(g_, c_pos_, c_neg_, engines_);
  }

 private:
  // Row u's terms over the whole graph's entries in order, those outside the group adding +0.0.
  double row_sum(int64_t u, const double* x) const {
    double sum = 0;
    for (int64_t e = g_.offsets[size_t(u)]; e < g_.offsets[size_t(u) + 1]; ++e) {
      const float w = g_.weights[size_t(e)];
      const int64_t l = local_of_[size_t(g_.columns[size_t(e)])];
      const double cw = (w > 0 ? c_pos_ : c_neg_) * double(w);
      sum += l >= 0 && w != 0 ? cw * (x != nullptr ? x[l] : 1.0) : 0.0;
    }
    return sum;
  }

  const fc::GraphData& g_;
  double c_pos_, c_neg_;
  std::shared_ptr<std::atomic<int>> engines_;
  std::vector<int64_t> local_of_, nodes_;
  std::vector<double> kp_, kn_, r_;
  double gd_pos_ = 0, gd_neg_ = 0;
  std::unique_ptr<fc::HostSpace> space_;
};

struct Outcome {
  fc::Modules m;
};

Outcome modules(const fc::GraphData& g, int threads, bool engine, int64_t max_communities = 0, int refine = 1) {
  fc_modularity_options o = fc::default_modularity_options();
  o.max_communities = max_communities;
  o.refine = refine;
  fc::Progress progress(nullptr, nullptr, g.n);
  auto made = std::make_shared<std::atomic<int>>(0);  // engines made (the analyses' and the spares)
  fc::GroupProductsFactory factory;
  if (engine)
    factory = [&g, made](double c_pos, double c_neg, int) -> std::unique_ptr<fc::GroupProducts> {
      auto e = std::make_unique<HostEngine>(g, c_pos, c_neg, made);
      e->min_entries = 0;  // every group through the engine
      return e;
    };
  Outcome r;
  r.m = fc::find_modules(g, o, threads, progress, factory);
  return r;
}

void expect_same(const fc::Modules& a, const fc::Modules& b) {
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.q, b.q);
  ASSERT_EQ(a.splits.size(), b.splits.size());
  for (size_t x = 0; x < a.splits.size(); ++x) {
    EXPECT_EQ(a.splits[x].eigenvalue, b.splits[x].eigenvalue) << "split " << x;
    EXPECT_EQ(a.splits[x].gain, b.splits[x].gain) << "split " << x;
    EXPECT_EQ(a.splits[x].iterations, b.splits[x].iterations) << "split " << x;
  }
}

TEST(Speculation, TheDevicePathAndItsSpeculationsFindTheHostsModules) {
  for (const bool weighted : {false, true})
    for (const int refine : {1, 0}) {
      SCOPED_TRACE(std::string(weighted ? "weighted" : "binary") + ", refine " + std::to_string(refine));
      const auto tg = planted_graph::planted(12, 60, 3, weighted, weighted ? 41 : 42);
      const Outcome host = modules(tg->g, 4, false, 0, refine);
      ASSERT_GE(host.m.k, 12);
      const Outcome one = modules(tg->g, 1, true, 0, refine);  // one thread: no concurrent analyses, no speculation
      EXPECT_GT(one.m.device_products, 0);
      EXPECT_EQ(one.m.speculated, 0);
      expect_same(host.m, one.m);
      // Children are solved ahead only without the fine-tuning (modularity.cpp: SpareEngines).
      const Outcome four = modules(tg->g, 4, true, 0, refine);
      EXPECT_GT(four.m.device_products, 0);
      if (refine) EXPECT_EQ(four.m.speculated, 0);
      else EXPECT_GT(four.m.speculated, 0) << "no child took a speculative eigenpair";
      expect_same(host.m, four.m);
    }
}

TEST(Speculation, NoneWithACommunityLimit) {
  // A limit makes the analyses sequential (best-first): nothing is solved ahead.
  const auto tg = planted_graph::planted(8, 50, 0, false, 7);
  const Outcome host = modules(tg->g, 4, false, 5);
  const Outcome engine = modules(tg->g, 4, true, 5);
  EXPECT_EQ(engine.m.speculated, 0);
  expect_same(host.m, engine.m);
}

}  // namespace
