#include "framework/inputs/hidden_inputs.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "rkt/task.h"

namespace rkt {
namespace {

constexpr const char* kChannelHeader = "rkt-secrets/1";

// Messages about the suite name the line and the field, never their text: an error printed in a
// CI log must not reveal the hidden cases it was meant to keep secret.
constexpr const char* kContentWithheld = " (the suite's text is not shown: it is secret)";

double parse_number(const std::string& text, int line_number, std::size_t field) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("hidden suite line " + std::to_string(line_number) + ": field " +
                              std::to_string(field + 1) + " is not a number" + kContentWithheld);
}

std::uint64_t parse_seed(const std::string& text) {
  char* end = nullptr;
  const std::uint64_t value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0') {
    throw std::invalid_argument(std::string(kSecretSeedVariable) +
                                " is not a non-negative integer");
  }
  return value;
}

std::string take_variable(const char* name) {
  const char* value = std::getenv(name);
  std::string text = value ? value : "";
  ::unsetenv(name);
  return text;
}

HiddenInputs load() {
  HiddenInputs hidden;
  const std::string channel = take_variable(kSecretsFdVariable);
  if (!channel.empty()) {
    const int fd = std::atoi(channel.c_str());
    std::string content;
    char buffer[4096];
    off_t offset = 0;
    for (ssize_t n; (n = ::pread(fd, buffer, sizeof buffer, offset)) > 0; offset += n) {
      content.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    std::istringstream stream(content);
    std::string header, seed_line;
    std::getline(stream, header);
    std::getline(stream, seed_line);
    if (header != kChannelHeader) {
      throw std::invalid_argument("the secrets channel from the supervisor was empty or altered");
    }
    if (seed_line != "-") hidden.secret_seed = parse_seed(seed_line);
    hidden.suite_text.assign(std::istreambuf_iterator<char>(stream), {});
  } else {
    const std::string seed = take_variable(kSecretSeedVariable);
    if (!seed.empty()) hidden.secret_seed = parse_seed(seed);
    const std::string path = take_variable(kHiddenSuiteVariable);
    if (!path.empty()) {
      std::ifstream file(path);
      if (!file) {
        throw std::invalid_argument(std::string(kHiddenSuiteVariable) +
                                    " names a file that cannot be read (its path is not shown: "
                                    "it is secret)");
      }
      hidden.suite_text.assign(std::istreambuf_iterator<char>(file), {});
    }
  }
  hidden.suite = parse_hidden_suite(hidden.suite_text);
  return hidden;
}

}  // namespace

std::vector<HiddenCase> parse_hidden_suite(const std::string& text) {
  std::vector<HiddenCase> cases;
  std::istringstream lines(text);
  int line_number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; words >> word;) fields.push_back(word);
    if (fields.empty()) continue;
    const std::string where = "hidden suite line " + std::to_string(line_number);
    HiddenCase hidden;
    hidden.line = line_number;
    if (fields[0] == "scale" && fields.size() == 2) {
      hidden.kind = HiddenCase::Kind::scale;
      hidden.scale = parse_number(fields[1], line_number, 1);
      if (hidden.scale == 0) throw std::invalid_argument(where + ": scale 0 tests nothing");
    } else if (fields[0] == "range" && fields.size() == 3) {
      hidden.kind = HiddenCase::Kind::value_range;
      hidden.range = {parse_number(fields[1], line_number, 1), parse_number(fields[2], line_number, 2)};
      if (!(hidden.range.first < hidden.range.second)) {
        throw std::invalid_argument(where + ": range needs low < high");
      }
    } else if (fields[0] == "dims" && fields.size() >= 3) {
      hidden.kind = HiddenCase::Kind::dims;
      hidden.task = fields[1];
      for (std::size_t i = 2; i < fields.size(); ++i) {
        const std::size_t equals = fields[i].find('=');
        if (equals == std::string::npos) {
          throw std::invalid_argument(where + ": field " + std::to_string(i + 1) +
                                      " is not NAME=size" + kContentWithheld);
        }
        const double size = parse_number(fields[i].substr(equals + 1), line_number, i);
        if (size < 1) throw std::invalid_argument(where + ": dims must be at least 1");
        const std::string name = fields[i].substr(0, equals);
        if (hidden.dims.count(name) != 0) {
          throw std::invalid_argument(where + ": field " + std::to_string(i + 1) +
                                      " repeats a dim" + kContentWithheld);
        }
        hidden.dims[name] = static_cast<std::int64_t>(size);
      }
      for (const auto& [name, size] : hidden.dims) {
        for (std::size_t i = 2; i < fields.size(); ++i) {
          if (fields[i].compare(0, name.size() + 1, name + "=") == 0) hidden.dim_fields.push_back(i + 1);
        }
      }
    } else {
      throw std::invalid_argument(where + ": expected 'scale <factor>', 'range <low> <high>' or "
                                          "'dims <task> NAME=size...'" + kContentWithheld);
    }
    cases.push_back(hidden);
  }
  return cases;
}

std::vector<std::string> hidden_suite_errors(const std::vector<HiddenCase>& suite,
                                             const std::set<std::string>& implemented) {
  std::vector<std::string> errors;
  bool reaches_a_kernel = false;
  for (const HiddenCase& hidden : suite) {
    const std::string where = "hidden suite line " + std::to_string(hidden.line);
    if (hidden.kind != HiddenCase::Kind::dims) {
      reaches_a_kernel = reaches_a_kernel || !implemented.empty();
      continue;
    }
    const TaskSpec* task = find_task(hidden.task);
    if (task == nullptr) {
      errors.push_back(where + ": field 2 names a task that is not registered" + kContentWithheld);
      continue;
    }
    if (implemented.count(hidden.task) == 0) {
      errors.push_back(where + ": field 2 names a task no kernel implements, so the line tests "
                               "nothing" + kContentWithheld);
      continue;
    }
    reaches_a_kernel = true;
    std::size_t position = 0;
    for (const auto& [name, size] : hidden.dims) {
      const std::string field =
          "field " + std::to_string(position < hidden.dim_fields.size() ? hidden.dim_fields[position] : 0);
      ++position;
      const bool known = task->default_dims().count(name) != 0 || task->small_dims().count(name) != 0;
      if (!known) {
        errors.push_back(where + ": " + field + " names a dim the task does not have" +
                         kContentWithheld);
        continue;
      }
      const auto domain = task->domains().find(name);
      if (domain != task->domains().end() &&
          (size < domain->second.min || size > domain->second.max)) {
        errors.push_back(where + ": " + field + " lies outside the task's declared domain for it" +
                         kContentWithheld);
      }
    }
  }
  if (!suite.empty() && !reaches_a_kernel && errors.empty()) {
    errors.push_back("the hidden suite selects no case: none of its lines reaches a registered kernel");
  }
  return errors;
}

std::string HiddenInputs::summary() const {
  if (!any()) return "none";
  std::string text = secret_seed ? "secret seed" : "";
  if (!suite.empty()) {
    text += std::string(text.empty() ? "" : "; ") + "hidden suite of " +
            std::to_string(suite.size()) + " cases";
  }
  return text;
}

const HiddenInputs& hidden_inputs() {
  static const HiddenInputs hidden = load();
  return hidden;
}

int make_secrets_channel() {
  const HiddenInputs& hidden = hidden_inputs();
  if (!hidden.any()) return -1;
  const int fd = ::memfd_create("rkt-secrets", 0);  // Inheritable: no MFD_CLOEXEC.
  if (fd < 0) throw std::runtime_error("memfd_create failed");
  const std::string content = std::string(kChannelHeader) + "\n" +
                              (hidden.secret_seed ? std::to_string(*hidden.secret_seed) : "-") +
                              "\n" + hidden.suite_text;
  if (::write(fd, content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    throw std::runtime_error("writing the secrets channel failed");
  }
  return fd;
}

bool hidden_details_allowed() {
  const char* value = std::getenv(kHiddenVerboseVariable);
  return value != nullptr && std::string(value) == "1";
}

}  // namespace rkt
