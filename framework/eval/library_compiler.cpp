#include "framework/eval/library_compiler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "framework/base/child_process.h"
#include "framework/base/file_access.h"
#include "framework/eval/eval_defaults.h"
#include "framework/eval/kernel_source.h"
#include "framework/eval/library_cache.h"

namespace rkt {
namespace {

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// A 128-bit cache key: two 64-bit FNV-1a hashes with different offsets. Not a defence against a
// chosen collision (the cache is the user's own folder); a change of any byte changes the key.
std::string content_key(const std::string& text) {
  std::uint64_t first = 14695981039346656037ull, second = 1099511628211ull * 31 + 7;
  for (const unsigned char c : text) {
    first = (first ^ c) * 1099511628211ull;
    second = (second ^ c) * 1099511628211ull + 0x9e3779b97f4a7c15ull;
  }
  char key[33];
  std::snprintf(key, sizeof key, "%016llx%016llx", static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(second));
  return key;
}

// The files a source includes with `#include "name"` from its own folder, and what they include
// in turn, each as its path and content: part of the key, so that editing a header beside the
// source compiles it again. A quoted name is looked up relative to the including file, as the
// preprocessor looks first; a name found there is not (rkt/kernel.h comes from the toolchain's
// include folders, which the toolchain's fingerprint covers). Not seen: a name computed by a macro.
std::string local_includes(const std::string& path, const std::string& content) {
  std::string found;
  std::set<std::string> seen{path};
  std::vector<std::pair<std::string, std::string>> pending{{path, content}};
  while (!pending.empty() && seen.size() <= eval_defaults::kMaxLocalIncludes) {
    const auto [file, text] = pending.back();
    pending.pop_back();
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const std::size_t hash = line.find_first_not_of(" \t");
      if (hash == std::string::npos || line[hash] != '#') continue;
      const std::size_t word = line.find_first_not_of(" \t", hash + 1);
      if (word == std::string::npos || line.compare(word, 7, "include") != 0) continue;
      const std::size_t open = line.find('"', word + 7);
      const std::size_t close = open == std::string::npos ? open : line.find('"', open + 1);
      if (close == std::string::npos) continue;
      const std::string name = line.substr(open + 1, close - open - 1);
      const std::string candidate = name.empty() || name[0] == '/' ? name : folder_of(file) + "/" + name;
      if (candidate.empty() || seen.count(candidate) != 0 || !file_exists(candidate)) continue;
      seen.insert(candidate);
      std::string included;
      try {
        included = read_whole_file(candidate);
      } catch (const std::exception&) {
        continue;  // a folder or an unreadable file: the compiler will say so
      }
      // Keyed by the name as written, not the path it resolved to: the same files given by
      // another path (relative, absolute) share their library.
      found += "\n#include \"" + name + "\"\n" + included;
      pending.emplace_back(candidate, std::move(included));
    }
  }
  return found;
}

// Reads the file into `content`, or says why a caller's file cannot be used (status, message).
bool read_source(const std::string& path, std::string& content, CompiledSource& result) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    result.status = "missing_file";
    result.message = path + ": no such file";
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    result.status = "unreadable_file";
    result.message = path + ": not a regular file";
    return false;
  }
  if (!is_kernel_source(path)) {
    result.status = "not_a_kernel_source";
    result.message = path + ": not a kernel source (" + kKernelSourceEndings + ")";
    return false;
  }
  if (info.st_size > eval_defaults::kMaxSourceBytes) {
    result.status = "file_too_large";
    result.message = path + ": " + std::to_string(info.st_size) + " bytes, over the limit of " +
                     std::to_string(eval_defaults::kMaxSourceBytes) + " bytes for a kernel source";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.status = "unreadable_file";
    result.message = path + ": cannot be read (" + std::strerror(errno) + ")";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  content = text.str();
  if (content.find_first_not_of(" \t\r\n") == std::string::npos) {
    result.status = "empty_file";
    result.message = path + ": empty";
    return false;
  }
  return true;
}

// The status of a failed compile: a kernel function ROBUST_KERNEL_TEST cannot take is a
// signature mismatch (to_kernel_function has no overload for it), anything else a compile error.
std::string failed_compile_status(const std::string& output) {
  const bool signature = output.find("to_kernel_function") != std::string::npos ||
                         output.find("void (*)(rkt::KernelCall&)") != std::string::npos;
  return signature ? "signature_mismatch" : "compile_error";
}

void compile_one(const std::string& path, const EvalToolchain& toolchain,
                 const std::string& cache_folder, CompiledSource& result) {
  result.source = path;
  std::string content;
  if (!read_source(path, content, result)) return;
  result.cuda = is_cuda_source(path);
  if (content.find("ROBUST_KERNEL_TEST") == std::string::npos) {
    result.status = "no_registration";
    result.message = path + ": no ROBUST_KERNEL_TEST line (rkt template TASK prints a start)";
    return;
  }
  if (const std::string problem = toolchain_problem(toolchain, result.cuda); !problem.empty()) {
    result.status = "toolchain_error";
    result.message = problem;
    return;
  }
  // The name is part of the key: compiler messages name the file.
  result.key = content_key(base_name(path) + "\n" + toolchain_fingerprint(toolchain, result.cuda) +
                           "\n" + content + local_includes(path, content));
  result.library = cache_folder + "/" + result.key + ".so";
  const std::string log = cache_folder + "/" + result.key + ".log";
  if (file_exists(result.library)) {
    result.status = "compiled";
    result.cached = true;
    mark_cache_entry_used(result.library);
    return;
  }
  if (file_exists(log)) {  // a compile that failed before: its verdict again, without the compiler
    mark_cache_entry_used(log);
    const std::string output = read_whole_file(log);
    result.status = failed_compile_status(output);
    result.message = first_compiler_errors(output);
    result.cached = true;
    result.library.clear();
    return;
  }
  // Written beside its final name and renamed: a concurrent eval never loads half a library.
  const std::string partial = cache_folder + "/" + result.key + "." + std::to_string(::getpid()) +
                              "." + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) +
                              ".partial";
  ChildCommand command;
  // Run in the file's folder on its bare name, so that messages name it relative to itself.
  command.working_directory = folder_of(path);
  command.argv = library_build_command(toolchain, result.cuda, base_name(path), partial + ".so");
  command.output_file = partial + ".log";
  command.timeout_seconds = eval_defaults::kCompileTimeoutSeconds;
  const ChildOutcome outcome = run_child_command(command);
  result.seconds = outcome.seconds;
  const bool built = outcome.started && !outcome.timed_out && outcome.exit_code == 0 &&
                     file_exists(partial + ".so");
  std::string output = file_exists(partial + ".log") ? read_whole_file(partial + ".log") : "";
  if (built) {
    std::rename((partial + ".so").c_str(), result.library.c_str());
    ::unlink((partial + ".log").c_str());
    result.status = "compiled";
    return;
  }
  ::unlink((partial + ".so").c_str());
  result.library.clear();
  if (!outcome.started || outcome.timed_out) {
    // Not the source's fault (or not known to be): not cached.
    ::unlink((partial + ".log").c_str());
    result.status = outcome.timed_out ? "compile_error" : "toolchain_error";
    result.message = outcome.timed_out ? "the compiler was " + describe_outcome(outcome) +
                                             " (limit " + std::to_string(eval_defaults::kCompileTimeoutSeconds) + " s)"
                                       : outcome.problem;
    return;
  }
  std::rename((partial + ".log").c_str(), log.c_str());
  result.status = failed_compile_status(output);
  result.message = first_compiler_errors(output);
  if (result.message.empty()) result.message = "the compiler ended with " + describe_outcome(outcome);
}

}  // namespace

bool CompiledSource::bad_input() const {
  return status == "missing_file" || status == "unreadable_file" || status == "empty_file" ||
         status == "file_too_large" || status == "not_a_kernel_source";
}

std::string eval_cache_folder() {
  if (const char* chosen = std::getenv(eval_defaults::kCacheVariable); chosen && *chosen) return chosen;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/" + eval_defaults::kCacheFolderUnderHome;
}

std::string first_compiler_errors(const std::string& output) {
  std::istringstream lines(output);
  std::string text;
  int kept = 0;
  bool started = false;
  for (std::string line; std::getline(lines, line) && kept < eval_defaults::kCompileErrorLines;) {
    if (!started && line.find("error") == std::string::npos) continue;
    // gcc's "file.cpp: In function 'f':" context line names no error; nvcc and the linker
    // write "error:" or "error :" on the first line of each.
    if (!started && line.find("error:") == std::string::npos && line.find("error :") == std::string::npos) continue;
    started = true;
    text += (text.empty() ? "" : "\n") + line;
    ++kept;
  }
  if (!text.empty()) return text;
  // No line names an error ("nvcc fatal : ...", a killed compiler): the output's first lines.
  std::istringstream again(output);
  for (std::string line; std::getline(again, line) && kept < eval_defaults::kCompileErrorLines; ++kept) {
    text += (text.empty() ? "" : "\n") + line;
  }
  return text;
}

std::vector<CompiledSource> compile_sources(const std::vector<std::string>& sources,
                                            const EvalToolchain& toolchain,
                                            const std::string& cache_folder, int jobs) {
  std::vector<CompiledSource> results(sources.size());
  make_directories(cache_folder);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < sources.size(); i = next++) {
      compile_one(sources[i], toolchain, cache_folder, results[i]);
    }
  };
  std::vector<std::thread> compilers;
  const int count = std::max(1, std::min<int>(jobs, static_cast<int>(sources.size())));
  for (int i = 0; i < count; ++i) compilers.emplace_back(work);
  for (std::thread& compiler : compilers) compiler.join();
  return results;
}

}  // namespace rkt
