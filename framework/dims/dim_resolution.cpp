#include "framework/dims/dim_resolution.h"

#include <sstream>
#include <stdexcept>

namespace rkt {

bool is_literal_dim(const std::string& dim) {
  if (dim.empty()) return false;
  for (char c : dim) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::vector<std::int64_t> resolve_dims(const std::vector<std::string>& dims, const Dims& values) {
  std::vector<std::int64_t> sizes;
  for (const std::string& dim : dims) {
    if (is_literal_dim(dim)) {
      sizes.push_back(std::stoll(dim));
      continue;
    }
    const auto found = values.find(dim);
    if (found == values.end()) throw std::invalid_argument("unknown dim '" + dim + "'");
    sizes.push_back(found->second);
  }
  return sizes;
}

std::int64_t product_of_dims(const std::string& comma_separated_dims, const Dims& values) {
  std::vector<std::string> dims;
  std::stringstream stream(comma_separated_dims);
  for (std::string dim; std::getline(stream, dim, ',');) dims.push_back(dim);
  std::int64_t product = 1;
  for (std::int64_t size : resolve_dims(dims, values)) product *= size;
  return product;
}

std::string format_dims(const Dims& dims) {
  std::ostringstream text;
  bool first = true;
  for (const auto& [name, size] : dims) {
    text << (first ? "" : " ") << name << "=" << size;
    first = false;
  }
  return text.str();
}

}  // namespace rkt
