// text_file.cpp - see text_file.hpp.
#include "text_file.hpp"

#include <cerrno>

#include "errors.hpp"

namespace fcli {

TextFile::TextFile(const std::string& tmp, const std::string& shown) : shown_(shown), f_(std::fopen(tmp.c_str(), "wb")) {
  if (!f_) throw Error(kExitLibrary, "cannot write " + shown_ + ": " + system_reason(errno));
}

TextFile::~TextFile() {
  if (f_) std::fclose(f_);
}

void TextFile::close() {
  const bool bad = std::ferror(f_) != 0;
  const int rc = std::fclose(f_);
  f_ = nullptr;
  if (bad || rc != 0) throw Error(kExitLibrary, "cannot write " + shown_ + ": " + system_reason(errno));
}

}  // namespace fcli
