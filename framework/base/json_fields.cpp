#include "framework/base/json_fields.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace rkt {

using Json = nlohmann::ordered_json;

struct JsonDocument::Tree {
  Json value;
};

namespace {

const Json& json_of(const void* value) { return *static_cast<const Json*>(value); }

// "line 2, column 6: syntax error while parsing object separator - ..." from the library's
// "[json.exception.parse_error.101] parse error at line 2, column 6: syntax error ...".
std::string where_and_what(const Json::parse_error& error) {
  const std::string message = error.what();
  const std::size_t line = message.find("line ");
  if (line != std::string::npos) return message.substr(line);
  const std::size_t reason = message.find("parse error");
  return reason == std::string::npos ? message : message.substr(reason);
}

}  // namespace

JsonDocument::JsonDocument(const std::string& text) : tree_(std::make_unique<Tree>()) {
  try {
    tree_->value = Json::parse(text);
  } catch (const Json::parse_error& error) {
    throw std::invalid_argument(where_and_what(error));
  } catch (const Json::out_of_range& error) {  // "number overflow parsing '1e400'"
    const std::string message = error.what();
    const std::size_t reason = message.find("] ");
    throw std::invalid_argument(
        "a number is out of range (" +
        (reason == std::string::npos ? message : message.substr(reason + 2)) + ")");
  }
}

JsonDocument::~JsonDocument() = default;

JsonFields JsonDocument::root() const { return JsonFields(&tree_->value, ""); }

namespace {

enum class Expect { object, array, string, boolean, number };

bool has_type(const Json& value, Expect expect) {
  switch (expect) {
    case Expect::object: return value.is_object();
    case Expect::array: return value.is_array();
    case Expect::string: return value.is_string();
    case Expect::boolean: return value.is_boolean();
    // null stands for a number that could not be computed (the writers' convention).
    case Expect::number: return value.is_number() || value.is_null();
  }
  return false;
}

}  // namespace

void JsonFields::fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument("field '" + where + "' " + what);
}

std::string JsonFields::child(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

namespace {

// The member `key` of `fields`' object, checked to be present and of the expected type.
const Json& member(const Json& object, const std::string& path, const std::string& where,
                   const std::string& key, Expect expect) {
  if (!object.is_object()) JsonFields::fail(path, "is not an object");
  const auto found = object.find(key);
  if (found == object.end()) JsonFields::fail(where, "is missing");
  if (!has_type(*found, expect)) JsonFields::fail(where, "has the wrong type");
  return *found;
}

}  // namespace

JsonFields JsonFields::object(const std::string& key) const {
  return {&member(json_of(value_), path_, child(key), key, Expect::object), child(key)};
}

std::string JsonFields::text(const std::string& key) const {
  return member(json_of(value_), path_, child(key), key, Expect::string).get<std::string>();
}

std::string JsonFields::text_or_empty(const std::string& key) const {
  const Json& value = json_of(value_);
  return value.is_object() && !value.contains(key) ? "" : text(key);
}

bool JsonFields::flag(const std::string& key) const {
  return member(json_of(value_), path_, child(key), key, Expect::boolean).get<bool>();
}

double JsonFields::number(const std::string& key) const {
  const Json& value = member(json_of(value_), path_, child(key), key, Expect::number);
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

int JsonFields::integer(const std::string& key) const {
  const double value = number(key);
  if (!std::isfinite(value) || value != std::floor(value) ||
      std::abs(value) > std::numeric_limits<int>::max()) {
    fail(child(key), "is not an integer");
  }
  return static_cast<int>(value);
}

std::optional<std::uint64_t> JsonFields::unsigned_integer_or_null(const std::string& key) const {
  const Json& value = member(json_of(value_), path_, child(key), key, Expect::number);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number_unsigned()) fail(child(key), "is not a non-negative integer");
  return value.get<std::uint64_t>();
}

std::vector<JsonFields> JsonFields::array(const std::string& key) const {
  const Json& items = member(json_of(value_), path_, child(key), key, Expect::array);
  std::vector<JsonFields> result;
  for (std::size_t i = 0; i < items.size(); ++i) {
    result.push_back({&items[i], child(key) + "[" + std::to_string(i) + "]"});
  }
  return result;
}

std::vector<std::string> JsonFields::strings(const std::string& key) const {
  std::vector<std::string> result;
  for (const JsonFields& item : array(key)) result.push_back(item.as_text());
  return result;
}

std::vector<std::pair<std::string, JsonFields>> JsonFields::members(const std::string& key) const {
  const Json& object = member(json_of(value_), path_, child(key), key, Expect::object);
  std::vector<std::pair<std::string, JsonFields>> result;
  for (const auto& [name, value] : object.items()) {
    result.emplace_back(name, JsonFields(&value, child(key) + "." + name));
  }
  return result;
}

bool JsonFields::has(const std::string& key) const {
  const Json& value = json_of(value_);
  return value.is_object() && value.contains(key);
}

bool JsonFields::is_null(const std::string& key) const {
  const Json& value = json_of(value_);
  return has(key) && value.at(key).is_null();
}

std::string JsonFields::as_text() const {
  const Json& value = json_of(value_);
  if (!value.is_string()) fail(path_, "is not a string");
  return value.get<std::string>();
}

std::int64_t JsonFields::as_integer() const {
  const Json& value = json_of(value_);
  if (!value.is_number()) fail(path_, "is not a number");
  return value.get<std::int64_t>();
}

}  // namespace rkt
