// ContextUse: the guard that makes "one thread at a time" (DESIGN.md) a checked rule. Every
// extern "C" entry point that computes with a context, changes its settings or advances an
// iterator over it holds one for the length of the call:
//
//   return fc::api_guard(__func__, [&] {
//     fc::require_not_null(ctx, "ctx");
//     const fc::ContextUse use(*ctx->state);   // FC_ERR_BAD_STATE if another thread is inside
//     ...
//   });
//
// A second thread entering while the first is inside gets FC_ERR_BAD_STATE ("context ... is in
// use by another thread") instead of a data race. The owning thread may enter again (a progress
// or block callback calling back into the library, fc_pcc_blocks_foreach calling
// fc_pcc_blocks_begin). Lock-free: one compare-exchange to enter, one store to leave.
#pragma once

#include <thread>

#include "context/context.hpp"
#include "base/error.hpp"

namespace fc {

class ContextUse {
 public:
  explicit ContextUse(const ContextState& ctx) : owner_(*ctx.owner) {
    const std::thread::id self = std::this_thread::get_id();
    std::thread::id expected{};
    if (owner_.thread.compare_exchange_strong(expected, self, std::memory_order_acquire)) {
      owner_.depth = 1;
    } else if (expected == self) {
      ++owner_.depth;
    } else {
      fail(FC_ERR_BAD_STATE,
           "the context is in use by another thread (a context and the iterators made with it serve one thread "
           "at a time; create one context per thread)");
    }
  }
  ~ContextUse() {
    if (--owner_.depth == 0) owner_.thread.store(std::thread::id(), std::memory_order_release);
  }
  ContextUse(const ContextUse&) = delete;
  ContextUse& operator=(const ContextUse&) = delete;

 private:
  ContextOwner& owner_;
};

}  // namespace fc
