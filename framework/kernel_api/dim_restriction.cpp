// DimRestriction: the dims a kernel declares it supports, as text and back. Part of
// rkt_kernel_api (kernel libraries declare restrictions; the judge reads them from the wire).
#include <cctype>
#include <stdexcept>

#include "rkt/registration.h"

namespace rkt {
namespace {

// Reads the text one token at a time; spaces between tokens are optional.
class RestrictionReader {
 public:
  explicit RestrictionReader(const std::string& text) : text_(text) {}

  void skip_spaces() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  std::string name() {
    skip_spaces();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
      ++at_;
    }
    if (start == at_ || std::isdigit(static_cast<unsigned char>(text_[start]))) fail("a dim name");
    return text_.substr(start, at_ - start);
  }
  std::int64_t number() {
    skip_spaces();
    const std::size_t start = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (start == at_ || at_ - start > 15) fail("a whole number below 10^15");
    return std::stoll(text_.substr(start, at_ - start));
  }
  bool take(const std::string& token) {
    skip_spaces();
    if (text_.compare(at_, token.size(), token) != 0) return false;
    at_ += token.size();
    return true;
  }
  void expect(const std::string& token) {
    if (!take(token)) fail("'" + token + "'");
  }
  void expect_end() {
    skip_spaces();
    if (at_ != text_.size()) fail("the end");
  }
  [[noreturn]] void fail(const std::string& expected) const {
    throw std::invalid_argument("cannot read the restriction \"" + text_ + "\": expected " +
                                expected + " at column " + std::to_string(at_ + 1) +
                                " (forms: \"N % 4 == 0\", \"N >= 16\", \"N <= 8192\")");
  }

 private:
  const std::string& text_;
  std::size_t at_ = 0;
};

}  // namespace

std::string DimRestriction::describe() const {
  switch (kind) {
    case Kind::multiple_of: return dim + " % " + std::to_string(value) + " == 0";
    case Kind::at_least: return dim + " >= " + std::to_string(value);
    case Kind::at_most: return dim + " <= " + std::to_string(value);
  }
  return dim + " ?";
}

bool DimRestriction::admits(std::int64_t size) const {
  switch (kind) {
    case Kind::multiple_of: return value > 0 && size % value == 0;
    case Kind::at_least: return size >= value;
    case Kind::at_most: return size <= value;
  }
  return false;
}

DimRestriction parse_dim_restriction(const std::string& text) {
  RestrictionReader reader(text);
  DimRestriction restriction;
  restriction.dim = reader.name();
  if (reader.take("%")) {
    restriction.kind = DimRestriction::Kind::multiple_of;
    restriction.value = reader.number();
    reader.expect("==");
    if (reader.number() != 0) reader.fail("0 (only \"dim % k == 0\" is a restriction)");
  } else if (reader.take(">=")) {
    restriction.kind = DimRestriction::Kind::at_least;
    restriction.value = reader.number();
  } else if (reader.take("<=")) {
    restriction.kind = DimRestriction::Kind::at_most;
    restriction.value = reader.number();
  } else {
    reader.fail("'%', '>=' or '<='");
  }
  reader.expect_end();
  return restriction;
}

}  // namespace rkt
