#include "framework/base/file_access.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace rkt {

bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

void make_directories(const std::string& path) {
  for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    ::mkdir(path.substr(0, slash).c_str(), 0755);
    if (slash == std::string::npos) break;
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw std::runtime_error("cannot create directory '" + path + "'");
  }
}

std::string read_whole_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary, std::ios::binary);
    file << content;
    if (!file) throw std::runtime_error("cannot write '" + temporary + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + temporary + "' to '" + path + "'");
  }
}

std::vector<std::string> directory_entries(const std::string& directory) {
  std::vector<std::string> names;
  if (DIR* handle = ::opendir(directory.c_str())) {
    while (const dirent* entry = ::readdir(handle)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(handle);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace rkt
