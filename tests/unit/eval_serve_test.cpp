// The parts of rkt eval --recheck and rkt serve that need no process: the recheck's agreement
// rule, the server's fair queue and its request parsing. End to end: tests/serve/serve_test.py
// and tests/eval/eval_recheck_test.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/eval/recheck.h"
#include "framework/eval/serve_protocol.h"
#include "framework/serve/fair_queue.h"

namespace rkt {
namespace {

SampleSummary timed(double median, double noise) {
  SampleSummary time;
  time.count = 50;
  time.median = median;
  time.first_quartile = median * 0.98;
  time.third_quartile = median * 1.02;
  time.relative_noise = noise;
  return time;
}

// A passing, timed kernel at `median` ms beside an eager baseline at `baseline` ms, both with 2%
// noise.
KernelReport passing_kernel(double median, double baseline) {
  KernelReport kernel;
  kernel.task = "relu";
  kernel.kernel = "fast";
  kernel.device = "cpu";
  CaseRecord passed;
  passed.name = "relu.fast.correctness_x1";
  passed.status = "passed";
  kernel.cases.cases.push_back(passed);
  kernel.benchmark.measured = true;
  kernel.benchmark.time = timed(median, 0.02);
  BaselineResult eager;
  eager.name = "eager_fp32";
  eager.available = true;
  eager.time = timed(baseline, 0.02);
  kernel.benchmark.baselines.push_back(eager);
  kernel.benchmark.strongest_baseline = "eager_fp32";
  return kernel;
}

TEST(Recheck, TheSameTimingAgainAgrees) {
  EXPECT_EQ(recheck_disagreement(passing_kernel(1.0, 2.0), passing_kernel(1.01, 2.02)), "");
}

TEST(Recheck, AMachineDriftingAsAWholeAgrees) {
  // Kernel and baseline both 40% slower the second time: the machine, not the kernel.
  EXPECT_EQ(recheck_disagreement(passing_kernel(1.0, 2.0), passing_kernel(1.4, 2.8)), "");
}

TEST(Recheck, AKernelSlowerBeyondBothNoisesDisagrees) {
  // The first timing was 40% too kind: the kernel's median and its ratio both moved.
  const std::string why = recheck_disagreement(passing_kernel(1.0, 2.0), passing_kernel(1.4, 2.0));
  EXPECT_NE(why.find("slower beyond noise"), std::string::npos) << why;
}

TEST(Recheck, AVerdictThatChangesDisagrees) {
  KernelReport second = passing_kernel(1.0, 2.0);
  second.cases.cases.front().status = "failed";
  const std::string why = recheck_disagreement(passing_kernel(1.0, 2.0), second);
  EXPECT_NE(why.find("verdict is FAIL"), std::string::npos) << why;
}

TEST(Recheck, ATimingNotTakenAgainDisagrees) {
  KernelReport second = passing_kernel(1.0, 2.0);
  second.benchmark.measured = false;
  second.benchmark.problem = "timing refused: 60 of 116 timed requests unexplained";
  const std::string why = recheck_disagreement(passing_kernel(1.0, 2.0), second);
  EXPECT_NE(why.find("could not be taken again: timing refused"), std::string::npos) << why;
}

TEST(Recheck, ADisagreementFailsTheRecordAndBothJudgementsStay) {
  EvalRecord record;
  record.file = "cand.cpp";
  record.library_hash = std::string(32, 'a');
  record.status = "judged";
  record.has_kernel = true;
  record.kernel = passing_kernel(1.0, 2.0);
  EXPECT_EQ(record.verdict(), "pass");
  record.rechecked = true;
  record.recheck = passing_kernel(1.4, 2.0);
  record.recheck_disagreement = recheck_disagreement(record.kernel, record.recheck);
  EXPECT_EQ(record.verdict(), "FAIL");
  const std::string line = eval_record_json(record);
  EXPECT_NE(line.find("\"recheck\":{\"verdict\":\"pass\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"agrees\":false"), std::string::npos) << line;
  EXPECT_NE(line.find("\"median_ms\":1.4"), std::string::npos) << line;
  EXPECT_NE(line.find("\"median_ms\":1.0"), std::string::npos) << line;  // the first judgement
}

TEST(FairQueue, ClientsAreServedInTurn) {
  FairQueue<std::string> queue;
  std::atomic<bool> stop{false};
  for (const char* job : {"a1", "a2", "a3"}) queue.push(1, job);
  queue.push(2, "b1");
  queue.push(3, "c1");
  std::vector<std::string> order;
  for (int i = 0; i < 5; ++i) order.push_back(*queue.pop_wait(stop));
  EXPECT_EQ(order, (std::vector<std::string>{"a1", "b1", "c1", "a2", "a3"}));
  EXPECT_EQ(queue.size(), 0u);
}

TEST(FairQueue, AClientGoneHasItsJobsDroppedAndStopEndsTheWait) {
  FairQueue<std::string> queue;
  std::atomic<bool> stop{false};
  queue.push(1, "a1");
  queue.push(1, "a2");
  queue.push(2, "b1");
  EXPECT_EQ(queue.drop_client(1), 2u);
  EXPECT_EQ(*queue.pop_wait(stop), "b1");
  stop = true;
  EXPECT_FALSE(queue.pop_wait(stop).has_value());
}

TEST(ServeProtocol, ARequestNamesOneSourceAndOnlyKnownFields) {
  std::string id;
  const ServeRequest file = parse_serve_request(R"({"id": 7, "file": "/k.cu", "task": "relu", "timeout": 30})", id);
  EXPECT_EQ(id, "7");
  EXPECT_EQ(file.file, "/k.cu");
  EXPECT_EQ(file.case_timeout_seconds, 30);
  const ServeRequest text = parse_serve_request(R"({"source": "int x;", "name": "k.cpp"})", id);
  EXPECT_EQ(text.source_name, "k.cpp");
  EXPECT_TRUE(parse_serve_request(R"({"id": "p", "op": "ping"})", id).ping);
  const auto refused = [](const std::string& line) {
    std::string ignored;
    try {
      parse_serve_request(line, ignored);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("{").find("not JSON"), std::string::npos);
  EXPECT_NE(refused(R"({"file": "/a.cpp", "source": "x", "name": "a.cpp"})").find("one kernel source"), std::string::npos);
  EXPECT_NE(refused(R"({"source": "x", "name": "/etc/a.cpp"})").find("without a folder"), std::string::npos);
  EXPECT_NE(refused(R"({"source": "x", "name": "a.py"})").find(".cxx or .cu"), std::string::npos);
  EXPECT_NE(refused(R"({"file": "/a.cpp", "seed": 1})").find("unknown field \"seed\""), std::string::npos);
  EXPECT_NE(refused(R"({"file": "/a.cpp", "timeout": 0})").find("positive whole number"), std::string::npos);
  EXPECT_NE(refused(R"({"op": "shutdown"})").find("unknown \"op\""), std::string::npos);
}

}  // namespace
}  // namespace rkt
