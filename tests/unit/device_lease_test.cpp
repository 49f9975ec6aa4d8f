// The lease that keeps judges sharing a GPU out of each other's timings
// (framework/timing/device_lease.h), over its file lock (framework/base/shared_file_lock.h), and
// the supervisor's clock, which stops while a case waits for it. No GPU needed: the leases are
// taken by name, and two SharedFileLock objects on one path meet as two processes would.
#include "framework/timing/device_lease.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "framework/base/phase_times.h"
#include "framework/base/shared_file_lock.h"
#include "framework/cases/case_catalog.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "framework/supervision/supervisor.h"
#include "framework/timing/device_memory_wanted.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// A new empty folder for each call (POSIX calls only: std::filesystem's symbols resolve into
// LibTorch's copy in this binary, whose remove_all crashes).
std::string fresh_folder(const std::string& name) {
  std::string pattern = ::testing::TempDir() + "rkt_lease_" + name + "_XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  return pattern;
}

bool folder_is_empty(const std::string& folder) {
  DIR* directory = ::opendir(folder.c_str());
  if (directory == nullptr) return true;
  int entries = 0;
  while (const dirent* entry = ::readdir(directory)) {
    if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..") ++entries;
  }
  ::closedir(directory);
  return entries == 0;
}

// Polls `done` for up to two seconds: a thread that should be blocked has had time to get past.
bool becomes_true_within_two_seconds(const std::atomic<bool>& done) {
  for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done;
}

// Polls until a thread that was told to take the lock at `path` alone waits in its turnstile, for
// up to a minute: a loaded machine (CI shares its cores) may start that thread late, and a fixed
// sleep would then test nothing or fail.
bool a_sole_holder_waits_within_a_minute(const std::string& path) {
  const SharedFileLock probe(path);
  for (int i = 0; i < 6000; ++i) {
    if (probe.someone_waiting_to_hold_alone()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(SharedFileLock, SharersMeetAndASoleHolderKeepsEveryoneOut) {
  const std::string path = fresh_folder("sharers") + "/gpu.lock";
  SharedFileLock first(path), second(path), writer(path);
  first.lock_shared();
  EXPECT_TRUE(second.try_lock_shared()) << "two sharers at once";
  EXPECT_FALSE(writer.try_lock_exclusive()) << "a sole holder while others share";
  first.unlock();
  EXPECT_FALSE(writer.try_lock_exclusive()) << "one sharer is still there";
  second.unlock();
  EXPECT_TRUE(writer.try_lock_exclusive());
  EXPECT_FALSE(first.try_lock_shared()) << "a sharer while one holds it alone";
  EXPECT_FALSE(writer.free_now());
  writer.unlock();
  EXPECT_TRUE(writer.free_now());
}

TEST(SharedFileLock, AWaitingSoleHolderKeepsNewSharersOut) {
  const std::string path = fresh_folder("turnstile") + "/gpu.lock";
  SharedFileLock sharer(path), late_sharer(path), writer(path);
  sharer.lock_shared();
  std::atomic<bool> writer_holds{false};
  std::thread waiting_writer([&] {
    writer.lock_exclusive();
    writer_holds = true;
  });
  EXPECT_TRUE(a_sole_holder_waits_within_a_minute(path))
      << "the writer never reached the turnstile";
  EXPECT_FALSE(writer_holds);
  EXPECT_FALSE(late_sharer.try_lock_shared())
      << "a sharer arriving after a waiting writer must queue behind it, or overlapping sharers "
         "would starve it";
  sharer.unlock();
  EXPECT_TRUE(becomes_true_within_two_seconds(writer_holds));
  waiting_writer.join();
  writer.unlock();
  EXPECT_TRUE(late_sharer.try_lock_shared());
  late_sharer.unlock();
}

TEST(SharedFileLock, AHolderThatIsKilledReleasesIt) {
  const std::string path = fresh_folder("killed") + "/gpu.lock";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    SharedFileLock lock(path);
    lock.lock_exclusive();
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    for (;;) ::pause();
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  SharedFileLock mine(path);
  EXPECT_FALSE(mine.try_lock_shared()) << "the other process holds it alone";
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_TRUE(mine.try_lock_shared()) << "a killed holder's lock ends with its process";
  mine.unlock();
  ::close(ready[0]);
  ::close(ready[1]);
}

// Another judge: a forked process that holds a `Held` (a lease alone, a memory-wanted mark) made
// from `key` until finish() is called; constructed once it holds it.
template <class Held>
class AnotherJudgeHolding {
 public:
  explicit AnotherJudgeHolding(const std::string& key) {
    if (::pipe(ready_) != 0 || ::pipe(finish_) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      {
        const Held held(key);
        char byte = 1;
        if (::write(ready_[1], &byte, 1) != 1) ::_exit(2);
        if (::read(finish_[0], &byte, 1) != 1) ::_exit(3);
      }
      ::_exit(0);
    }
    char byte = 0;
    if (::read(ready_[0], &byte, 1) != 1) throw std::runtime_error("the other judge did not start");
  }
  ~AnotherJudgeHolding() {
    if (pid_ > 0 && !finished_) finish();
    for (int fd : {ready_[0], ready_[1], finish_[0], finish_[1]}) ::close(fd);
  }
  AnotherJudgeHolding(const AnotherJudgeHolding&) = delete;
  AnotherJudgeHolding& operator=(const AnotherJudgeHolding&) = delete;

  /// Lets go of what it holds and ends; its exit status (0: it held and let go).
  int finish() {
    finished_ = true;
    const char byte = 1;
    if (::write(finish_[1], &byte, 1) != 1) return -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  int ready_[2] = {-1, -1};
  int finish_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool finished_ = false;
};

class DeviceLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fresh_folder("device");
    ::setenv(kDeviceLeaseFolderVariable, folder_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv(kDeviceLeaseFolderVariable);
    set_device_lease_wait_listener(nullptr);
  }
  std::string folder_;
};

TEST_F(DeviceLeaseTest, TheProcessSharesOnceForAllItsThreadsAndLetsGoWithTheLast) {
  const std::string path = device_lease_path("gpu-test");
  {
    const SharedDeviceLease main_case("gpu-test");
    EXPECT_FALSE(SharedFileLock(path).free_now());
    {
      const SharedDeviceLease case_beside("gpu-test");  // a second holder: no second file lock
    }
    EXPECT_FALSE(SharedFileLock(path).free_now()) << "released with the first of two holders";
    SharedFileLock other_judge(path);
    EXPECT_TRUE(other_judge.try_lock_shared()) << "another judge's case shares the GPU";
    other_judge.unlock();
    EXPECT_FALSE(other_judge.try_lock_exclusive()) << "another judge's benchmark must wait";
  }
  EXPECT_TRUE(SharedFileLock(path).free_now());
}

TEST_F(DeviceLeaseTest, TimingWaitsForThisProcesssCasesAndNestsOnItsThread) {
  const std::string path = device_lease_path("gpu-test");
  std::atomic<bool> timing{false};
  auto beside = std::make_unique<SharedDeviceLease>("gpu-test");
  std::thread benchmark([&] {
    const ExclusiveDeviceLease lease("gpu-test");
    timing = true;
    const ExclusiveDeviceLease baselines("gpu-test");  // the benchmark times its baselines too
    const SharedDeviceLease inside("gpu-test");        // and a share inside it takes nothing
    EXPECT_FALSE(SharedFileLock(path).try_lock_shared());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(timing) << "timed while a case of the same process still ran";
  beside.reset();
  benchmark.join();
  EXPECT_TRUE(timing);
  EXPECT_TRUE(SharedFileLock(path).free_now()) << "the nested holds let go with the outermost";
}

TEST_F(DeviceLeaseTest, WaitingForAnotherJudgeIsToldAndTimed) {
  std::vector<std::string> heard;
  std::mutex heard_mutex;
  set_device_lease_wait_listener([&](bool waiting, const std::string& why) {
    const std::lock_guard<std::mutex> guard(heard_mutex);
    heard.push_back((waiting ? "waiting: " : "resumed: ") + why);
  });
  SharedFileLock other_judge(device_lease_path("gpu-test"));
  {
    const SharedDeviceLease create_the_files("gpu-test");
  }
  ASSERT_TRUE(other_judge.try_lock_shared());
  std::atomic<double> waited{-1};
  std::thread benchmark([&] {
    const ExclusiveDeviceLease lease("gpu-test");
    waited = lease.waited_seconds();
  });
  // 300 ms from the moment it says it waits (not from the thread's start, which a loaded machine
  // may delay): the time it reports must hold them.
  const auto heard_anything = [&] {
    const std::lock_guard<std::mutex> guard(heard_mutex);
    return !heard.empty();
  };
  for (int i = 0; i < 6000 && !heard_anything(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  other_judge.unlock();
  benchmark.join();
  EXPECT_GE(waited, 0.3);
  const std::lock_guard<std::mutex> guard(heard_mutex);
  ASSERT_EQ(heard.size(), 2u);
  EXPECT_EQ(heard[0].rfind("waiting: waiting for sole use of gpu-test", 0), 0u) << heard[0];
  EXPECT_EQ(heard[1].rfind("resumed: ", 0), 0u);
  // Free: nothing is said.
  heard.clear();
  { const ExclusiveDeviceLease free_lease("gpu-test"); }
  EXPECT_TRUE(heard.empty());
}

// The wait is a phase of its own (base/phase_times.h), not the time of the phase around it: a
// case that draws its inputs while another judge times does not report a slow draw.
TEST_F(DeviceLeaseTest, WaitingForAnotherJudgeIsThePhaseDeviceWait) {
  SharedFileLock other_judge(device_lease_path("gpu-test"));
  { const SharedDeviceLease create_the_files("gpu-test"); }
  ASSERT_TRUE(other_judge.try_lock_exclusive());
  std::thread timing_ends([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    other_judge.unlock();
  });
  const PhaseTimes before = process_phase_times();
  {
    const ScopedPhase drawing(Phase::drawing);
    const SharedDeviceLease lease("gpu-test");
  }
  const PhaseTimes spent = process_phase_times() - before;
  timing_ends.join();
  EXPECT_GE(spent[Phase::device_wait], 250);
  EXPECT_LT(spent[Phase::drawing], spent[Phase::device_wait] / 2);
}

TEST_F(DeviceLeaseTest, ALongCaseLetsAWaitingTimerInBetweenItsTrials) {
  const std::string path = device_lease_path("gpu-test");
  auto property_case = std::make_unique<SharedDeviceLease>("gpu-test");
  yield_device_lease_to_timing("gpu-test");  // nobody waits: nothing changes
  EXPECT_FALSE(SharedFileLock(path).free_now());
  std::atomic<bool> timed{false};
  std::thread other_judge([&] {
    SharedFileLock benchmark(path);
    benchmark.lock_exclusive();  // waits in the turnstile for the case's share
    timed = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    benchmark.unlock();
  });
  EXPECT_TRUE(a_sole_holder_waits_within_a_minute(path)) << "the benchmark never came to wait";
  EXPECT_FALSE(timed) << "timed while the case held its share";
  yield_device_lease_to_timing("gpu-test");  // between two trials: the benchmark goes first
  EXPECT_TRUE(timed) << "the case took its share back before the waiting benchmark ran";
  other_judge.join();
  EXPECT_FALSE(SharedFileLock(path).free_now()) << "the case holds its share again";
  SharedFileLock waiting(path);
  std::atomic<bool> second_timed{false};
  auto beside = std::make_unique<SharedDeviceLease>("gpu-test");  // two holders: no yield
  std::thread second([&] {
    waiting.lock_exclusive();
    second_timed = true;
    waiting.unlock();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  yield_device_lease_to_timing("gpu-test");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(second_timed) << "yielded while a case beside still ran";
  beside.reset();
  property_case.reset();  // the last share ends: the second benchmark runs
  second.join();
  EXPECT_TRUE(second_timed);
  EXPECT_TRUE(SharedFileLock(path).free_now());
}

TEST_F(DeviceLeaseTest, NothingIsTakenOnTheCpu) {
  const SharedDeviceLease shared(Device::cpu);
  const ExclusiveDeviceLease alone(Device::cpu);  // would wait for `shared` if either took a lock
  EXPECT_EQ(alone.waited_seconds(), 0);
  EXPECT_TRUE(folder_is_empty(folder_));
}

// A judge that ran out of GPU memory marks the lease; other judges see the mark (and give back
// what they keep, framework/supervision/gtest_expansion.cpp) until it ends. Its own process does
// not count, a dead marker's mark is ignored, and nothing is marked on the CPU.
TEST_F(DeviceLeaseTest, AMemoryWantedMarkIsSeenByOtherProcessesWhileItsHolderLives) {
  EXPECT_FALSE(device_memory_wanted_by_another("gpu-test"));
  {
    AnotherJudgeHolding<DeviceMemoryWanted> other_judge("gpu-test");
    EXPECT_TRUE(device_memory_wanted_by_another("gpu-test")) << "another process marked it";
    EXPECT_FALSE(device_memory_wanted_by_another("gpu-other")) << "another GPU's lease";
    EXPECT_EQ(other_judge.finish(), 0);
  }
  EXPECT_FALSE(device_memory_wanted_by_another("gpu-test")) << "the mark ends with its holder";
  {
    const DeviceMemoryWanted mine("gpu-test");
    EXPECT_FALSE(device_memory_wanted_by_another("gpu-test")) << "this process's own mark";
  }
  // A marker killed before it could unmark: its mark names a dead process.
  const pid_t killed = ::fork();
  ASSERT_GE(killed, 0);
  if (killed == 0) {
    const DeviceMemoryWanted wanted("gpu-test");
    ::_exit(0);  // no destructor: the mark stays behind
  }
  ::waitpid(killed, nullptr, 0);
  EXPECT_FALSE(device_memory_wanted_by_another("gpu-test")) << "a dead process's mark counts";
  const DeviceMemoryWanted on_cpu(Device::cpu);
  EXPECT_FALSE(device_memory_wanted_by_another(Device::cpu));
}

// A share that waits behind a judge holding the lease alone does its work meanwhile (a judge gives
// back its idle GPU memory there when another ran short, gtest_expansion.cpp): it is called while
// the sole holder lives, and the share is taken once that holder lets go.
TEST_F(DeviceLeaseTest, AShareWaitingBehindASoleHolderDoesItsWorkMeanwhile) {
  AnotherJudgeHolding<ExclusiveDeviceLease> timing_judge("gpu-test");
  std::atomic<int> calls_while_waiting{0};
  std::atomic<bool> shared{false};
  std::thread waiting_judge([&] {
    const SharedDeviceLease lease("gpu-test", [&] { ++calls_while_waiting; });
    shared = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (calls_while_waiting < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(calls_while_waiting.load(), 3) << "not called while waiting";
  EXPECT_FALSE(shared.load()) << "shared while another held the lease alone";
  EXPECT_EQ(timing_judge.finish(), 0);
  waiting_judge.join();
  EXPECT_TRUE(shared.load());
  // A share that need not wait calls nothing.
  int calls_when_free = 0;
  {
    const SharedDeviceLease lease("gpu-test", [&] { ++calls_when_free; });
  }
  EXPECT_EQ(calls_when_free, 0);
}

// The escaped-work gate on the host's clock compares the device's time with the stream's: another
// judge's work on the GPU reads as work the kernel left behind (H200, 2026-12-03: two honest files
// of 50 judged four at a time failed it), so it holds the lease alone there. Where the call's
// device work is traced (CUPTI, the GPU's clock) it shares the GPU like every other case.
TEST(DeviceLeaseCases, OnlyTheEscapedWorkGateOnTheHostClockIsTimedAlone) {
  const bool traced = off_stream_tracing_unavailable_reason().empty();
  int kernels_seen = 0;
  for (KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;
    ++kernels_seen;
    for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
      EXPECT_EQ(kernel_case.timed, kernel_case.name == "integrity_escaped_work" &&
                                       kernel->device() == Device::cuda && !traced)
          << kernel_case.suite << "." << kernel_case.name;
    }
  }
  EXPECT_GT(kernels_seen, 0);
}

// A child that waits for its GPU past its case timeout, saying so, is not killed as hung; the
// same child silent for as long is (the control: this test can fail).
SupervisedRun run_script_child(const std::string& folder, bool says_it_waits) {
  const std::string script = folder + (says_it_waits ? "/waits.sh" : "/silent.sh");
  {
    std::ofstream out(script);
    out << "#!/bin/bash\n"  // dash refuses >&N for N above 9
        << "say() { echo \"RKT $RKT_VERDICT_NONCE $*\" >&\"$RKT_VERDICT_FD\"; }\n"
        // A child started for the cases left (the filter then excludes the one that ended).
        << "case \"$2\" in *=*-*) say complete; exit 0;; esac\n"
        << "say start waiting.case\n"
        << (says_it_waits ? "say waiting waiting for sole use of gpu-test\n" : "")
        << "sleep 3\n"
        << (says_it_waits ? "say resumed\n" : "")
        << "say end waiting.case passed 3000 done\n"
        << "say complete\n";
  }
  ::chmod(script.c_str(), 0700);
  SupervisionOptions options;
  options.executable = script;
  options.gtest_filter = "waiting.case";
  options.case_timeout_seconds = 1;
  options.echo_child_output = false;
  return run_supervised(options);
}

TEST_F(DeviceLeaseTest, TheSupervisorsClockStopsWhileACaseWaitsForItsGpu) {
  const SupervisedRun waited = run_script_child(folder_, true);
  ASSERT_EQ(waited.cases.size(), 1u);
  EXPECT_EQ(waited.cases[0].status, "passed") << waited.cases[0].message;
  const SupervisedRun silent = run_script_child(folder_, false);
  ASSERT_FALSE(silent.cases.empty());
  EXPECT_EQ(silent.cases[0].status, "crashed") << "the control: a silent child past its timeout";
}

}  // namespace
}  // namespace rkt
