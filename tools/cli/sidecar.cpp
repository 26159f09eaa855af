// sidecar.cpp - see sidecar.hpp.
#include "sidecar.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>

#include "errors.hpp"

namespace fcli {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

}  // namespace

Json& Json::set(const std::string& key, Json value) {
  for (auto& m : members_)
    if (m.first == key) {
      m.second = std::move(value);
      return m.second;
    }
  members_.emplace_back(key, std::move(value));
  return members_.back().second;
}

Json& Json::push(Json value) {
  items_.push_back(std::move(value));
  return items_.back();
}

Json& Json::member(const std::string& key) {
  for (auto& m : members_)
    if (m.first == key) return m.second;
  return set(key, Json::object());
}

std::string Json::dump(int indent) const {
  const std::string pad(static_cast<size_t>(indent + 2), ' ');
  const std::string end_pad(static_cast<size_t>(indent), ' ');
  char buf[40];
  switch (kind_) {
    case Kind::Null: return "null";
    case Kind::Bool: return bool_ ? "true" : "false";
    case Kind::Integer: return std::to_string(integer_);
    case Kind::Number:
      if (!std::isfinite(number_)) return "null";
      std::snprintf(buf, sizeof buf, "%.10g", number_);
      return buf;
    case Kind::String: return quote(string_);
    case Kind::Array: {
      // arrays of scalars on one line (dims, the command line), others one item per line
      bool flat = true;
      for (const Json& j : items_) flat = flat && j.kind_ != Kind::Array && j.kind_ != Kind::Object;
      std::string out = "[";
      for (size_t k = 0; k < items_.size(); ++k) {
        out += k ? (flat ? ", " : ",\n" + pad) : (flat ? "" : "\n" + pad);
        out += items_[k].dump(indent + 2);
      }
      return out + (flat || items_.empty() ? "]" : "\n" + end_pad + "]");
    }
    case Kind::Object: {
      if (members_.empty()) return "{}";
      std::string out = "{\n";
      for (size_t k = 0; k < members_.size(); ++k) {
        out += pad + quote(members_[k].first) + ": " + members_[k].second.dump(indent + 2);
        out += k + 1 < members_.size() ? ",\n" : "\n";
      }
      return out + end_pad + "}";
    }
  }
  return "null";
}

void write_json(const Json& json, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(kExitLibrary, "cannot write " + path + ": " + system_reason(errno));
  const std::string text = json.dump() + "\n";
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int err = errno;
  if (std::fclose(f) != 0 || !ok) throw Error(kExitLibrary, "cannot write " + path + ": " + system_reason(ok ? errno : err));
}

}  // namespace fcli
