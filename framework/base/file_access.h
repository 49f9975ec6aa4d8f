// Plain file access for the subcommands that keep results on disk (baselines, twin agreement).
// POSIX calls rather than std::filesystem: LibTorch's shared library exports std::filesystem
// symbols of its own toolchain, and calls can bind to them (see main_job.cpp).
#pragma once

#include <string>
#include <vector>

namespace rkt {

bool file_exists(const std::string& path);
/// Creates `path` and its missing parents; throws std::runtime_error when it cannot.
void make_directories(const std::string& path);
/// The whole file, or "" when it cannot be read.
std::string read_whole_file(const std::string& path);
/// Writes `content` to a temporary name beside `path` and renames it: a crash mid-write leaves
/// the previous complete version. Throws std::runtime_error when it cannot write.
void write_file_atomically(const std::string& path, const std::string& content);
/// Names of the entries of `directory` (not "." or ".."), sorted; empty when it cannot be read.
std::vector<std::string> directory_entries(const std::string& directory);

}  // namespace rkt
