// A worker lent by the main job to a child judge (framework/isolation/kernel_library.h, lend_worker):
// adopted past whatever an earlier judge left on its socket, kept alive for the lender when the
// adopting judge is done, and refused quickly when it is gone.
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

}  // namespace
}  // namespace rkt
