#include "framework/supervision/replay_command.h"

#include <climits>
#include <cstdlib>

#include "framework/isolation/kernel_library.h"

namespace rkt {
namespace {

constexpr const char* kCommandTail = " test --filter '";  // Between the program and the case.

std::string& replay_program_name() {
  static std::string program = "rkt";
  return program;
}

// `text` as one shell word: unchanged when it holds only safe characters, else single-quoted.
std::string shell_word(const std::string& text) {
  const bool safe = !text.empty() && text.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%") == std::string::npos;
  if (safe) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Reads one shell word shell_word wrote, from `at`; moves `at` past it.
std::string read_shell_word(const std::string& text, std::size_t& at) {
  std::string word;
  while (at < text.size() && text[at] != ' ') {
    if (text[at] == '\'') {
      const std::size_t close = text.find('\'', at + 1);
      const std::size_t end = close == std::string::npos ? text.size() : close;
      word += text.substr(at + 1, end - at - 1);
      at = end == text.size() ? end : end + 1;
    } else if (text.compare(at, 2, "\\'") == 0) {
      word += '\'';
      at += 2;
    } else {
      word += text[at++];
    }
  }
  return word;
}

}  // namespace

void set_replay_program(const std::string& program) { replay_program_name() = program; }

std::string replay_kernel_library() {
  const char* chosen = std::getenv(kKernelLibraryVariable);
  if (chosen == nullptr || *chosen == '\0') return "";
  char resolved[PATH_MAX];
  return ::realpath(chosen, resolved) != nullptr ? std::string(resolved) : std::string(chosen);
}

std::string replay_command_line(const std::string& kernel_library, const std::string& environment,
                                const std::string& case_name) {
  std::string command;
  if (!kernel_library.empty()) {
    command += std::string(kKernelLibraryVariable) + "=" + shell_word(kernel_library) + " ";
  }
  if (!environment.empty()) command += environment + " ";
  return command + shell_word(replay_program_name()) + kCommandTail + case_name + "'";
}

std::string replay_command(const std::string& case_name) {
  return replay_command_line(replay_kernel_library(), "", case_name);
}

std::string case_reproduce(const CaseRecord& record) {
  const CaseDetails& details = record.details;
  if (details.reproduce.empty()) return "";
  return replay_command_line(details.kernel_library, details.reproduce, record.name);
}

ReplayParts parse_replay_command(const std::string& command) {
  ReplayParts parts;
  std::string rest = command;
  const std::string library_prefix = std::string(kKernelLibraryVariable) + "=";
  if (rest.rfind(library_prefix, 0) == 0) {
    std::size_t at = library_prefix.size();
    parts.kernel_library = read_shell_word(rest, at);
    rest = at < rest.size() ? rest.substr(at + 1) : "";
  }
  // The command is the last part: " PROGRAM test --filter 'NAME'", PROGRAM one shell word.
  const std::size_t tail = rest.rfind(kCommandTail);
  if (tail == std::string::npos || rest.back() != '\'') {
    parts.environment = rest;
    return parts;
  }
  std::size_t program_start = 0;
  if (tail > 0 && rest[tail - 1] == '\'') {
    // A quoted program: back to its opening quote.
    const std::size_t quote = tail >= 2 ? rest.rfind(" '", tail - 2) : std::string::npos;
    program_start = quote == std::string::npos ? 0 : quote + 1;
  } else if (tail > 0) {
    const std::size_t space = rest.rfind(' ', tail - 1);
    program_start = space == std::string::npos ? 0 : space + 1;
  }
  parts.environment = program_start == 0 ? "" : rest.substr(0, program_start - 1);
  return parts;
}

std::string replay_environment(const std::string& reproduce, const std::string&) {
  return parse_replay_command(reproduce).environment;
}

}  // namespace rkt
