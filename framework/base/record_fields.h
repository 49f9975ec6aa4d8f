// One-line record fields: the escaping shared by the verdict channel's records, benchmark
// record files and the baseline table's records, so that every field fits on one line.
#pragma once

#include <map>
#include <string>

namespace rkt {

/// A record file's fields, key to value, written one "key=value" line each in key order.
using RecordFields = std::map<std::string, std::string>;

/// A number as a record keeps it: 17 significant digits, so that it reads back exactly.
std::string record_number(double value);

/// The text of field `key`, or "" when the record has none.
std::string record_text(const RecordFields& fields, const std::string& key);

/// The record's text: one "key=escaped value" line per field.
std::string format_record_fields(const RecordFields& fields);

/// The fields of a record's text. Throws std::invalid_argument naming `what` and the line of a
/// line without '=' ("benchmark record line 3 has no '='").
RecordFields parse_record_fields(const std::string& text, const std::string& what);

/// `text` with backslashes doubled and newlines written as "\n".
std::string escape_record_field(const std::string& text);

/// The inverse of escape_record_field.
std::string unescape_record_field(const std::string& text);

}  // namespace rkt
