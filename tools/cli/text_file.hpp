// text_file.hpp - a text output (edge list, node list, module labels) written with every call
// checked, so that a full disk shows up at the latest in close() as an error naming the file.
#pragma once

#include <cstdio>
#include <string>

namespace fcli {

class TextFile {
 public:
  // Opens `tmp` (the reserved temporary name) for writing; `shown` is the name in messages.
  TextFile(const std::string& tmp, const std::string& shown);
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;
  ~TextFile();
  FILE* get() { return f_; }
  // Closes the file; throws (exit 1) if any write or the close failed.
  void close();

 private:
  std::string shown_;
  FILE* f_;
};

}  // namespace fcli
