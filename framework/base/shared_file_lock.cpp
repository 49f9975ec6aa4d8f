#include "framework/base/shared_file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rkt {
namespace {

int open_lock_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw std::runtime_error("cannot open the lock file " + path + ": " + std::strerror(errno));
  }
  ::fchmod(fd, 0666);  // The umask took bits off; another user's judge must open it too.
  return fd;
}

void flock_retrying(int fd, int operation, const std::string& path) {
  while (::flock(fd, operation) != 0) {
    if (errno == EINTR) continue;
    throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
  }
}

}  // namespace

SharedFileLock::SharedFileLock(const std::string& path)
    : path_(path), lock_fd_(open_lock_file(path)) {
  try {
    turnstile_fd_ = open_lock_file(path + ".turnstile");
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
}

SharedFileLock::~SharedFileLock() {
  ::close(turnstile_fd_);
  ::close(lock_fd_);
}

void SharedFileLock::lock_shared() {
  // Through the turnstile: a writer waiting inside it holds it, and this waits behind the writer.
  flock_retrying(turnstile_fd_, LOCK_EX, path_ + ".turnstile");
  try {
    flock_retrying(lock_fd_, LOCK_SH, path_);
  } catch (...) {
    ::flock(turnstile_fd_, LOCK_UN);
    throw;
  }
  ::flock(turnstile_fd_, LOCK_UN);
}

void SharedFileLock::lock_exclusive() {
  // The turnstile is held while waiting for the sharers to leave, so that no new one comes in.
  flock_retrying(turnstile_fd_, LOCK_EX, path_ + ".turnstile");
  try {
    flock_retrying(lock_fd_, LOCK_EX, path_);
  } catch (...) {
    ::flock(turnstile_fd_, LOCK_UN);
    throw;
  }
  ::flock(turnstile_fd_, LOCK_UN);
}

bool SharedFileLock::try_lock_shared() {
  if (::flock(turnstile_fd_, LOCK_EX | LOCK_NB) != 0) return false;
  const bool taken = ::flock(lock_fd_, LOCK_SH | LOCK_NB) == 0;
  ::flock(turnstile_fd_, LOCK_UN);
  return taken;
}

bool SharedFileLock::try_lock_exclusive() {
  if (::flock(turnstile_fd_, LOCK_EX | LOCK_NB) != 0) return false;
  const bool taken = ::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0;
  ::flock(turnstile_fd_, LOCK_UN);
  return taken;
}

void SharedFileLock::unlock() { ::flock(lock_fd_, LOCK_UN); }

bool SharedFileLock::someone_waiting_to_hold_alone() const {
  const int probe = ::open((path_ + ".turnstile").c_str(), O_RDWR | O_CLOEXEC);
  if (probe < 0) return false;
  const bool taken = ::flock(probe, LOCK_EX | LOCK_NB) != 0;
  ::close(probe);  // Closing releases the probe's lock.
  return taken;
}

bool SharedFileLock::free_now() const {
  const int probe = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (probe < 0) return true;
  const bool free = ::flock(probe, LOCK_EX | LOCK_NB) == 0;
  ::close(probe);  // Closing releases the probe's lock.
  return free;
}

}  // namespace rkt
