// Newman's leading-eigenvector modularity with fine-tuning (see modularity.hpp for the objective).
#include "modules/modularity.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <system_error>
#include <unordered_map>

#include "base/error.hpp"
#include "base/parallel_team.hpp"
#include "base/profile.hpp"
#include "modules/final_moves.hpp"
#include "modules/group_eigen.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/line_maxima.hpp"
#include "modules/local_graph.hpp"
#include "modules/phases.hpp"
#include "modules/split_refine.hpp"

namespace fc {

namespace {

// A child's leading eigenpair computed on a spare device engine while its parent's split was
// being fine-tuned (see SpareEngines), for the child `which` of the split `side` (the eigenvector's
// signs): the child's analysis takes it when the fine-tuning kept that split.
struct Speculation {
  int which = 0;
  std::vector<int8_t> side;
  std::vector<int64_t> nodes;
  std::future<EigenResult> result;  // (its destructor waits for the eigensolve)
};

struct Candidate {
  int64_t id = 0;              // in the division tree: given when its parent's split is made
  uint64_t seed = 0;           // of its eigensolver's start vector: from its parent's and its side
  std::vector<int64_t> nodes;  // ascending global ids
  std::vector<int8_t> side;    // the split (+1: child_a, holding nodes[0]); empty: indivisible
  // The eigensolver's warm start (leading_eigen.hpp): its parent's second Ritz vector restricted
  // to its nodes. A group that splits off one module leaves the rest with a modularity matrix
  // close to its own restricted, whose leading eigenvector is close to the parent's second one
  // (the voxel network's chain of splits: 2587 products with random starts, 1715 with these).
  std::vector<double> warm;
  std::vector<double> next;    // the second Ritz vector of its own eigenproblem, for its children
  double eigenvalue = 0, gain = 0, residual = 0;
  int64_t iterations = 0;
  int64_t device_products = 0;  // of the iterations, those that ran on `device`
  bool analysed = false;
  std::unique_ptr<Candidate> child[2];  // the split's two groups, once made
  // Its subgraph once it has split (its children make theirs from it), and, until its analysis
  // has made its own, its parent's (it is side `which` of it).
  std::unique_ptr<LocalGraph> split_graph;
  std::shared_ptr<const ParentGraph> parent;
  int which = 0;
  std::future<void> ready;              // its analysis, when a worker thread runs it
  std::unique_ptr<Speculation> ahead;   // its eigenpair, computed while its parent was fine-tuned
  std::unique_ptr<Speculation> for_child;  // a child's, once split, for make_children to hand on
  bool speculated = false;              // its eigenpair came from `ahead`
};

// The seeds of a group's two children.
uint64_t child_seed(uint64_t parent, int which) {
  return SplitMix64(parent ^ (which == 0 ? 0xA24BAED4963EE407ULL : 0x9FB21C651E98DF25ULL)).next();
}

// The warm start of the child on side `sign` of a split: the parent's second Ritz vector `next` at
// the child's nodes, without its mean. Every row of a group's B^(g) sums to 0, so the all-ones
// vector is an eigenvector (eigenvalue 0) and every other eigenvector is orthogonal to it. A
// restricted Ritz vector can be nearly constant on a child (it told that child from the rest); as
// a start it would then make the exact pair (0, ones) converge before the leading pair is found,
// and the child would stay whole (3 of the 75 two-module groups of a 200 x 1,000-node planted
// partition did). Its mean removed, the guess loses nothing of the leading eigenvector.
std::vector<double> child_warm(const std::vector<double>& next, const std::vector<int8_t>& side, int8_t sign) {
  std::vector<double> w;
  for (size_t i = 0; i < side.size(); ++i)
    if (side[i] == sign) w.push_back(next[i]);
  double mean = 0;
  for (double v : w) mean += v;
  mean /= double(std::max<size_t>(1, w.size()));
  for (double& v : w) v -= mean;
  return w;
}

// The two groups of c's split (c.side), child[0] holding c's first node.
void make_children(Candidate& c, SubgraphRecycler& recycler) {
  std::shared_ptr<const ParentGraph> shared;
  if (c.split_graph) shared = recycler.share(std::move(c.split_graph), c.side);
  for (int k = 0; k < 2; ++k) {
    c.child[k] = std::make_unique<Candidate>();
    c.child[k]->seed = child_seed(c.seed, k);
    c.child[k]->parent = shared;
    c.child[k]->which = k;
  }
  for (size_t i = 0; i < c.nodes.size(); ++i) c.child[c.side[i] > 0 ? 0 : 1]->nodes.push_back(c.nodes[i]);
  if (c.next.size() == c.nodes.size())
    for (int k = 0; k < 2; ++k) c.child[k]->warm = child_warm(c.next, c.side, int8_t(k == 0 ? 1 : -1));
  std::vector<double>().swap(c.next);
  if (c.for_child) c.child[c.for_child->which]->ahead = std::move(c.for_child);
}

// What one analysis works in: the global-to-local index map, the subgraph's arrays, the device
// engine and the timings. find_modules keeps one per analysis that may run at once.
struct Slot {
  std::vector<int64_t> local_of;
  std::unique_ptr<LocalGraph> scratch;  // the subgraph of its analysis (from the recycler)
  std::unique_ptr<GroupProducts> device;
  bool device_tried = false;
  Phases phases;
};

// Spare device engines for speculative eigensolves (SpareEngines): the voxel network's chain needs
// one at a time, two allow for a second chain.
constexpr int kSpareEngines = 2;
// Analyses running at once (this one included) up to which a group's child is solved ahead.
constexpr int kSpeculateUpTo = 2;
// Up to this many analyses at once (each with its own Slot: an index map of the graph's size,
// subgraph arrays, and on CUDA its own copy of the graph on the device).
constexpr int kMaxAnalyses = 4;
// Groups of at least this many nodes, or whose nodes have at least this many stored entries, are
// analysed on a worker thread as soon as they exist; smaller ones on the main thread when their
// turn comes (a thread's start would cost more than their analysis). The entries matter for dense
// graphs: a voxel network's communities of 960 nodes hold 480 k entries each.
constexpr int64_t kConcurrentSize = 1024;
constexpr int64_t kConcurrentEntries = 65536;
// FASTCONN_PROFILE=modularity also times each analysis of a group at least this large.
constexpr int64_t kProfiledGroup = 4096;

// Device engines beyond the analyses' own, for speculative eigensolves: while a group's split is
// made, its larger child's eigenproblem is solved on a spare engine; the child takes the answer if
// the split stands as it was (the same nodes, seed and warm start: the same bits), and it is thrown
// away otherwise. It pays only where the split is the eigenvector's as it stands: without the
// fine-tuning (fc_modularity_options::refine = 0). With it, the eigensolve's tolerance of 1e-3
// leaves signs for the fine-tuning to mend in most links (the voxel network of
// bench/RESULTS-modularity.md: 1-2 of its children could use an answer solved ahead, against 34
// at a tolerance of 1e-5), so the spare engines would only take device memory and time. Engines
// are made by `make` on first use, at most as many as allow() said (none until then); each comes
// back when its eigensolve ends.
class SpareEngines {
 public:
  explicit SpareEngines(std::function<std::unique_ptr<GroupProducts>()> make) : make_(std::move(make)) {}
  // A free engine, or null.
  std::unique_ptr<GroupProducts> take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<GroupProducts> e = std::move(free_.back());
        free_.pop_back();
        return e;
      }
      if (made_ >= allowed_) return nullptr;
      ++made_;
      free_.reserve(static_cast<size_t>(allowed_));  // give() must not allocate
    }
    try {
      std::unique_ptr<GroupProducts> e = make_();
      if (e) return e;
    } catch (...) {  // no engine to be had (device memory): no speculation, nothing lost
    }
    std::lock_guard<std::mutex> lock(mutex_);
    allowed_ = 0;
    return nullptr;
  }
  void allow(int allowed) {
    std::lock_guard<std::mutex> lock(mutex_);
    allowed_ = allowed;
  }
  void give(std::unique_ptr<GroupProducts> e) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(e));
  }

 private:
  std::function<std::unique_ptr<GroupProducts>()> make_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<GroupProducts>> free_;
  int made_ = 0, allowed_ = 0;
};

// The eigensolve of c's larger child, on a spare engine, for the split `side` (before fine-tuning)
// with the parent's second Ritz vector `next`; null when no engine is free or the child would not
// use a device (too few entries) or would not be analysed (too small).
std::unique_ptr<Speculation> speculate(const Candidate& c, const std::vector<int8_t>& side, const std::vector<double>& next,
                                       const LocalGraph& lg, const ModularityTerms& t, const fc_modularity_options& o,
                                       int64_t min_entries, SpareEngines& spares) {
  int64_t nodes[2] = {0, 0}, entries[2] = {0, 0};
  for (int64_t i = 0; i < lg.n; ++i) {
    const int k = side[static_cast<size_t>(i)] > 0 ? 0 : 1;
    ++nodes[k];
    entries[k] += lg.offsets[static_cast<size_t>(i + 1)] - lg.offsets[static_cast<size_t>(i)];
  }
  const int which = entries[1] > entries[0] ? 1 : 0;
  if (entries[which] < min_entries || nodes[which] < 2 || o.min_community_size > nodes[which] / 2) return nullptr;
  std::unique_ptr<GroupProducts> engine = spares.take();
  if (!engine) return nullptr;
  struct Back {  // the engine back to the spares, whatever happens
    Back(SpareEngines& s, std::unique_ptr<GroupProducts> e) : spares(s), engine(std::move(e)) {}
    SpareEngines& spares;
    std::unique_ptr<GroupProducts> engine;
    ~Back() {
      if (engine) spares.give(std::move(engine));
    }
  };
  auto back = std::make_shared<Back>(spares, std::move(engine));
  auto sp = std::make_unique<Speculation>();
  sp->which = which;
  sp->side = side;
  const int8_t sign = which == 0 ? 1 : -1;
  for (int64_t i = 0; i < lg.n; ++i)
    if (side[static_cast<size_t>(i)] == sign) sp->nodes.push_back(c.nodes[static_cast<size_t>(i)]);
  std::vector<double> warm = next.size() == side.size() ? child_warm(next, side, sign) : std::vector<double>();
  const uint64_t seed = child_seed(c.seed, which);
  try {
    sp->result = std::async(std::launch::async, [back, nodes = sp->nodes, warm = std::move(warm), seed, &t] {
      const EigenOptions eo = eigen_options(seed, warm, int64_t(nodes.size()), 1);
      // its early answer taken as it comes: analyse() checks it as the child's own eigensolve would
      EigenResult r = device_eigenpair(*back->engine, nodes, t, eo, [](const EigenResult&) { return true; });
      back->spares.give(std::move(back->engine));  // free for the next speculation at once
      return r;
    });
  } catch (const std::system_error&) {  // no thread to be had: no speculation
    return nullptr;
  }
  return sp;
}

// Eigensolve, split, refine and score one group; leaves `side` empty when it stays whole. With
// `spares`, a device group's larger child is solved ahead (speculate) while the split is scored.
// `threads` is asked before each step (and by the host products before each product).
void analyse(Candidate& c, const GraphData& g, const ModularityTerms& t, const fc_modularity_options& o,
             const ThreadCount& threads,
             std::vector<int64_t>& local_of, LocalGraph& lg, GroupProducts* device, SpareEngines* spares,
             Phases& phases) {
  const int64_t n = int64_t(c.nodes.size());
  // min_community_size may be any int64 (up to INT64_MAX): compare without doubling it.
  const std::shared_ptr<const ParentGraph> parent = std::move(c.parent);  // let go on the way out
  if (n < 2 || o.min_community_size > n / 2) return;
  auto build = [&] {
    phases.time(phases.induced, [&] {
      if (parent) induced_from_parent(*parent, c.which, threads(), lg);
      else induced(g, t, c.nodes, local_of, threads(), lg);
    });
  };
  const EigenOptions eo = eigen_options(c.seed, c.warm, n, threads());
  // solved while its parent's split was refined, for this very group (make_children checked the
  // split; the nodes are checked here too): the eigensolve's answer is the one it would compute
  std::unique_ptr<Speculation> ahead = std::move(c.ahead);
  if (ahead && ahead->nodes != c.nodes) ahead.reset();
  // A large group's eigenproblem on the device when there is one (its vectors never leave it but
  // for the answer), else on the host. "Large" by the entries of its rows in its parent's subgraph
  // (or the graph's, for the first group): a bound of its own subgraph's, known before it is made.
  const bool on_device =
      device != nullptr && (parent ? parent_row_entries(*parent, c.which) : row_entries(g, c.nodes)) >= device->min_entries;
  std::future<void> subgraph;  // made on another thread (the device path); its destructor waits for it

  // The split an eigenpair gives, if it stands (kSplitTolerance says when): c.side and c.gain set,
  // and true. Asked by the eigensolver of its early answer, and below of its final one.
  auto split = [&](const EigenResult& er) -> bool {
    if (subgraph.valid()) subgraph.get();
    if (!(er.value > o.eigen_threshold)) return false;
    // The side of nodes[0] is child_a (+1).
    std::vector<int8_t> s(static_cast<size_t>(n));
    const bool first_positive = er.vector[0] > 0;
    int64_t count_a = 0;
    for (int64_t i = 0; i < n; ++i) {
      s[static_cast<size_t>(i)] = int8_t((er.vector[static_cast<size_t>(i)] > 0) == first_positive ? 1 : -1);
      count_a += s[static_cast<size_t>(i)] > 0;
    }
    if (count_a == n) return false;  // one sign: indivisible (Newman 2006)
    // (its destructor waits for the eigensolve when the split changes or is not made)
    std::unique_ptr<Speculation> child_ahead;
    if (spares != nullptr && on_device) child_ahead = speculate(c, s, er.next, lg, t, o, device->min_entries, *spares);
    SplitState refined;
    if (o.refine)
      refined = phases.time(phases.refine,
                            [&] { return refine_split(lg, t, c.nodes, s, o.min_community_size, threads()); });
    count_a = 0;
    for (int8_t v : s) count_a += v > 0;
    if (count_a < o.min_community_size || n - count_a < o.min_community_size) return false;
    // The fine-tuning's final state when its sums are exact (a binary graph: the same bits), else a
    // fresh pass: on the GPU machine a pass of the voxel network's chain is part of every link.
    const double gain = phases.time(phases.refine, [&] {
      return split_gain(lg, t, s, o.refine && exact_multiples(lg) ? refined : split_state(lg, s, threads()));
    });
    if (!(gain > kMinGain)) return false;
    if (s[0] < 0)
      for (int8_t& v : s) v = int8_t(-v);
    c.gain = gain;
    c.side = std::move(s);
    if (child_ahead && child_ahead->side == c.side) c.for_child = std::move(child_ahead);
    return true;
  };
  // The eigensolver's early answer, split (the fine-tuning's time kept out of the eigensolver's).
  double accepting = 0;
  const EarlyAccept accept = [&](const EigenResult& er) {
    const Phases::Clock::time_point t0 = Phases::Clock::now();
    const bool stands = split(er);
    accepting += Phases::since(t0);
    return stands;
  };

  EigenResult er;
  if (ahead) {
    build();
    er = phases.time(phases.eigen, [&] { return ahead->result.get(); });
    ahead.reset();
    c.device_products = er.iterations;
    c.speculated = true;
    // An early answer that does not split the group: the group's own eigensolve would have gone
    // on from it, so it is solved again, refusing that answer (the same bits, to kEigenTolerance;
    // on the host when this analysis has no engine of its own, which computes the same bits).
    if (er.early && !split(er)) {
      const EarlyAccept refuse = [](const EigenResult&) { return false; };
      er = phases.time(phases.eigen, [&] {
        return device != nullptr ? device_eigenpair(*device, c.nodes, t, eo, refuse)
                                 : host_eigenpair(lg, t, threads, eo, refuse, phases);
      });
      if (device != nullptr) c.device_products += er.iterations;
      c.speculated = false;
    }
  } else if (on_device) {
    // The device computes the diagonal correction from the graph itself, so the host makes the
    // subgraph (for the fine-tuning) meanwhile, on another thread: it is off the chain of splits'
    // critical path (the voxel network: about 15 of each split's 45 ms on the GPU machine).
    try {
      subgraph = std::async(std::launch::async, build);
    } catch (const std::system_error&) {  // no thread to be had: made here, first
      build();
    }
    er = phases.time(phases.eigen, [&] { return device_eigenpair(*device, c.nodes, t, eo, accept); });
    if (subgraph.valid()) subgraph.get();
    c.device_products = er.iterations;
  } else {
    build();
    er = phases.time(phases.eigen, [&] { return host_eigenpair(lg, t, threads, eo, accept, phases); });
  }
  if (phases.on) phases.eigen -= accepting;

  c.eigenvalue = er.value;
  c.iterations = er.iterations;
  c.residual = er.residual;
  std::vector<double>().swap(c.warm);
  // an early answer is here only when it split the group; a final one is split now
  if (er.early || split(er)) c.next = std::move(er.next);
}

// Labels renumbered 0 .. k-1 by first appearance; returns k.
int64_t renumber(std::vector<int64_t>& label, int64_t k_max) {
  std::vector<int64_t> to(static_cast<size_t>(k_max), -1);
  int64_t k = 0;
  for (int64_t& l : label) {
    int64_t& m = to[static_cast<size_t>(l)];
    if (m < 0) m = k++;
    l = m;
  }
  return k;
}

}  // namespace

Modules find_modules(const GraphData& g, const fc_modularity_options& o, int threads, Progress& progress,
                     const GroupProductsFactory& device_factory) {
  validate_modularity_options(o);
  const bool profile_on = profile_asks("modularity");
  const Phases::Clock::time_point start = Phases::Clock::now();
  ModularityTerms t = modularity_terms(g, fc_signed_modularity(o.signed_mode), o.resolution, threads);
  if (o.refine && t.gamma * t.d_neg == 0) {  // the fine-tuning's slopes, ranked once (refine_columns)
    std::vector<double> magnitude(static_cast<size_t>(g.n));
    const double gd_pos = t.gamma * t.d_pos;  // the slopes' factor as refine_columns computes it
    for (int64_t u = 0; u < g.n; ++u) magnitude[static_cast<size_t>(u)] = gd_pos * t.k_pos[static_cast<size_t>(u)];
    t.slope_rank = rank_magnitudes(magnitude, &t.slope_ranks, threads);
  }
  Modules out;
  out.n = g.n;
  // Isolated nodes (no edge of non-zero weight) are communities of their own: they cannot change Q.
  std::vector<char> isolated(static_cast<size_t>(g.n));
  SubgraphRecycler recycler;  // before every Candidate: their subgraphs come back to it
  Candidate root;
  int64_t n_isolated = 0;
  for (int64_t v = 0; v < g.n; ++v) {
    isolated[static_cast<size_t>(v)] = t.k_pos[static_cast<size_t>(v)] == 0 && t.k_neg[static_cast<size_t>(v)] == 0;
    if (isolated[static_cast<size_t>(v)]) ++n_isolated;
    else root.nodes.push_back(v);
  }
  progress.advance(n_isolated);

  // Best-first: every community is analysed once (eigensolve, split, refinement), and the pending
  // split with the largest gain is made next (ties: the smaller id), so max_communities keeps the
  // most valuable splits.
  //
  // Analyses of different groups are independent: each depends on its nodes and seed alone, and
  // no result depends on the thread count. So without a community limit, a group of at least
  // kConcurrentSize nodes (or kConcurrentEntries entries) is analysed on a worker thread as soon
  // as its parent's analysis has split it, up to kMaxAnalyses at once, while the main thread makes
  // the splits in best-first order and waits only for the analyses it needs. The modules are
  // those of one thread.
  const int all_threads = parallel_team(std::numeric_limits<int64_t>::max(), threads);
  const bool eager = o.max_communities == 0 && all_threads >= 2;
  const bool speculative = eager && !o.refine;  // (SpareEngines says why only then)
  const int slot_count = eager ? std::min(kMaxAnalyses, all_threads) : 1;
  std::vector<Slot> slots(static_cast<size_t>(slot_count));
  for (Slot& slot : slots) slot.phases.on = profile_on;
  std::mutex slot_mutex;
  std::condition_variable slot_freed;
  std::vector<Slot*> free_slots;
  for (Slot& slot : slots) free_slots.push_back(&slot);
  std::atomic<int> running{0};
  std::atomic<bool> stop{false};
  std::mutex engine_mutex;
  bool first_engine_tried = false;
  const GroupProducts* first_engine = nullptr;  // owned by its slot, which outlives the others' use
  // (before every Candidate: their speculations hold spare engines until they end)
  SpareEngines spares(
      [&]() -> std::unique_ptr<GroupProducts> {
        std::lock_guard<std::mutex> lock(engine_mutex);
        return first_engine != nullptr ? first_engine->another() : nullptr;
      });
  const bool may_use_device = static_cast<bool>(device_factory) && !root.nodes.empty() && o.max_communities != 1;

  // One analysis in a free slot, with a share of the threads (the slot's index map and device
  // engine made at its first use).
  auto analyse_now = [&](Candidate& c) {
    Slot* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(slot_mutex);
      slot_freed.wait(lock, [&] { return !free_slots.empty(); });
      slot = free_slots.back();
      free_slots.pop_back();
    }
    struct Release {
      std::mutex& m;
      std::condition_variable& cv;
      std::vector<Slot*>& free;
      Slot* slot;
      std::atomic<int>& running;
      ~Release() {
        --running;
        {
          std::lock_guard<std::mutex> lock(m);
          free.push_back(slot);
        }
        cv.notify_one();
      }
    } release{slot_mutex, slot_freed, free_slots, slot, running};
    const int active = ++running;
    if (slot->local_of.empty()) slot->local_of.assign(static_cast<size_t>(g.n), -1);
    if (may_use_device && !slot->device_tried) {
      slot->device_tried = true;
      slot->device = slot->phases.time(slot->phases.upload, [&]() -> std::unique_ptr<GroupProducts> {
        // the first engine copies the graph to the device; the others share that copy
        std::lock_guard<std::mutex> lock(engine_mutex);
        if (!first_engine_tried) {
          first_engine_tried = true;
          // room for the spare engines too when the memory limit allows it, else none
          std::unique_ptr<GroupProducts> engine;
          if (speculative) engine = device_factory(t.c_pos, t.c_neg, slot_count + kSpareEngines);
          if (engine) spares.allow(kSpareEngines);
          else engine = device_factory(t.c_pos, t.c_neg, slot_count);
          first_engine = engine.get();
          return engine;
        }
        return first_engine != nullptr ? first_engine->another() : nullptr;
      });
    }
    const Phases before = slot->phases;
    const Phases::Clock::time_point begun = Phases::Clock::now();
    // (each analysis takes the kept subgraph that fits its group's entries, and gives it back)
    slot->scratch = recycler.take(c.parent ? parent_row_entries(*c.parent, c.which) : row_entries(g, c.nodes));
    // Speculation pays where the analyses form a chain (one or two at a time); where four run at
    // once (a planted partition's halves) the device and the host are busy already.
    // The analyses running share the threads, counted afresh at each step: in a chain of splits the
    // large child starts beside its small sibling and takes both cores once the sibling is done
    // (the voxel network on 2 cores: half its large groups' eigensolves ran on one thread).
    const ThreadCount share = [&] { return std::max(1, all_threads / std::max(1, running.load())); };
    analyse(c, g, t, o, share, slot->local_of, *slot->scratch, slot->device.get(),
            speculative && active <= kSpeculateUpTo ? &spares : nullptr, slot->phases);
    c.analysed = true;
    if (!c.side.empty()) {  // its children will make their subgraphs from this one
      c.split_graph = std::move(slot->scratch);
    } else {
      recycler.keep(std::move(slot->scratch));
    }
    if (profile_on && int64_t(c.nodes.size()) >= kProfiledGroup) {
      const Phases& p = slot->phases;
      std::fprintf(stderr,
                   "fastconn modularity: group of %lld nodes (%lld analyses at once): %.3f s from %.3f s: subgraph "
                   "%.3f, eigensolver %.3f (%lld products), fine-tuning %.3f\n",
                   (long long)c.nodes.size(), (long long)active, Phases::since(begun),
                   std::chrono::duration<double>(begun - start).count(), p.induced - before.induced,
                   p.eigen - before.eigen, (long long)c.iterations, p.refine - before.refine);
    }
  };
  // Eager mode: c's analysis on a worker thread, then its children's, as soon as they exist.
  std::function<void(Candidate&)> launch = [&](Candidate& c) {
    if (!eager) return;
    if (int64_t(c.nodes.size()) < kConcurrentSize) {  // small: the main thread's when needed, unless dense
      int64_t entries = 0;
      for (int64_t u : c.nodes) entries += g.offsets[static_cast<size_t>(u + 1)] - g.offsets[static_cast<size_t>(u)];
      if (entries < kConcurrentEntries) return;
    }
    c.ready = std::async(std::launch::async, [&, cp = &c] {
      if (stop) return;
      analyse_now(*cp);
      if (cp->side.empty() || stop) return;
      make_children(*cp, recycler);
      launch(*cp->child[0]);
      launch(*cp->child[1]);
    });
  };
  // The analysis of c done, by a worker or now (unless the community limit is reached).
  auto analysed = [&](Candidate& c, bool may_split) {
    if (c.ready.valid()) c.ready.get();
    else if (may_split && !c.analysed) analyse_now(c);
    if (!may_split) {  // the limit was reached: it stays whole
      c.side.clear();
      c.split_graph.reset();
      for (auto& k : c.child) k.reset();
    }
  };

  std::vector<std::unique_ptr<Candidate>> pool;  // every community made, in order of creation
  struct Stop {  // on the way out (an error, a cancellation): workers start nothing new
    std::atomic<bool>& stop;
    ~Stop() { stop = true; }
  } stop_on_exit{stop};
  std::vector<int64_t> leaves;  // indices into pool of final communities
  auto by_gain = [&](int64_t a, int64_t b) {
    const Candidate &x = *pool[static_cast<size_t>(a)], &y = *pool[static_cast<size_t>(b)];
    return x.gain != y.gain ? x.gain < y.gain : x.id > y.id;
  };
  std::priority_queue<int64_t, std::vector<int64_t>, decltype(by_gain)> pending(by_gain);
  int64_t communities = n_isolated + (root.nodes.empty() ? 0 : 1), next_id = 1;
  const auto may_split = [&] { return o.max_communities == 0 || communities < o.max_communities; };
  auto admit = [&](std::unique_ptr<Candidate> c) {
    analysed(*c, may_split());
    out.device_products += c->device_products;
    out.speculated += c->speculated;
    pool.push_back(std::move(c));
    const int64_t index = int64_t(pool.size()) - 1;
    if (pool.back()->side.empty()) {
      leaves.push_back(index);
      progress.advance(int64_t(pool.back()->nodes.size()));
    } else {
      pending.push(index);
      progress.advance(0);
    }
  };
  if (!root.nodes.empty()) {
    root.seed = SplitMix64(o.seed ^ 0xD1B54A32D192ED03ULL).next();
    auto first = std::make_unique<Candidate>(std::move(root));
    launch(*first);
    admit(std::move(first));
  }
  while (!pending.empty()) {
    const int64_t index = pending.top();
    pending.pop();
    Candidate& c = *pool[static_cast<size_t>(index)];
    if (!may_split()) {  // the limit was reached: the rest stay whole
      leaves.push_back(index);
      progress.advance(int64_t(c.nodes.size()));
      continue;
    }
    if (!c.child[0]) make_children(c, recycler);  // (eager mode made them already)
    std::unique_ptr<Candidate> a = std::move(c.child[0]), b = std::move(c.child[1]);
    a->id = next_id++;
    b->id = next_id++;
    out.splits.push_back({c.id, a->id, b->id, c.eigenvalue, c.gain, c.residual, c.iterations});
    c.side.clear();
    c.side.shrink_to_fit();
    c.nodes.clear();
    c.nodes.shrink_to_fit();
    ++communities;
    admit(std::move(a));
    admit(std::move(b));
  }

  // Labels: the leaves in tree-id order, then each isolated node alone; renumbered at the end.
  std::sort(leaves.begin(), leaves.end(), [&](int64_t x, int64_t y) { return pool[static_cast<size_t>(x)]->id < pool[static_cast<size_t>(y)]->id; });
  std::vector<int64_t> label(static_cast<size_t>(g.n), -1);
  int64_t k = 0;
  for (int64_t index : leaves) {
    for (int64_t v : pool[static_cast<size_t>(index)]->nodes) label[static_cast<size_t>(v)] = k;
    ++k;
  }
  for (int64_t v = 0; v < g.n; ++v)
    if (isolated[static_cast<size_t>(v)]) label[static_cast<size_t>(v)] = k++;
  Phases& phases = slots[0].phases;
  for (size_t x = 1; x < slots.size(); ++x) phases.add(slots[x].phases);
  FinalMovesStats moves;
  if (o.refine && k > 1)
    phases.time(phases.final_moves, [&] {
      final_moves(g, t, label, k, isolated, o.min_community_size, threads, progress, phases.on ? &moves : nullptr);
    });
  out.k = renumber(label, k);
  out.labels = std::move(label);
  out.q = modularity_of(g, t, out.labels.data(), out.k, threads);
  if (phases.on)
    std::fprintf(stderr,
                 "fastconn modularity: %.3f s; summed over the analysis threads: subgraphs %.3f, eigensolver %.3f "
                 "(host products %.3f, %lld products on the device, %lld eigenpairs solved ahead), fine-tuning %.3f, "
                 "device engines %.3f; final moves %.3f (%lld sweeps, %lld moves, %lld nodes judged, %lld skipped "
                 "as settled, %lld parallel windows)\n",
                 Phases::since(start), phases.induced, phases.eigen, phases.products, (long long)out.device_products,
                 (long long)out.speculated, phases.refine, phases.upload, phases.final_moves, (long long)moves.sweeps,
                 (long long)moves.moves, (long long)moves.judged, (long long)moves.skipped, (long long)moves.windows);
  return out;
}

}  // namespace fc
