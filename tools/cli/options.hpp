// options.hpp - command-line parsing: a table of options per subcommand, GNU style (--name VALUE,
// --name=VALUE, -x VALUE) plus AFNI's single-dash long names (-mask, -prefix, -automask), and
// strict value parsers whose errors name the option and the text given.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fcli {

struct OptionSpec {
  const char* name;   // long name without dashes, e.g. "threshold"
  char short_name;    // 0 if none
  const char* value;  // name of the value in messages ("R"), or nullptr for a flag
};

class Args {
 public:
  // Parses argv[first..argc) for subcommand `command` against `specs`. Unknown options, a missing
  // value, or an option given twice throw (exit 1) naming the option and "fastconn COMMAND --help".
  Args(int argc, char** argv, int first, const std::vector<OptionSpec>& specs, const std::string& command);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::string& text(const std::string& name) const;  // the value of an option that has one
  std::string text_or(const std::string& name, const std::string& fallback) const;

  // Typed values; each throws "--NAME: 'TEXT' is not ..." on a malformed or out-of-range value.
  double real(const std::string& name) const;
  int64_t integer(const std::string& name, int64_t min, int64_t max) const;
  int64_t bytes(const std::string& name) const;  // 4G, 512M, 1.5G, 1000000 (powers of 1024)

  // Choose one of `choices` (exact match), e.g. --backend auto|cpu|cuda.
  std::string choice(const std::string& name, const std::vector<std::string>& choices, const std::string& fallback) const;

  const std::vector<std::string>& positional() const { return positional_; }
  const std::string& command() const { return command_; }

 private:
  std::map<std::string, std::string> values_;  // flags map to ""
  std::vector<std::string> positional_;
  std::string command_;
};

// The value parsers behind Args (also used for seeds and 1D files).
double parse_real(const std::string& text, const std::string& what);
int64_t parse_integer(const std::string& text, const std::string& what, int64_t min, int64_t max);
int64_t parse_bytes(const std::string& text, const std::string& what);

}  // namespace fcli
