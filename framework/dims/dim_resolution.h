// Turning a task's symbolic dims ("B", "N", "3") into sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// True for integer literals such as "3".
bool is_literal_dim(const std::string& dim);

/// The sizes of `dims` at `values`; throws std::invalid_argument naming an unknown dim.
std::vector<std::int64_t> resolve_dims(const std::vector<std::string>& dims, const Dims& values);

/// The product of a comma-separated list of dims ("Cin,3,3") at `values`.
std::int64_t product_of_dims(const std::string& comma_separated_dims, const Dims& values);

/// "B=37 N=300": for messages that must let a reader reproduce a case.
std::string format_dims(const Dims& dims);

}  // namespace rkt
