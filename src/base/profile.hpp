// FASTCONN_PROFILE: the names of the profiles a run asks for, comma-separated ("modularity",
// "leiden", "graph", "windows"; README.md lists what each prints to stderr).
#pragma once

#include <cstdlib>
#include <cstring>

namespace fc {

// Whether FASTCONN_PROFILE names `name` (read at each call).
inline bool profile_asks(const char* name) {
  const char* v = std::getenv("FASTCONN_PROFILE");
  return v != nullptr && std::strstr(v, name) != nullptr;
}

}  // namespace fc
