// Who may use a GPU while a benchmark is timed on it.
//
// Several judges may share one GPU (rkt eval and rkt serve judge a few files at once on each GPU;
// a user may run two rkt commands): correctness needs the device only to be correct, but a timed
// kernel must have it to itself. So every judge process takes its GPU's lease shared while it
// runs a case there (cases_of's work, a sanitizer case beside), and alone while it times (the
// benchmark case, rkt baselines, rkt bench). The lease is a SharedFileLock named by the GPU's UUID
// in kDeviceLeaseFolder (RKT_DEVICE_LEASE_DIR overrides it), so judges that see the GPU under
// different CUDA_VISIBLE_DEVICES numbers still meet; a judge that dies releases its hold.
//
// Within a process the holds nest: the shared hold is taken once for every thread that needs it
// (the main thread's case and the cases beside) and released when the last one ends; a hold
// alone waits until this process's own shared holds have ended.
//
// On the CPU nothing is taken: CPU benchmarks are kept apart by running CPU work one judge at a
// time (rkt eval judges CPU files in turn).
#pragma once

#include <functional>
#include <string>

#include "rkt/tensor_view.h"

namespace rkt {

/// Where the lease files are, unless RKT_DEVICE_LEASE_DIR names another folder (created when
/// missing, mode 1777 as /tmp, so that every user's judges meet in it).
inline constexpr const char* kDeviceLeaseFolder = "/tmp/rkt-device-leases";
inline constexpr const char* kDeviceLeaseFolderVariable = "RKT_DEVICE_LEASE_DIR";

/// Told when this process starts (true) and stops (false) waiting for a lease that another
/// process holds alone, or shares while this one wants it alone: the supervisor's clock for the
/// running case stops meanwhile (verdict_channel.cpp writes the records). One listener a process.
void set_device_lease_wait_listener(std::function<void(bool waiting, const std::string& why)> listener);

/// How often a share waiting with something to do meanwhile tries the lease again [ms].
inline constexpr int kLeaseWaitPollMilliseconds = 20;

/// Holds the lease of `device` shared for its lifetime (nothing on the CPU). Where another judge
/// holds it alone (or waits to), and `while_waiting` is given, this tries again every
/// kLeaseWaitPollMilliseconds and calls while_waiting between tries: a judge gives back its idle
/// GPU memory there when another asks for it (framework/timing/device_memory_wanted.h), which a
/// blocked wait could not.
class SharedDeviceLease {
 public:
  explicit SharedDeviceLease(Device device, const std::function<void()>& while_waiting = {});
  /// The lease named `key` (a test's own, without a GPU).
  explicit SharedDeviceLease(const std::string& key,
                             const std::function<void()>& while_waiting = {});
  ~SharedDeviceLease();
  SharedDeviceLease(const SharedDeviceLease&) = delete;
  SharedDeviceLease& operator=(const SharedDeviceLease&) = delete;

 private:
  std::string path_;  ///< The lease file this holds a share of; "" when it took nothing.
};

/// Between the steps of a long case (a property's trials): when another judge waits to time on
/// `device` and this thread's hold is the process's only one, lets that judge go first, then
/// takes its share again (waiting, and saying so, as a new share would). A benchmark then waits
/// for one trial of each judge's case, not for the whole case. Nothing otherwise; never on the
/// CPU. Call only while holding a share of `device`'s lease.
void yield_device_lease_to_timing(Device device);
/// The same for the lease named `key` (a test's own).
void yield_device_lease_to_timing(const std::string& key);

/// Holds the lease of `device` alone for its lifetime (nothing on the CPU).
class ExclusiveDeviceLease {
 public:
  explicit ExclusiveDeviceLease(Device device);
  explicit ExclusiveDeviceLease(const std::string& key);
  ~ExclusiveDeviceLease();
  ExclusiveDeviceLease(const ExclusiveDeviceLease&) = delete;
  ExclusiveDeviceLease& operator=(const ExclusiveDeviceLease&) = delete;

  /// Seconds this hold waited for other judges (0 when the lease was free).
  double waited_seconds() const { return waited_seconds_; }

 private:
  void hold();

  std::string path_;  ///< The lease file; "" when nothing is taken.
  double waited_seconds_ = 0;
};

/// Creates the folder of the lease file `lease_path` when missing, mode 1777 as /tmp, so that
/// every user's judges meet in it.
void create_lease_folder_of(const std::string& lease_path);

/// The lease file of `key` ("<folder>/<key>.lock"); tests look at it.
std::string device_lease_path(const std::string& key);
/// The lease file of `device`, or "" where nothing is taken (the CPU, no GPU visible).
std::string device_lease_path(Device device);

}  // namespace rkt
