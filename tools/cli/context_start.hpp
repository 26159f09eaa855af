// context_start.hpp - fc_context_create on a thread of its own. Starting the CUDA backend takes
// about 0.2 s (driver, device, cuBLAS), as long as reading a whole-brain scan, so the session
// starts the context as soon as the scan's header has passed its checks and reads, masks and
// gathers the voxels meanwhile; it joins the thread just before it needs the context (the
// series). A failure is reported at the join, as the same one line a failed create would give.
#pragma once

#include <string>
#include <thread>

#include <fastconn/fastconn.h>

#include "handles.hpp"

namespace fcli {

class ContextStart {
 public:
  explicit ContextStart(fc_backend backend);
  ContextStart(const ContextStart&) = delete;
  ContextStart& operator=(const ContextStart&) = delete;
  // Waits for the thread (an error or Ctrl-C may unwind before the join) and destroys a context
  // nobody took.
  ~ContextStart();

  // Waits for the create and returns the context; throws (check()'s exit codes and message,
  // prefixed with `what`) if it failed. Call once.
  ContextPtr join(const std::string& what);

  // Seconds fc_context_create took on its thread, and seconds join() waited for it: the part
  // of the create that the caller's own work did not hide. Valid after join().
  double create_seconds() const { return create_seconds_; }
  double wait_seconds() const { return wait_seconds_; }

 private:
  fc_context* context_ = nullptr;
  fc_status status_ = FC_OK;
  std::string detail_;  // fc_last_error() of the create, copied on its thread (it is thread-local)
  double create_seconds_ = 0;
  double wait_seconds_ = 0;
  std::thread thread_;  // last: started once the members it writes exist
};

}  // namespace fcli
