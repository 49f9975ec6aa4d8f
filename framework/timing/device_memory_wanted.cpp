#include "framework/timing/device_memory_wanted.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "framework/timing/device_lease.h"

namespace rkt {
namespace {

constexpr const char* kMarkInfix = ".memory-";

std::string mark_path(const std::string& lease_path, pid_t pid) {
  return lease_path + kMarkInfix + std::to_string(pid);
}

std::string create_mark(const std::string& lease_path) {
  if (lease_path.empty()) return "";
  create_lease_folder_of(lease_path);
  const std::string mark = mark_path(lease_path, ::getpid());
  const int fd = ::open(mark.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return "";  // Unmarked: the others keep their memory, the retry still runs alone.
  ::close(fd);
  return mark;
}

bool process_alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

bool wanted_by_another(const std::string& lease_path) {
  if (lease_path.empty()) return false;
  const std::string folder = lease_path.substr(0, lease_path.rfind('/'));
  const std::string prefix = lease_path.substr(lease_path.rfind('/') + 1) + kMarkInfix;
  DIR* directory = ::opendir(folder.c_str());
  if (directory == nullptr) return false;
  bool wanted = false;
  while (const dirent* entry = ::readdir(directory)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (end == nullptr || *end != '\0' || pid == ::getpid()) continue;
    if (process_alive(static_cast<pid_t>(pid))) {
      wanted = true;
      break;
    }
  }
  ::closedir(directory);
  return wanted;
}

}  // namespace

DeviceMemoryWanted::DeviceMemoryWanted(Device device)
    : mark_(create_mark(device_lease_path(device))) {}

DeviceMemoryWanted::DeviceMemoryWanted(const std::string& key)
    : mark_(create_mark(device_lease_path(key))) {}

DeviceMemoryWanted::~DeviceMemoryWanted() {
  if (!mark_.empty()) ::unlink(mark_.c_str());
}

bool device_memory_wanted_by_another(Device device) {
  return wanted_by_another(device_lease_path(device));
}

bool device_memory_wanted_by_another(const std::string& key) {
  return wanted_by_another(device_lease_path(key));
}

}  // namespace rkt
