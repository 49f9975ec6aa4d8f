// A worker lent by the main job to a child judge (framework/isolation/kernel_library.h, lend_worker):
// adopted past whatever an earlier judge left on its socket, kept alive for the lender when the
// adopting judge is done, and refused quickly when it is gone. And a worker started before its
// library was known (WorkerProcess::launch_awaiting_library), as a judge started ahead starts one,
// and as a judge starts the successor of a worker its kernel crashed (discard_lost_worker).
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/worker_process.h"
#include "framework/wire/worker_protocol.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

WorkerLaunch adversaries_worker() {
  WorkerLaunch launch;
  launch.executable = RKT_WORKER_EXECUTABLE;
  launch.library = RKT_ADVERSARIES_LIBRARY;
  return launch;
}

// Polls /proc until `pid` has died and waits to be reaped (state Z): its sockets are closed by
// then. A loaded machine (CI shares its cores) may take a while to get there.
bool becomes_a_zombie_within_a_minute(pid_t pid) {
  for (int polls = 0; polls < 6000; ++polls) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t name_end = line.rfind(')');  // the command's name may hold spaces
    if (name_end != std::string::npos && line.compare(name_end, 3, ") Z") == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(LentWorker, IsAdoptedPastAStaleReplyAndOutlivesTheAdoptingJudge) {
  WorkerProcess lender(adversaries_worker());
  // A judge that ended mid-request left a reply on the socket (sequence 7).
  const int lent_socket = lender.inheritable_socket();
  ASSERT_GE(lent_socket, 0);
  wire::Request earlier;
  earlier.kind = wire::RequestKind::describe;
  earlier.sequence = 7;
  wire::send_datagram(lent_socket, {wire::encode(earlier), {}});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  std::unique_ptr<WorkerProcess> adopted = WorkerProcess::adopt(lent_socket, lender.pid(), 10);
  EXPECT_TRUE(adopted->adopted());
  EXPECT_EQ(adopted->description().kernels.size(), lender.description().kernels.size());
  adopted.reset();  // The adopting judge is done: it closes its socket, nothing more.
  EXPECT_TRUE(lender.running()) << "the lender's worker outlives the judge that adopted it";
  // The next child judge (the benchmark after the cases) adopts the same worker again.
  std::unique_ptr<WorkerProcess> next = WorkerProcess::adopt(lender.inheritable_socket(), lender.pid(), 10);
  EXPECT_EQ(next->pid(), lender.pid());
  next.reset();
  EXPECT_TRUE(lender.running()) << "the lender's worker outlives the judge that adopted it";
}

TEST(LentWorker, AWorkerThatIsGoneIsRefusedAtOnce) {
  WorkerProcess lender(adversaries_worker());
  const int lent_socket = lender.inheritable_socket();
  const pid_t pid = lender.pid();
  ::kill(pid, SIGKILL);  // Not reaped yet: a zombie keeps its pid, as under a lending main job.
  ASSERT_TRUE(becomes_a_zombie_within_a_minute(pid)) << "the killed worker never died";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(WorkerProcess::adopt(lent_socket, pid, 10), WorkerFailure);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5))
      << "a closed socket is seen at once, not after the adoption timeout";
}

TEST(LentWorker, AdoptingKillsNothingButDiscardingAnAdoptedWorkerKillsIt) {
  WorkerProcess lender(adversaries_worker());
  std::unique_ptr<WorkerProcess> adopted =
      WorkerProcess::adopt(lender.inheritable_socket(), lender.pid(), 10);
  adopted->kill_now();  // What discard_worker does after a crash, a hang or a lost context.
  for (int waited = 0; waited < 6000 && lender.running(); ++waited) {  // up to a minute, loaded
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(lender.running()) << "the lender sees its worker gone and replaces it";
}

TEST(WorkerAwaitingLibrary, BecomesTheWorkerOfTheLibraryItIsGiven) {
  const WorkerProcess started_with_it(adversaries_worker());
  std::unique_ptr<WorkerProcess> awaiting = WorkerProcess::launch_awaiting_library(adversaries_worker());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(awaiting->running()) << "it waits for its library";
  awaiting->give_library(RKT_ADVERSARIES_LIBRARY);
  ASSERT_EQ(awaiting->description().kernels.size(), started_with_it.description().kernels.size());
  EXPECT_TRUE(awaiting->description().load_error.empty()) << awaiting->description().load_error;
  EXPECT_EQ(awaiting->description().sandbox, started_with_it.description().sandbox)
      << "the same sandbox as a worker started with its library";
  for (std::size_t i = 0; i < awaiting->description().kernels.size(); ++i) {
    EXPECT_EQ(awaiting->description().kernels[i].kernel_id, started_with_it.description().kernels[i].kernel_id);
  }
}

TEST(WorkerAwaitingLibrary, AMissingLibraryIsItsLoadErrorAndAClosedSocketEndsIt) {
  std::unique_ptr<WorkerProcess> awaiting = WorkerProcess::launch_awaiting_library(adversaries_worker());
  awaiting->give_library("/nonexistent/libnothing.so");
  EXPECT_NE(awaiting->description().load_error.find("could not load the kernel library"), std::string::npos)
      << awaiting->description().load_error;
  EXPECT_TRUE(awaiting->description().kernels.empty());
  // A worker never given a library ends when its judge goes (its socket closes), loading nothing.
  std::unique_ptr<WorkerProcess> unused = WorkerProcess::launch_awaiting_library(adversaries_worker());
  EXPECT_TRUE(unused->finish(10)) << "it exits by itself when its socket closes";
}

const KernelSpec* kernel_named(const std::string& id) {
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id() == id) return kernel;
  }
  return nullptr;
}

// In a child process (the library's kernels join the registry there only): a crashing kernel and
// an honest one in turn. Each crash's successor was loading already; the honest kernel's results
// in it stay right. Exit code 0: as expected; otherwise which step went wrong.
int crash_and_recover() {
  if (!load_kernel_library({RKT_ADVERSARIES_LIBRARY, RKT_WORKER_EXECUTABLE}).empty()) return 2;
  const KernelSpec* crashing = kernel_named("relu/cheat_segfaults");
  const KernelSpec* honest = kernel_named("relu/honest_loop");
  const TaskSpec* relu = find_task("relu");
  if (crashing == nullptr || honest == nullptr || relu == nullptr) return 3;
  const std::vector<at::Tensor> inputs = generate_inputs(*relu, {{"B", 3}, {"N", 41}}, 7);
  const std::vector<OutputSignature> signatures = infer_output_signatures(*relu, inputs, Device::cpu);
  for (std::size_t round = 1; round <= 2; ++round) {
    try {
      invoke_kernel(*crashing, inputs, signatures);
      return 4;  // it returned: not the crash this test needs
    } catch (const WorkerFailure&) {
    }
    const KernelRun run = invoke_kernel(*honest, inputs, signatures);
    if (!at::equal(run.outputs[0], at::relu(inputs[0]))) return 5;
    if (replacements_taken() != round) return 10 + static_cast<int>(replacements_taken());
  }
  return 0;
}

TEST(LostWorkerReplacement, EachCrashesSuccessorWasStartedAheadAndComputesRightly) {
  EXPECT_EXIT(std::exit(crash_and_recover()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace rkt
