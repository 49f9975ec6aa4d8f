// Minimal JSON text helpers for the listings and reports the CLI writes.
#pragma once

#include <string>

namespace rkt {

/// `text` as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

}  // namespace rkt
