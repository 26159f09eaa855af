// options.cpp - see options.hpp.
#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "errors.hpp"

namespace fcli {
namespace {

const OptionSpec* find_long(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const OptionSpec& s : specs)
    if (name == s.name) return &s;
  return nullptr;
}

const OptionSpec* find_short(const std::vector<OptionSpec>& specs, char c) {
  for (const OptionSpec& s : specs)
    if (s.short_name != 0 && s.short_name == c) return &s;
  return nullptr;
}

// "-0.5" and "-3" are values (a negative threshold), not options.
bool looks_like_number(const std::string& arg) {
  return arg.size() >= 2 && arg[0] == '-' && (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');
}

}  // namespace

Args::Args(int argc, char** argv, int first, const std::vector<OptionSpec>& specs, const std::string& command)
    : command_(command) {
  const std::string see = " (see: fastconn " + command + " --help)";
  bool options_done = false;
  for (int k = first; k < argc; ++k) {
    std::string arg = argv[k];
    if (options_done || arg.size() < 2 || arg[0] != '-' || looks_like_number(arg)) {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const OptionSpec* spec = nullptr;
    std::string inline_value;
    bool has_inline = false;
    std::string shown = arg;
    if (arg[1] == '-' || arg.size() > 2) {
      // --name, --name=value, or AFNI's -name (a single dash before a long name)
      std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        has_inline = true;
        name = name.substr(0, eq);
        shown = arg.substr(0, arg.find('='));
      }
      if (name == "prefix") name = "output";  // AFNI's -prefix
      spec = find_long(specs, name);
    } else {
      spec = find_short(specs, arg[1]);
    }
    if (spec == nullptr) fail("unknown option " + shown + see);
    if (values_.count(spec->name)) fail("option --" + std::string(spec->name) + " is given twice" + see);
    if (spec->value == nullptr) {
      if (has_inline) fail("option --" + std::string(spec->name) + " takes no value" + see);
      values_[spec->name] = "";
      continue;
    }
    if (!has_inline) {
      if (k + 1 >= argc) fail("option " + shown + " needs a value " + spec->value + see);
      inline_value = argv[++k];
    }
    values_[spec->name] = inline_value;
  }
}

const std::string& Args::text(const std::string& name) const { return values_.at(name); }

std::string Args::text_or(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

double Args::real(const std::string& name) const { return parse_real(text(name), "--" + name); }

int64_t Args::integer(const std::string& name, int64_t min, int64_t max) const {
  return parse_integer(text(name), "--" + name, min, max);
}

int64_t Args::bytes(const std::string& name) const { return parse_bytes(text(name), "--" + name); }

std::string Args::choice(const std::string& name, const std::vector<std::string>& choices,
                         const std::string& fallback) const {
  if (!has(name)) return fallback;
  const std::string& v = text(name);
  std::string list;
  for (const std::string& c : choices) {
    if (v == c) return v;
    list += (list.empty() ? "" : "|") + c;
  }
  fail("--" + name + ": '" + v + "' is not one of " + list);
}

double parse_real(const std::string& text, const std::string& what) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (text.empty() || end == s || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    fail(what + ": '" + text + "' is not a finite number");
  return v;
}

int64_t parse_integer(const std::string& text, const std::string& what, int64_t min, int64_t max) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s, &end, 10);
  if (text.empty() || end == s || *end != '\0' || errno == ERANGE) fail(what + ": '" + text + "' is not an integer");
  // Said as a person would: no bound of 2^63 - 1 that nobody typed.
  if (v < min && max == INT64_MAX) fail(what + " must be at least " + std::to_string(min) + " (got " + text + ")");
  if (v > max && min == INT64_MIN) fail(what + " must be at most " + std::to_string(max) + " (got " + text + ")");
  if (v < min || v > max)
    fail(what + ": " + text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

int64_t parse_bytes(const std::string& text, const std::string& what) {
  // A number, optionally fractional, then K/M/G/T (binary: 4G = 4 * 2^30, as free(1) and
  // ulimit count), optionally followed by "B" or "iB".
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (text.empty() || end == s || errno == ERANGE || !std::isfinite(v) || v < 0)
    fail(what + ": '" + text + "' is not a size in bytes (e.g. 4G, 512M, 1000000)");
  std::string unit(end);
  double scale = 1;
  if (!unit.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
    const std::string rest = unit.substr(1);
    if (u == 'K') scale = 1024.0;
    else if (u == 'M') scale = 1024.0 * 1024;
    else if (u == 'G') scale = 1024.0 * 1024 * 1024;
    else if (u == 'T') scale = 1024.0 * 1024 * 1024 * 1024;
    else if (u == 'B' && rest.empty()) scale = 1;
    else fail(what + ": '" + text + "' has an unknown unit (use K, M, G or T)");
    if (u != 'B' && !(rest.empty() || rest == "B" || rest == "iB" || rest == "b"))
      fail(what + ": '" + text + "' has an unknown unit (use K, M, G or T)");
  }
  const double bytes = std::floor(v * scale);
  if (bytes > 9.0e18) fail(what + ": '" + text + "' is too large");
  return static_cast<int64_t>(bytes);
}

}  // namespace fcli
