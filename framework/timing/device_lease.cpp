#include "framework/timing/device_lease.h"

#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "framework/base/phase_times.h"
#include "framework/base/shared_file_lock.h"
#include "framework/runtime/device_support.h"

namespace rkt {
namespace {

// This process's hold on one lease: the file lock, taken once, and who in the process needs it.
struct LeaseHold {
  std::unique_ptr<SharedFileLock> lock;
  int shared_holders = 0;
  bool taking = false;     ///< A thread is taking the file lock (shared or alone).
  bool exclusive = false;  ///< Held alone by a thread of this process: `owner`,
  std::thread::id owner;   ///< which may take it again (a benchmark times its baselines);
  int exclusive_depth = 0; ///< how many of its holds are open.
};

std::mutex leases_mutex;
std::condition_variable leases_changed;
std::map<std::string, LeaseHold> holds;  // By lease file path; guarded by leases_mutex.
std::function<void(bool, const std::string&)> wait_listener;

std::string lease_folder() {
  const char* chosen = std::getenv(kDeviceLeaseFolderVariable);
  return chosen != nullptr && *chosen != '\0' ? chosen : kDeviceLeaseFolder;
}

SharedFileLock& lock_of(LeaseHold& hold, const std::string& path) {
  if (!hold.lock) {
    create_lease_folder_of(path);
    hold.lock = std::make_unique<SharedFileLock>(path);
  }
  return *hold.lock;
}

// "gpu-<UUID>" of ".../gpu-<UUID>.lock", for messages.
std::string key_of_path(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return name.substr(0, name.rfind(".lock"));
}

// Takes the file lock, telling the listener when that means waiting for another process.
// While waiting for a share with `while_waiting` given, the lock is tried every
// kLeaseWaitPollMilliseconds and while_waiting called between tries: a writer waiting in the
// turnstile still goes first, as it does before a blocked sharer.
void take(SharedFileLock& lock, bool alone, const std::string& path,
          const std::function<void()>& while_waiting) {
  const std::string key = key_of_path(path);
  if (alone ? lock.try_lock_exclusive() : lock.try_lock_shared()) return;
  const std::string why = std::string("waiting for ") + (alone ? "sole use of " : "a share of ") +
                          key + " (another judge is " + (alone ? "using" : "timing on") + " it)";
  std::function<void(bool, const std::string&)> listener;
  {
    const std::lock_guard<std::mutex> guard(leases_mutex);
    listener = wait_listener;
  }
  if (listener) listener(true, why);
  {
    const ScopedPhase waiting(Phase::device_wait);
    if (!alone && while_waiting) {
      while (!lock.try_lock_shared()) {
        while_waiting();
        std::this_thread::sleep_for(std::chrono::milliseconds(kLeaseWaitPollMilliseconds));
      }
    } else {
      alone ? lock.lock_exclusive() : lock.lock_shared();
    }
  }
  if (listener) listener(false, why);
}

// The lease file of `device`, or "" where nothing is to be taken (the CPU, no GPU visible). The
// identity is asked once a process (cudaGetDeviceProperties takes milliseconds, and a property
// case asks between every two trials); the lease folder is read each time.
std::string path_of(Device device) {
  if (device != Device::cuda) return "";
  static const std::string identity = device_identity(Device::cuda);
  return identity.empty() ? "" : device_lease_path(identity);
}

std::string path_of(const std::string& key) { return key.empty() ? "" : device_lease_path(key); }

void yield_lease(const std::string& path);

// Takes `hold`'s file lock with leases_mutex released (other threads of the process wait on
// `taking` meanwhile); `guard` is held again on return, and on an exception.
void take_unguarded(std::unique_lock<std::mutex>& guard, LeaseHold& hold, bool alone,
                    const std::string& path, const std::function<void()>& while_waiting = {}) {
  SharedFileLock& lock = lock_of(hold, path);
  hold.taking = true;
  guard.unlock();
  try {
    take(lock, alone, path, while_waiting);
  } catch (...) {
    guard.lock();
    hold.taking = false;
    leases_changed.notify_all();
    throw;
  }
  guard.lock();
  hold.taking = false;
  leases_changed.notify_all();
}

// False when nothing was taken: no lease (the CPU), or this thread holds it alone already.
bool hold_shared(const std::string& path, const std::function<void()>& while_waiting) {
  if (path.empty()) return false;
  std::unique_lock<std::mutex> guard(leases_mutex);
  LeaseHold& hold = holds[path];
  if (hold.exclusive && hold.owner == std::this_thread::get_id()) return false;
  {
    const ScopedPhase waiting(Phase::device_wait);  // for this process's own timing
    leases_changed.wait(guard, [&] { return !hold.taking && !hold.exclusive; });
  }
  if (hold.shared_holders > 0) {
    ++hold.shared_holders;
    return true;
  }
  take_unguarded(guard, hold, false, path, while_waiting);
  hold.shared_holders = 1;
  return true;
}

void release_shared(const std::string& path) {
  const std::lock_guard<std::mutex> guard(leases_mutex);
  LeaseHold& hold = holds[path];
  if (--hold.shared_holders == 0) hold.lock->unlock();
  leases_changed.notify_all();
}

}  // namespace

void yield_device_lease_to_timing(Device device) { yield_lease(path_of(device)); }

void yield_device_lease_to_timing(const std::string& key) { yield_lease(path_of(key)); }

namespace {

void yield_lease(const std::string& path) {
  if (path.empty()) return;
  std::unique_lock<std::mutex> guard(leases_mutex);
  LeaseHold& hold = holds[path];
  // Only a lone share yields: with a case beside holding one too, the file lock stays taken.
  if (hold.shared_holders != 1 || hold.taking || hold.exclusive || !hold.lock) return;
  if (!hold.lock->someone_waiting_to_hold_alone()) return;
  hold.lock->unlock();
  hold.shared_holders = 0;
  take_unguarded(guard, hold, false, path);  // behind the waiting judge, through the turnstile
  hold.shared_holders = 1;
}

}  // namespace

void set_device_lease_wait_listener(std::function<void(bool waiting, const std::string& why)> listener) {
  const std::lock_guard<std::mutex> guard(leases_mutex);
  wait_listener = std::move(listener);
}

void create_lease_folder_of(const std::string& lease_path) {
  const std::string folder = lease_path.substr(0, lease_path.rfind('/'));
  if (::mkdir(folder.c_str(), 01777) == 0) ::chmod(folder.c_str(), 01777);
}

std::string device_lease_path(const std::string& key) { return lease_folder() + "/" + key + ".lock"; }

std::string device_lease_path(Device device) { return path_of(device); }

SharedDeviceLease::SharedDeviceLease(Device device, const std::function<void()>& while_waiting) {
  const std::string path = path_of(device);
  if (hold_shared(path, while_waiting)) path_ = path;
}

SharedDeviceLease::SharedDeviceLease(const std::string& key,
                                     const std::function<void()>& while_waiting) {
  const std::string path = path_of(key);
  if (hold_shared(path, while_waiting)) path_ = path;
}

SharedDeviceLease::~SharedDeviceLease() {
  if (!path_.empty()) release_shared(path_);
}

ExclusiveDeviceLease::ExclusiveDeviceLease(Device device) : path_(path_of(device)) { hold(); }

ExclusiveDeviceLease::ExclusiveDeviceLease(const std::string& key) : path_(path_of(key)) { hold(); }

void ExclusiveDeviceLease::hold() {
  if (path_.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> guard(leases_mutex);
  LeaseHold& hold = holds[path_];
  if (hold.exclusive && hold.owner == std::this_thread::get_id()) {
    ++hold.exclusive_depth;
    return;
  }
  // This process's own shared holds end first (a case beside still running): the file lock
  // would otherwise wait for its own process.
  {
    const ScopedPhase waiting(Phase::device_wait);
    leases_changed.wait(
        guard, [&] { return !hold.taking && !hold.exclusive && hold.shared_holders == 0; });
  }
  take_unguarded(guard, hold, true, path_);
  hold.exclusive = true;
  hold.owner = std::this_thread::get_id();
  hold.exclusive_depth = 1;
  waited_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ExclusiveDeviceLease::~ExclusiveDeviceLease() {
  if (path_.empty()) return;
  const std::lock_guard<std::mutex> guard(leases_mutex);
  LeaseHold& hold = holds[path_];
  if (--hold.exclusive_depth > 0) return;
  hold.lock->unlock();
  hold.exclusive = false;
  hold.owner = {};
  leases_changed.notify_all();
}

}  // namespace rkt
