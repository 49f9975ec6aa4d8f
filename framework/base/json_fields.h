// Reading back the JSON files the CLI writes (results.json of a run or of a baseline table):
// parsing, and typed, checked access to the fields whose errors name the field's path.
//
// The parser is nlohmann/json. This header leaves the library out (it is installed for users'
// judges, which do not need it): a JsonFields points at the library's value without naming its
// type, and json_fields.cpp, the one place that sees both, converts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rkt {

class JsonFields;

/// One parsed JSON document. Numbers keep their kind, so that 64-bit integers (seeds) survive
/// exactly.
class JsonDocument {
 public:
  /// Parses `text`. Throws std::invalid_argument naming the line and column of the first error
  /// ("line 3, column 14: syntax error while parsing object - unexpected ...").
  explicit JsonDocument(const std::string& text);
  ~JsonDocument();
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  /// The whole document; fields under it are named from the top ("kernels[2].benchmark").
  JsonFields root() const;

 private:
  struct Tree;
  std::unique_ptr<Tree> tree_;
};

/// Typed, checked access to a parsed JSON document's fields; every error is a
/// std::invalid_argument that names the field's path in the file ("field
/// 'kernels[2].benchmark.time' is missing"). A JsonFields refers into its JsonDocument, which must
/// outlive it.
class JsonFields {
 public:
  /// The object member `key`.
  JsonFields object(const std::string& key) const;
  std::string text(const std::string& key) const;
  /// A string field added after the schema's first release: "" in files written before it.
  std::string text_or_empty(const std::string& key) const;
  bool flag(const std::string& key) const;
  /// A number; null (the writers' spelling of a number that could not be computed) reads as NaN.
  double number(const std::string& key) const;
  int integer(const std::string& key) const;
  /// A non-negative integer, exactly (64-bit seeds); std::nullopt for null.
  std::optional<std::uint64_t> unsigned_integer_or_null(const std::string& key) const;
  std::vector<JsonFields> array(const std::string& key) const;
  std::vector<std::string> strings(const std::string& key) const;
  /// The members of the object `key`, in file order, each named by its path ("devices.cuda").
  std::vector<std::pair<std::string, JsonFields>> members(const std::string& key) const;
  bool has(const std::string& key) const;
  /// Whether the member `key` is present and null.
  bool is_null(const std::string& key) const;

  /// This value itself, for the values members() and array() hand out.
  std::string as_text() const;
  std::int64_t as_integer() const;

  const std::string& path() const { return path_; }

  [[noreturn]] static void fail(const std::string& where, const std::string& what);

 private:
  friend class JsonDocument;
  JsonFields(const void* value, std::string path) : value_(value), path_(std::move(path)) {}
  std::string child(const std::string& key) const;

  const void* value_;  // A const nlohmann::ordered_json* (json_fields.cpp).
  std::string path_;
};

}  // namespace rkt
