#include "framework/base/option_parsing.h"

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

bool parse_arguments(const std::vector<std::string>& args,
                     const std::vector<std::string>& with_value,
                     const std::vector<std::string>& flags,
                     std::map<std::string, std::string>& values,
                     std::vector<std::string>& positional, std::string& error) {
  std::vector<std::string> named;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--", 0) != 0) {
      positional.push_back(args[i]);
      continue;
    }
    named.push_back(args[i]);
    const bool takes_value =
        std::find(with_value.begin(), with_value.end(), args[i]) != with_value.end();
    if (takes_value && i + 1 < args.size()) named.push_back(args[++i]);
  }
  return parse_named_options(named, with_value, flags, values, error);
}

int report_usage_error(const std::string& message) {
  std::cerr << "rkt: " << message << "\nRun 'rkt --help' for usage.\n";
  return 2;
}

int positive_whole_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6) {
    return 0;
  }
  return std::stoi(text);
}

}  // namespace rkt
