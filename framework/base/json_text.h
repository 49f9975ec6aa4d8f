// Minimal JSON text: string literals for the listings and reports the CLI writes, and a reader
// for the files it reads back (results.json for `rkt compare` and `rkt merge`).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rkt {

/// `text` as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

/// A parsed JSON value. Objects keep their members in file order; numbers keep their text, so
/// that 64-bit integers (seeds) survive exactly.
struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;  ///< A string's content, or a number's literal text.
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  /// The member `key` of an object, or nullptr (also when this is not an object).
  const JsonValue* find(const std::string& key) const;
};

/// Parses one JSON document. Throws std::invalid_argument naming the line and column of the
/// first error ("line 3, column 14: expected ',' or '}'").
JsonValue parse_json(const std::string& text);

}  // namespace rkt
