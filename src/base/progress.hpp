// Progress of one computation, reported to the context's callback from the calling thread.
// A non-zero return from the callback raises FC_ERR_ABORTED at the next report.
#pragma once

#include <cstdint>

#include "base/error.hpp"
#include "fastconn/fastconn.h"

namespace fc {

class Progress {
 public:
  Progress(fc_progress_fn fn, void* user, int64_t total, int64_t done = 0)
      : fn_(fn), user_(user), total_(total), done_(done) {}

  // Record `units` more finished work; call only from the API caller's thread.
  void advance(int64_t units) {
    done_ += units;
    if (fn_ != nullptr && fn_(done_, total_, user_) != 0)
      fail(FC_ERR_ABORTED, "cancelled by the progress callback after " + std::to_string(done_) + " of " +
                               std::to_string(total_) + " units");
  }
  int64_t done() const { return done_; }
  int64_t total() const { return total_; }

 private:
  fc_progress_fn fn_;
  void* user_;
  int64_t total_;
  int64_t done_;
};

}  // namespace fc
