// errors.cpp - see errors.hpp.
#include "errors.hpp"

#include <cstring>

namespace fcli {

void fail(const std::string& message) { throw Error(kExitBadInput, message); }

void cancelled() { throw Error(kExitCancelled, "cancelled (Ctrl-C): no output written"); }

void check(fc_status status, const std::string& what) {
  if (status == FC_OK || status == FC_DONE) return;
  fail_status(status, what, fc_last_error());
}

void fail_status(fc_status status, const std::string& what, std::string detail) {
  if (detail.empty()) detail = fc_status_string(status);
  if (status == FC_ERR_ABORTED) cancelled();
  const int code = (status == FC_ERR_INVALID_ARG || status == FC_ERR_NONFINITE_INPUT) ? kExitBadInput : kExitLibrary;
  throw Error(code, what + ": " + detail);
}

std::string system_reason(int errnum) { return std::strerror(errnum); }

}  // namespace fcli
