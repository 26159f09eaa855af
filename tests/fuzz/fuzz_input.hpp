// Reading a fuzzer's bytes as typed values: each take<T>() consumes sizeof(T) bytes (zeros once
// the input is used up), so every input maps to one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <class T>
  T take() {
    T v{};
    const size_t n = sizeof(T) < size_ - at_ ? sizeof(T) : size_ - at_;
    std::memcpy(&v, data_ + at_, n);
    at_ += n;
    return v;
  }
  // An int64 that is usually small (the interesting range) and sometimes anything at all.
  int64_t size_like(int64_t small_limit) {
    const uint8_t how = take<uint8_t>();
    if (how < 200) return static_cast<int64_t>(take<uint8_t>()) % (small_limit + 1);
    if (how < 230) return -static_cast<int64_t>(take<uint8_t>());
    return take<int64_t>();
  }
  size_t left() const { return size_ - at_; }
  const uint8_t* rest() const { return data_ + at_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};
