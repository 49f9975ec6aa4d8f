// A reader-writer lock between processes, over files: many holders share it, or one holds it
// alone. A process that dies releases what it held (flock(2) locks end with the open file), so a
// crashed or killed holder never leaves the lock taken.
//
// Writers are preferred: one waiting for the lock alone keeps new sharers out (a turnstile file
// every taker passes through), so a stream of sharers that overlap cannot starve it.
#pragma once

#include <string>

namespace rkt {

class SharedFileLock {
 public:
  /// Uses `path` and `path` + ".turnstile", created (mode 0666, so that every user's processes
  /// can meet there) when missing. Throws std::runtime_error naming the file when it cannot.
  explicit SharedFileLock(const std::string& path);
  ~SharedFileLock();
  SharedFileLock(const SharedFileLock&) = delete;
  SharedFileLock& operator=(const SharedFileLock&) = delete;

  /// Waits until no one holds the lock alone and no one waits to; then holds it shared.
  void lock_shared();
  /// Waits until no one else holds it; then holds it alone.
  void lock_exclusive();
  /// As lock_shared and lock_exclusive, but false at once where they would wait.
  bool try_lock_shared();
  bool try_lock_exclusive();
  /// Releases what this object holds (shared or alone).
  void unlock();

  /// True when someone is in the turnstile: a sole holder waiting for the sharers to leave (or,
  /// for an instant, a sharer passing through). A long sharer checks it between steps and, when
  /// true, lets the waiting holder in (SharedDeviceLease's yield).
  bool someone_waiting_to_hold_alone() const;

  /// True when the lock could be taken alone right now (no one holds it, shared or alone);
  /// takes nothing. For tests and diagnostics.
  bool free_now() const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int lock_fd_ = -1;
  int turnstile_fd_ = -1;
};

}  // namespace rkt
