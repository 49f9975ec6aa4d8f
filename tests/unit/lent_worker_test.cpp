// A worker lent by the main job to a child judge (framework/isolation/kernel_library.h, lend_worker):
// adopted past whatever an earlier judge left on its socket, kept alive for the lender when the
// adopting judge is done, and refused quickly when it is gone. And a worker started before its
// library was known (WorkerProcess::launch_awaiting_library), as a judge started ahead starts one.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <thread>

#include "framework/isolation/worker_process.h"
#include "framework/wire/worker_protocol.h"

namespace rkt {
namespace {

WorkerLaunch adversaries_worker() {
  WorkerLaunch launch;
  launch.executable = RKT_WORKER_EXECUTABLE;
  launch.library = RKT_ADVERSARIES_LIBRARY;
  return launch;
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
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
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
  for (int waited = 0; waited < 100 && lender.running(); ++waited) {
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

}  // namespace
}  // namespace rkt
