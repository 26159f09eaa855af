// batch_json.hpp - JSON values that `fastconn batch` both writes and reads back: the cohort's
// done-markers and manifest (fastconn.cohort's files), which a rerun compares with what it
// expects. sidecar.hpp's Json only writes; this one also parses and compares, and its objects
// keep their keys sorted as Python's json.dumps(sort_keys=True) writes them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fcli {

class JValue {
 public:
  enum class Kind { Null, Bool, Integer, Real, String, Array, Object };

  JValue() = default;
  JValue(bool b) : kind_(Kind::Bool), bool_(b) {}
  JValue(int v) : kind_(Kind::Integer), integer_(v) {}
  JValue(int64_t v) : kind_(Kind::Integer), integer_(v) {}
  JValue(double v) : kind_(Kind::Real), real_(v) {}
  JValue(const char* s) : kind_(Kind::String), string_(s) {}
  JValue(const std::string& s) : kind_(Kind::String), string_(s) {}
  static JValue array() { JValue v; v.kind_ = Kind::Array; return v; }
  static JValue object() { JValue v; v.kind_ = Kind::Object; return v; }

  Kind kind() const { return kind_; }
  bool is_number() const { return kind_ == Kind::Integer || kind_ == Kind::Real; }
  bool boolean() const { return bool_; }
  double number() const { return kind_ == Kind::Integer ? static_cast<double>(integer_) : real_; }
  int64_t integer() const { return integer_; }
  const std::string& string() const { return string_; }
  const std::vector<JValue>& items() const { return items_; }
  const std::map<std::string, JValue>& members() const { return members_; }

  JValue& push(JValue v);
  JValue& set(const std::string& key, JValue v);  // an object's member, replaced if present
  const JValue* find(const std::string& key) const;  // nullptr when absent or not an object
  void erase(const std::string& key) { members_.erase(key); }

  // Python's ==: 1 == 1.0, objects regardless of order.
  bool operator==(const JValue& other) const;
  bool operator!=(const JValue& other) const { return !(*this == other); }

  // As json.dumps(value, indent=1, sort_keys=True) writes it (ASCII only; NaN as NaN).
  std::string dump() const;
  // Parses JSON text (and Python's NaN / Infinity); throws std::runtime_error at a syntax error.
  static JValue parse(const std::string& text);

 private:
  void dump_to(std::string& out, int depth) const;

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t integer_ = 0;
  double real_ = 0;
  std::string string_;
  std::vector<JValue> items_;
  std::map<std::string, JValue> members_;
};

}  // namespace fcli
