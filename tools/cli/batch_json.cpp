#include "batch_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace fcli {

JValue& JValue::push(JValue v) {
  items_.push_back(std::move(v));
  return items_.back();
}

JValue& JValue::set(const std::string& key, JValue v) { return members_[key] = std::move(v); }

const JValue* JValue::find(const std::string& key) const {
  if (kind_ != Kind::Object) return nullptr;
  auto it = members_.find(key);
  return it == members_.end() ? nullptr : &it->second;
}

bool JValue::operator==(const JValue& o) const {
  if (is_number() && o.is_number()) {
    if (kind_ == Kind::Integer && o.kind_ == Kind::Integer) return integer_ == o.integer_;
    return number() == o.number();
  }
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::Null: return true;
    case Kind::Bool: return bool_ == o.bool_;
    case Kind::String: return string_ == o.string_;
    case Kind::Array: return items_ == o.items_;
    case Kind::Object: return members_ == o.members_;
    default: return false;
  }
}

namespace {

void put_code_unit(std::string& out, unsigned u) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", u);
  out += buf;
}

// ensure_ascii: every non-ASCII character as \uXXXX (a surrogate pair above U+FFFF).
void put_string(std::string& out, const std::string& s) {
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\b') out += "\\b";
    else if (c == '\f') out += "\\f";
    else if (c < 0x20) put_code_unit(out, c);
    else if (c < 0x80) out += static_cast<char>(c);
    else {
      const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
      unsigned cp = extra == 3 ? c & 0x07u : extra == 2 ? c & 0x0Fu : c & 0x1Fu;
      if (extra == 0 || i + extra >= s.size()) {
        put_code_unit(out, 0xFFFD);  // not UTF-8: the replacement character
        continue;
      }
      for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
      i += extra;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        put_code_unit(out, 0xD800 + (cp >> 10));
        put_code_unit(out, 0xDC00 + (cp & 0x3FF));
      } else {
        put_code_unit(out, cp);
      }
    }
  }
  out += '"';
}

// Python's repr of a float: the shortest text that reads back the same, with ".0" on whole numbers.
void put_real(std::string& out, double v) {
  if (std::isnan(v)) { out += "NaN"; return; }
  if (std::isinf(v)) { out += v > 0 ? "Infinity" : "-Infinity"; return; }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string text(buf, r.ptr);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  out += text;
}

void indent(std::string& out, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(depth), ' ');
}

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}
  JValue document() {
    JValue v = value();
    space();
    if (p_ != t_.size()) error("extra text");
    return v;
  }

 private:
  const std::string& t_;
  size_t p_ = 0;

  [[noreturn]] void error(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at character " + std::to_string(p_));
  }
  void space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  bool word(const char* w) {
    const std::string s(w);
    if (t_.compare(p_, s.size(), s) != 0) return false;
    p_ += s.size();
    return true;
  }
  JValue value() {
    space();
    if (p_ >= t_.size()) error("unexpected end");
    const char c = t_[p_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return JValue(string());
    if (word("true")) return JValue(true);
    if (word("false")) return JValue(false);
    if (word("null")) return JValue();
    if (word("NaN")) return JValue(std::nan(""));
    if (word("Infinity")) return JValue(HUGE_VAL);
    if (word("-Infinity")) return JValue(-HUGE_VAL);
    return number();
  }
  JValue number() {
    const size_t begin = p_;
    if (p_ < t_.size() && t_[p_] == '-') ++p_;
    bool real = false;
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && p_ > begin)) real = true;
      else if (c < '0' || c > '9') break;
      ++p_;
    }
    const std::string text = t_.substr(begin, p_ - begin);
    if (text.empty() || text == "-") error("not a value");
    if (!real) {
      int64_t v = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return JValue(v);
    }
    double d = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) error("bad number '" + text + "'");
    return JValue(d);
  }
  unsigned hex4() {
    if (p_ + 4 > t_.size()) error("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = t_[p_++];
      v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : (error("bad \\u escape"), 0));
    }
    return v;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    while (true) {
      if (p_ >= t_.size()) error("unterminated string");
      const char c = t_[p_++];
      if (c == '"') return out;
      if (c != '\\') { out += c; continue; }
      if (p_ >= t_.size()) error("unterminated string");
      const char e = t_[p_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && word("\\u")) cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
          utf8(out, cp);
          break;
        }
        default: error("bad escape");
      }
    }
  }
  JValue array() {
    ++p_;
    JValue a = JValue::array();
    space();
    if (word("]")) return a;
    while (true) {
      a.push(value());
      space();
      if (word("]")) return a;
      if (!word(",")) error("expected , or ]");
    }
  }
  JValue object() {
    ++p_;
    JValue o = JValue::object();
    space();
    if (word("}")) return o;
    while (true) {
      space();
      if (p_ >= t_.size() || t_[p_] != '"') error("expected a member name");
      const std::string key = string();
      space();
      if (!word(":")) error("expected :");
      o.set(key, value());
      space();
      if (word("}")) return o;
      if (!word(",")) error("expected , or }");
    }
  }
};

}  // namespace

void JValue::dump_to(std::string& out, int depth) const {
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += bool_ ? "true" : "false"; break;
    case Kind::Integer: out += std::to_string(integer_); break;
    case Kind::Real: put_real(out, real_); break;
    case Kind::String: put_string(out, string_); break;
    case Kind::Array: {
      if (items_.empty()) { out += "[]"; break; }
      out += '[';
      for (size_t k = 0; k < items_.size(); ++k) {
        if (k) out += ',';
        indent(out, depth + 1);
        items_[k].dump_to(out, depth + 1);
      }
      indent(out, depth);
      out += ']';
      break;
    }
    case Kind::Object: {
      if (members_.empty()) { out += "{}"; break; }
      out += '{';
      bool first = true;
      for (const auto& [key, value] : members_) {
        if (!first) out += ',';
        first = false;
        indent(out, depth + 1);
        put_string(out, key);
        out += ": ";
        value.dump_to(out, depth + 1);
      }
      indent(out, depth);
      out += '}';
      break;
    }
  }
}

std::string JValue::dump() const {
  std::string out;
  dump_to(out, 0);
  return out + "\n";
}

JValue JValue::parse(const std::string& text) { return Parser(text).document(); }

}  // namespace fcli
