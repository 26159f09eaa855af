// context_start.cpp - see context_start.hpp.
#include "context_start.hpp"

#include "errors.hpp"
#include "progress.hpp"

namespace fcli {

ContextStart::ContextStart(fc_backend backend)
    : thread_([this, backend] {
        block_cancel_signal();  // Ctrl-C is the main thread's (and the library's threads started here inherit this)
        const double t0 = now_seconds();
        status_ = fc_context_create(backend, -1, &context_);
        if (status_ != FC_OK) detail_ = fc_last_error();
        create_seconds_ = now_seconds() - t0;
      }) {}

ContextStart::~ContextStart() {
  if (thread_.joinable()) thread_.join();
  fc_context_destroy(context_);  // NULL when join() took it or the create failed
}

ContextPtr ContextStart::join(const std::string& what) {
  const double t0 = now_seconds();
  thread_.join();
  wait_seconds_ = now_seconds() - t0;
  if (status_ != FC_OK) fail_status(status_, what, detail_);
  ContextPtr context(context_);
  context_ = nullptr;
  return context;
}

}  // namespace fcli
