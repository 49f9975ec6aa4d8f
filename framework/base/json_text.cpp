#include "framework/base/json_text.h"

#include <cstdio>
#include <stdexcept>

namespace rkt {

std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      case '\r': quoted += "\\r"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          quoted += escaped;
        } else {
          quoted += static_cast<char>(c);
        }
    }
  }
  return quoted + "\"";
}

const JsonValue* JsonValue::find(const std::string& key) const {
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

namespace {

// Recursive descent over the text; depth is bounded so that a hostile file cannot overflow the
// stack.
class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : text_(text) {}

  JsonValue document() {
    JsonValue value = read_value(0);
    skip_space();
    if (at_ < text_.size()) fail("unexpected text after the JSON value");
    return value;
  }

 private:
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < at_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw std::invalid_argument("line " + std::to_string(line) + ", column " +
                                std::to_string(column) + ": " + what);
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void expect_word(const char* word) {
    const std::string expected = word;
    if (text_.compare(at_, expected.size(), expected) != 0) fail("unexpected character");
    at_ += expected.size();
  }

  JsonValue read_value(int depth) {
    if (depth > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end of text");
    JsonValue value;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      value.kind = JsonValue::Kind::object;
      if (take('}')) return value;
      do {
        skip_space();
        if (at_ >= text_.size() || text_[at_] != '"') fail("expected a member name in quotes");
        std::string name = read_string();
        if (!take(':')) fail("expected ':' after member name \"" + name + "\"");
        value.members.emplace_back(std::move(name), read_value(depth + 1));
      } while (take(','));
      if (!take('}')) fail("expected ',' or '}'");
    } else if (c == '[') {
      ++at_;
      value.kind = JsonValue::Kind::array;
      if (take(']')) return value;
      do {
        value.items.push_back(read_value(depth + 1));
      } while (take(','));
      if (!take(']')) fail("expected ',' or ']'");
    } else if (c == '"') {
      value.kind = JsonValue::Kind::string;
      value.text = read_string();
    } else if (c == 't' || c == 'f') {
      value.kind = JsonValue::Kind::boolean;
      value.boolean = c == 't';
      expect_word(value.boolean ? "true" : "false");
    } else if (c == 'n') {
      expect_word("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      value.kind = JsonValue::Kind::number;
      const std::size_t start = at_;
      while (at_ < text_.size() && std::string("+-.eE0123456789").find(text_[at_]) != std::string::npos) {
        ++at_;
      }
      value.text = text_.substr(start, at_ - start);
      try {
        std::size_t used = 0;
        std::stod(value.text, &used);
        if (used != value.text.size()) throw std::invalid_argument("");
      } catch (const std::exception&) {
        at_ = start;
        fail("malformed number '" + value.text + "'");
      }
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return value;
  }

  std::string read_string() {
    ++at_;  // The opening quote.
    std::string content;
    while (true) {
      if (at_ >= text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return content;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
      if (c != '\\') {
        content += c;
        continue;
      }
      if (at_ >= text_.size()) fail("unterminated string");
      const char escaped = text_[at_++];
      switch (escaped) {
        case '"': content += '"'; break;
        case '\\': content += '\\'; break;
        case '/': content += '/'; break;
        case 'b': content += '\b'; break;
        case 'f': content += '\f'; break;
        case 'n': content += '\n'; break;
        case 'r': content += '\r'; break;
        case 't': content += '\t'; break;
        case 'u': append_code_point(content); break;
        default: fail(std::string("unknown escape '\\") + escaped + "'");
      }
    }
  }

  unsigned read_hex4() {
    if (at_ + 4 > text_.size()) fail("short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      code <<= 4;
      if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return code;
  }

  // \uXXXX (with surrogate pairs) as UTF-8.
  void append_code_point(std::string& out) {
    unsigned code = read_hex4();
    if (code >= 0xD800 && code <= 0xDBFF && text_.compare(at_, 2, "\\u") == 0) {
      at_ += 2;
      const unsigned low = read_hex4();
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  const std::string& text_;
  std::size_t at_ = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text) { return JsonReader(text).document(); }

}  // namespace rkt
