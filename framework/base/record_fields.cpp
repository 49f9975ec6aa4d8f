#include "framework/base/record_fields.h"

namespace rkt {

std::string escape_record_field(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string unescape_record_field(const std::string& text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      plain += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      plain += text[i];
    }
  }
  return plain;
}

}  // namespace rkt
