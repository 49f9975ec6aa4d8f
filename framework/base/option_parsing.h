// "--name value" options of the subcommands that parse their own arguments.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rkt {

/// Reads `args` as "--name value" pairs (and bare `flags`, stored as "1") into `values`. An
/// option outside `with_value` and `flags`, or one without its value, is an error naming it.
bool parse_named_options(const std::vector<std::string>& args,
                         const std::vector<std::string>& with_value,
                         const std::vector<std::string>& flags,
                         std::map<std::string, std::string>& values, std::string& error);

/// As parse_named_options, and words that do not start with "--" are collected in `positional`
/// (in order) instead of being errors: `rkt compare BASE NEW`, `rkt merge --out DIR RUN...`.
bool parse_arguments(const std::vector<std::string>& args,
                     const std::vector<std::string>& with_value,
                     const std::vector<std::string>& flags,
                     std::map<std::string, std::string>& values,
                     std::vector<std::string>& positional, std::string& error);

/// An option's value as a positive whole number below a million, else 0 (not one).
int positive_whole_number(const std::string& text);

/// Prints "rkt: <message>" and the usage hint to stderr; returns the usage exit code (2).
int report_usage_error(const std::string& message);

}  // namespace rkt
