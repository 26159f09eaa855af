// Sets an environment variable for one scope and puts back what was there: the GPU tests switch
// the backend's paths (FASTCONN_CUDA_FUSED_DEGREE, FASTCONN_TC_DEGREE, ...) this way.
#pragma once

#include <cstdlib>
#include <string>

namespace fctest {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace fctest
