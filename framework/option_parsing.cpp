#include "framework/option_parsing.h"

#include <algorithm>
#include <iostream>

namespace rkt {

bool parse_named_options(const std::vector<std::string>& args,
                         const std::vector<std::string>& with_value,
                         const std::vector<std::string>& flags,
                         std::map<std::string, std::string>& values, std::string& error) {
  const auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (listed(flags, arg)) {
      values[arg] = "1";
      continue;
    }
    if (!listed(with_value, arg)) {
      error = "unknown option '" + arg + "'";
      return false;
    }
    if (i + 1 >= args.size()) {
      error = "option '" + arg + "' needs a value";
      return false;
    }
    values[arg] = args[++i];
  }
  return true;
}

int report_usage_error(const std::string& message) {
  std::cerr << "rkt: " << message << "\nRun 'rkt --help' for usage.\n";
  return 2;
}

}  // namespace rkt
