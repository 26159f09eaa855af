// sidecar.hpp - the JSON sidecar (<output>.json) written beside every output: the command line,
// fastconn's version, parameters, backend, voxel count and timings, so that a map can be traced
// back to how it was made (BIDS keeps such facts in a sidecar too).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fcli {

// A small JSON value: enough to build the sidecar in order and print it. Non-finite numbers
// print as null (JSON has no NaN).
class Json {
 public:
  enum class Kind { Null, Bool, Number, Integer, String, Array, Object };

  Json() = default;  // null
  Json(bool b) : kind_(Kind::Bool), bool_(b) {}
  Json(double d) : kind_(Kind::Number), number_(d) {}
  Json(int v) : kind_(Kind::Integer), integer_(v) {}
  Json(int64_t v) : kind_(Kind::Integer), integer_(v) {}
  Json(const char* s) : kind_(Kind::String), string_(s) {}
  Json(const std::string& s) : kind_(Kind::String), string_(s) {}

  static Json array() { Json j; j.kind_ = Kind::Array; return j; }
  static Json object() { Json j; j.kind_ = Kind::Object; return j; }

  // Object: set (or replace) a member, keeping first-insertion order. Array: append.
  Json& set(const std::string& key, Json value);
  Json& push(Json value);
  // The member `key` of an object, created as an empty object if missing.
  Json& member(const std::string& key);

  std::string dump(int indent = 0) const;

 private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  int64_t integer_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

// Writes `json` to the (reserved, temporary) path. Throws on an I/O failure.
void write_json(const Json& json, const std::string& path);

}  // namespace fcli
