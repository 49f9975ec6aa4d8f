// Reading back the JSON files the CLI writes (results.json of a run or of a baseline table).
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "framework/base/json_text.h"
#include "framework/timing/sample_statistics.h"

namespace rkt {

/// Typed, checked access to a parsed JSON file's fields; every error names the field's path in
/// the file ("field 'kernels[2].benchmark.time' is missing").
class JsonFields {
 public:
  JsonFields(const JsonValue& value, std::string path) : value_(value), path_(std::move(path)) {}

  const JsonValue& member(const std::string& key, JsonValue::Kind kind) const {
    if (value_.kind != JsonValue::Kind::object) fail(path_, "is not an object");
    const JsonValue* found = value_.find(key);
    const std::string where = path_.empty() ? key : path_ + "." + key;
    if (found == nullptr) fail(where, "is missing");
    // null stands for a number that could not be computed (the writer's convention).
    const bool null_number = kind == JsonValue::Kind::number && found->kind == JsonValue::Kind::null;
    if (found->kind != kind && !null_number) fail(where, "has the wrong type");
    return *found;
  }
  JsonFields object(const std::string& key) const {
    return {member(key, JsonValue::Kind::object), child(key)};
  }
  std::string text(const std::string& key) const { return member(key, JsonValue::Kind::string).text; }
  /// A string field added after the schema's first release: "" in files written before it.
  std::string text_or_empty(const std::string& key) const {
    return value_.kind == JsonValue::Kind::object && value_.find(key) == nullptr ? "" : text(key);
  }
  bool flag(const std::string& key) const { return member(key, JsonValue::Kind::boolean).boolean; }
  double number(const std::string& key) const {
    const JsonValue& value = member(key, JsonValue::Kind::number);
    return value.kind == JsonValue::Kind::null ? std::numeric_limits<double>::quiet_NaN()
                                               : std::stod(value.text);
  }
  int integer(const std::string& key) const {
    const double value = number(key);
    if (!std::isfinite(value) || value != std::floor(value)) fail(child(key), "is not an integer");
    return static_cast<int>(value);
  }
  std::vector<JsonFields> array(const std::string& key) const {
    const JsonValue& items = member(key, JsonValue::Kind::array);
    std::vector<JsonFields> result;
    for (std::size_t i = 0; i < items.items.size(); ++i) {
      result.emplace_back(items.items[i], child(key) + "[" + std::to_string(i) + "]");
    }
    return result;
  }
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> result;
    for (const JsonFields& item : array(key)) {
      if (item.value_.kind != JsonValue::Kind::string) fail(item.path_, "is not a string");
      result.push_back(item.value_.text);
    }
    return result;
  }
  bool has(const std::string& key) const { return value_.find(key) != nullptr; }
  const JsonValue& value() const { return value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw std::invalid_argument("field '" + where + "' " + what);
  }

 private:
  std::string child(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const JsonValue& value_;
  std::string path_;
};

/// {"ratio", "low", "high"}: a ratio with its bootstrap interval, as the writers print it.
inline RatioInterval read_ratio_interval(const JsonFields& interval) {
  return {interval.number("ratio"), interval.number("low"), interval.number("high")};
}

}  // namespace rkt
