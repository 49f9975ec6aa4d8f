// One-line record fields: the escaping shared by the verdict channel's records, benchmark
// record files and the baseline table's records, so that every field fits on one line.
#pragma once

#include <string>

namespace rkt {

/// `text` with backslashes doubled and newlines written as "\n".
std::string escape_record_field(const std::string& text);

/// The inverse of escape_record_field.
std::string unescape_record_field(const std::string& text);

}  // namespace rkt
