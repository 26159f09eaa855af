// The guard every extern "C" entry point runs its body in: catches everything, records the
// thread-local error text, and maps the failure to an fc_status. No exception crosses the C ABI.
#pragma once

#include <string>

#include "base/error.hpp"
#include "fastconn/fastconn.h"

namespace fc {

void set_last_error(const std::string& message);

template <class Body>
fc_status api_guard(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    set_last_error(std::string(function) + ": " + e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error(std::string(function) + ": out of host memory");
    return FC_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(std::string(function) + ": internal error: " + e.what());
    return FC_ERR_INTERNAL;
  } catch (...) {
    set_last_error(std::string(function) + ": internal error: unknown exception");
    return FC_ERR_INTERNAL;
  }
}

}  // namespace fc
