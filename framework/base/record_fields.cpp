#include "framework/base/record_fields.h"

#include <sstream>
#include <stdexcept>

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

std::string record_number(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

std::string record_text(const RecordFields& fields, const std::string& key) {
  const auto found = fields.find(key);
  return found == fields.end() ? "" : found->second;
}

std::string format_record_fields(const RecordFields& fields) {
  std::string text;
  for (const auto& [key, value] : fields) text += key + "=" + escape_record_field(value) + "\n";
  return text;
}

RecordFields parse_record_fields(const std::string& text, const std::string& what) {
  RecordFields fields;
  std::istringstream lines(text);
  int line_number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) {
      throw std::invalid_argument(what + " line " + std::to_string(line_number) + " has no '='");
    }
    fields[line.substr(0, equals)] = unescape_record_field(line.substr(equals + 1));
  }
  return fields;
}

}  // namespace rkt
