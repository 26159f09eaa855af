// fc::Error: how the core and the backends report a failure. The API guard turns it into an
// fc_status and the thread-local text returned by fc_last_error().
#pragma once

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fastconn/fastconn.h"

namespace fc {

class Error : public std::runtime_error {
 public:
  Error(fc_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  fc_status status() const noexcept { return status_; }

 private:
  fc_status status_;
};

[[noreturn]] inline void fail(fc_status status, const std::string& message) { throw Error(status, message); }

// A double as messages quote it: every digit it has (%.17g), so that the value the caller passed
// can be recognized exactly (0.1 is 0.10000000000000001), and nan / inf as such.
inline std::string exact_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Throws FC_ERR_NULL_ARG naming the argument when p is NULL.
template <class Pointer>
inline void require_not_null(Pointer p, const char* argument) {
  if (p == nullptr) fail(FC_ERR_NULL_ARG, std::string(argument) + " is NULL");
}

// The integer a C caller passed as an enum. Loading a C++ enum whose value lies outside its
// enumerators' range is undefined behaviour (UBSan: "load of value 7, which is not a valid value
// for type 'fc_edge_rule'"), and passing an enum parameter on by value is such a load. So the
// parameter is taken by reference and its bytes are read as an int: pass an entry point's enum
// parameter only to raw_enum or to functions taking it by const reference until it is validated.
template <class Enum>
inline int raw_enum(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace fc
