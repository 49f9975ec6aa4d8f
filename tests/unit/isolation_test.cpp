// The trust boundary (issue 11): kernels that attack the harness rather than the task. Each is
// run isolated (the default) and must fail; the attacks that can work inside the judge's own
// process are also run --in-process, where they succeed: proof that each attack is real and that
// the isolation is what stops it. Honest kernels pass in both modes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adversary_support.h"
#include "framework/benchmarks/fresh_values_check.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/worker_timing.h"
#include "framework/supervision/supervisor.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using ::testing::AnyOf;
using testing::case_message;
using testing::expect_case_status;
using ::testing::HasSubstr;
using ::testing::Not;

// Sets an environment variable for the scope of one test.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedVariable() { ::unsetenv(name_); }

 private:
  const char* name_;
};

std::map<std::string, CaseRecord> run_isolated(
    const std::string& filter, const std::string& executable = RKT_ADVERSARIES_EXECUTABLE) {
  return testing::run_adversary_cases(filter, 60, "", executable);
}

std::map<std::string, CaseRecord> run_in_process(
    const std::string& filter, const std::string& executable = RKT_ADVERSARIES_EXECUTABLE) {
  ScopedVariable mode(kIsolationVariable, "in-process");
  return testing::run_adversary_cases(filter, 60, "", executable);
}

const char* const kCorrectness[] = {"correctness_x1", "correctness_x3", "correctness_x0_01",
                                    "correctness_negated"};

TEST(Isolation, ForgedVerdictRecordsOnEveryDescriptorFail) {
  const auto cases = run_isolated("relu/forge_verdict_records.correctness_*");
  // Its worker ends in every case: after kWorkerLossCasesBeforeSkipping failed cases the others
  // are skipped for it (worker_losses.h); none passes.
  int index = 0;
  for (const char* name : kCorrectness) {
    const std::string full_name = std::string("relu/forge_verdict_records.") + name;
    if (index++ < defaults::kWorkerLossCasesBeforeSkipping) {
      expect_case_status(cases, full_name, "failed");
    } else {
      expect_case_status(cases, full_name, "skipped");
      EXPECT_THAT(case_message(cases, full_name), HasSubstr("not run: the kernel lost its worker"));
    }
  }
  EXPECT_THAT(case_message(cases, "relu/forge_verdict_records.correctness_x1"),
              HasSubstr("the worker process"));
}

TEST(Isolation, SecretSeedIsOutOfReach) {
  ScopedVariable secret("RKT_SECRET_SEED", "271828");
  const auto isolated = run_isolated("relu/read_secret_seed.correctness_x1");
  expect_case_status(isolated, "relu/read_secret_seed.correctness_x1", "failed");
  const auto in_process = run_in_process("relu/read_secret_seed.correctness_x1");
  expect_case_status(in_process, "relu/read_secret_seed.correctness_x1", "passed");
}

TEST(Isolation, JudgeMemoryIsOutOfReach) {
  const auto isolated = run_isolated("relu/read_judge_memory.correctness_x1");
  expect_case_status(isolated, "relu/read_judge_memory.correctness_x1", "failed");
}

TEST(Isolation, AWorkerCannotStartProcessesOfItsOwn) {
  // A child of the worker would escape the judge's watch of the worker's processor time and
  // outlive it; threads (relu/hog_between_calls starts one) stay allowed.
  // (Before the sandbox refused them, the child's relu reached the judge through the shared
  // outputs and the case passed. In-process there is no sandbox, but the child's writes land in
  // its own copy of the judge's memory: no comparison there.)
  const auto isolated = run_isolated("relu/spawn_a_helper_process.correctness_x1");
  expect_case_status(isolated, "relu/spawn_a_helper_process.correctness_x1", "failed");
  EXPECT_THAT(case_message(isolated, "relu/spawn_a_helper_process.correctness_x1"),
              HasSubstr("outside atol"))
      << "the kernel wrote zeros, having no child to compute in";
}

// A shell command's exit status (-1 when it did not exit) and everything it printed on standard
// output (the command redirects standard error there itself).
std::pair<int, std::string> command_output(const std::string& command) {
  std::string output;
  std::array<char, 4096> buffer{};
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// Everything `rkt_adversaries test --filter FILTER` printed, with `variables` set before it.
std::string adversary_test_output(const std::string& variables, const std::string& filter) {
  return command_output(variables + " " + RKT_ADVERSARIES_EXECUTABLE + " test --filter '" + filter +
                        "' 2>&1")
      .second;
}

TEST(Isolation, RefusedSystemCallsAreNamedWhenAskedAndStillRefused) {
  // RKT_WORKER_NAME_REFUSED_CALLS=1 (diagnosis: which call a tool inside the worker needs) traps
  // each refused call, names it on the worker's standard error and fails it with EPERM as
  // before: the kernel that starts a process of its own still gets none and writes zeros.
  const std::string filter = "relu/spawn_a_helper_process.correctness_x1";
  const std::string named = adversary_test_output("RKT_WORKER_NAME_REFUSED_CALLS=1", filter);
  // glibc's fork() is the clone system call without CLONE_THREAD; named once for both tries.
  EXPECT_THAT(
      named, HasSubstr("rkt-worker: the sandbox refused clone (as a new process) (system call 56"));
  EXPECT_THAT(named, HasSubstr("it failed with EPERM"));
  EXPECT_THAT(named, HasSubstr("outside atol")) << "the kernel had no child to compute in";
  EXPECT_THAT(named, HasSubstr("each refused call named on standard error"));
  // Unasked, the calls fail silently, as they always did.
  const std::string silent = adversary_test_output("", filter);
  EXPECT_THAT(silent, Not(HasSubstr("the sandbox refused")));
  EXPECT_THAT(silent, HasSubstr("outside atol"));
}

TEST(Isolation, SignalsToTheJudgeAreRefusedAndEveryVerdictIsKept) {
  const auto cases = run_isolated("relu/signal_the_judge.*");
  for (const char* name : kCorrectness) {
    expect_case_status(cases, std::string("relu/signal_the_judge.") + name, "passed");
  }
  EXPECT_GE(cases.size(), 10u);
}

TEST(Isolation, DispatcherOverrideOfTheReferenceStaysInTheWorker) {
  const auto isolated = run_isolated("relu/override_reference_dispatch.correctness_x1",
                                     RKT_DISPATCH_ADVERSARY_EXECUTABLE);
  expect_case_status(isolated, "relu/override_reference_dispatch.correctness_x1", "failed");
  const auto in_process = run_in_process("relu/override_reference_dispatch.correctness_x1",
                                         RKT_DISPATCH_ADVERSARY_EXECUTABLE);
  expect_case_status(in_process, "relu/override_reference_dispatch.correctness_x1", "passed");
}

TEST(Isolation, PrecisionLoweringOverrideOfTheReferenceStaysInTheWorker) {
  const auto isolated = run_isolated("matmul/lower_reference_precision.correctness_x1",
                                     RKT_DISPATCH_ADVERSARY_EXECUTABLE);
  expect_case_status(isolated, "matmul/lower_reference_precision.correctness_x1", "failed");
  const auto in_process = run_in_process("matmul/lower_reference_precision.correctness_x1",
                                         RKT_DISPATCH_ADVERSARY_EXECUTABLE);
  expect_case_status(in_process, "matmul/lower_reference_precision.correctness_x1", "passed");
}

TEST(Isolation, ForgedWorkerRepliesAreProtocolViolations) {
  const auto cases = run_isolated("relu/forge_worker_replies.correctness_x1");
  expect_case_status(cases, "relu/forge_worker_replies.correctness_x1", "failed");
  EXPECT_THAT(case_message(cases, "relu/forge_worker_replies.correctness_x1"),
              HasSubstr("something other than the worker wrote to its socket"));
}

TEST(Isolation, FingerprintCacheFailsTheReplayGate) {
  const auto cases = run_isolated("relu/fingerprint_cache.*");
  expect_case_status(cases, "relu/fingerprint_cache.correctness_x1", "passed");
  expect_case_status(cases, "relu/fingerprint_cache.integrity_replay", "failed");
  EXPECT_THAT(case_message(cases, "relu/fingerprint_cache.integrity_replay"),
              HasSubstr("one element of each input changed in place"));
}

// The judge hands a freed buffer back for the next tensor of its size (idle_buffer_pool.h); a
// kernel that writes each output buffer once and relies on its old contents after that meets the
// poison every call starts with.
TEST(Isolation, AKernelRelyingOnAReusedOutputBuffersOldContentsFails) {
  const auto cases = run_isolated("relu/cheat_skips_seen_output.*");
  int failed = 0;
  for (const auto& [name, record] : cases) failed += record.status == "failed";
  EXPECT_GT(failed, 0);
  expect_case_status(cases, "relu/cheat_skips_seen_output.integrity_replay", "failed");
}

TEST(Isolation, HonestKernelPassesInBothModes) {
  for (bool in_process : {false, true}) {
    const auto cases = in_process ? run_in_process("relu/honest_loop.*") : run_isolated("relu/honest_loop.*");
    for (const auto& [name, record] : cases) {
      EXPECT_EQ(record.status, "passed") << (in_process ? "in-process " : "isolated ") << name
                                         << ": " << record.message;
    }
    EXPECT_GE(cases.size(), 10u);
  }
}

// The first line of `text` that contains `needle` ("" when none does).
std::string line_with(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', at);
  const std::size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end == std::string::npos ? std::string::npos : end - (begin == std::string::npos ? 0 : begin + 1));
}

// `rkt bench` over one adversary kernel: its exit status and everything it printed.
std::pair<int, std::string> bench_adversary(const std::string& kernel, bool in_process) {
  return command_output(std::string(in_process ? "RKT_ISOLATION=in-process " : "") +
                        RKT_ADVERSARIES_EXECUTABLE + " bench --benchmark_filter='^" + kernel +
                        "/' --benchmark_format=json 2>&1");
}

TEST(TimingCrossCheck, KernelThatSlowsTheWorkersClockIsRefused) {
  // relu/forge_slow_clock works 150 ms per call and makes its process's monotonic clock run ten
  // times slower. Isolated, the judge's clock sees the real time: the times are refused, the
  // entry fails with the reason, and `rkt bench` exits 1.
  // On a machine loaded enough that an empty request costs as much as the hidden time (CI under
  // ctest -j2), the load could explain the slow requests: then most requests need that excuse,
  // and the times are refused for the load instead. Never measured.
  const auto [isolated_status, isolated] = bench_adversary("relu/forge_slow_clock", false);
  EXPECT_EQ(isolated_status, 1) << isolated;
  EXPECT_THAT(
      isolated,
      AnyOf(HasSubstr("timing refused: the worker's times are not what the judge's clock measured"),
            HasSubstr("timing refused: most requests were explained only by the machine's load")));
  EXPECT_THAT(isolated, HasSubstr("rkt bench: 1 entry failed"));
  // In-process the forged clock is the judge's clock too, and the forged time stands: the attack
  // is real, and the isolation is what catches it.
  const auto [in_process_status, in_process] = bench_adversary("relu/forge_slow_clock", true);
  ASSERT_EQ(in_process_status, 0) << in_process;
  const std::size_t field = in_process.find("\"real_time\": ");
  ASSERT_NE(field, std::string::npos) << in_process;
  const double reported_ms = std::stod(in_process.substr(field + 13));
  EXPECT_LT(reported_ms, 75) << "150 ms of work per call, reported as " << reported_ms << " ms";
}

TEST(FreshValuesCheck, ComparesRepeatedCallsWithTheLoopCallOfTheirRankNotItsFastest) {
  // An honest kernel with a long lower tail (a grid-stride relu on a fixed grid, H100 run 45):
  // 80 loop samples, 4 of them fast, the rest about 0.39 ms. The fastest of 16 repeated calls is
  // compared with the loop's sample at rank 80/17 = 4, the first of the usual ones, not 0.23.
  std::vector<double> loop(76, 0.39);
  for (int i = 0; i < 4; ++i) loop.push_back(0.23);
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of(loop, 16), 0.39);
  // A loop short of the repeated calls' count: its third fastest call, never the fastest two
  // (H100 run 46: the honest relu/batch_34_float4_checked_64_again1, whose loop met its noise
  // target in 10 samples, one of them 0.19 ms against 0.30 ms for the others).
  std::vector<double> short_loop(9, 0.30);
  short_loop.push_back(0.19);
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of(short_loop, 32), 0.30);
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of({0.5, 0.3, 0.4, 0.2}, 16), 0.4);
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of({0.5, 0.3}, 16), 0.5);
  // A reuse makes every loop call fast: set aside or not, the loop's time is the reused one.
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of(std::vector<double>(10, 0.1), 32), 0.1);
  // A loop slowed by load in most samples keeps its unloaded ones in the low ranks: a 4x reuse
  // (0.1 ms in the loop, 0.4 ms when computing) still shows against the 2.2x limit.
  std::vector<double> loaded(200, 0.35);
  for (int i = 0; i < 40; ++i) loaded[static_cast<std::size_t>(i) * 5] = 0.1;
  EXPECT_DOUBLE_EQ(loop_time_matching_fastest_of(loaded, 16), 0.1);
  EXPECT_EQ(loop_time_matching_fastest_of({}, 16), 0);
}

TEST(FreshValuesCheck, SetsASlowDrawAsideOnlyWhenAnEmptyRequestIsSlowToo) {
  EXPECT_FALSE(loaded_for_fresh_values(9.0, 8.0));   // idle: a slow draw counts
  EXPECT_FALSE(loaded_for_fresh_values(16.0, 8.0));  // at the factor, not over it
  EXPECT_TRUE(loaded_for_fresh_values(16.5, 8.0));
  EXPECT_FALSE(loaded_for_fresh_values(5.0, 0.0));  // no calibration: nothing is excused
}

TEST(FreshValuesCheck, AnHonestKernelOnALoadedMachineIsNeverTakenForAReuse) {
  // CI at d71c7eb (ctest -j2 on two cores): the honest softmax/waives_borrowed_gate (it wraps
  // at::softmax) was refused as a reuse, its repeated calls on fresh values 2.8-3.5 ms against
  // the loop's 0.2 ms in three draws of three. Four threads spinning here load the machine for
  // the whole benchmark: its time may stand or be refused for the load, never as a reuse.
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (int i = 0; i < 4; ++i) {
    spinners.emplace_back([&stop] {
      volatile std::uint64_t count = 0;
      while (!stop.load(std::memory_order_relaxed)) count = count + 1;
    });
  }
  const auto [status, output] = bench_adversary("softmax/waives_borrowed_gate", false);
  stop = true;
  for (std::thread& spinner : spinners) spinner.join();
  EXPECT_THAT(output, Not(HasSubstr("it reuses work done for values it has seen"))) << output;
  // Refused, it is for the load: the fresh values' draws, the loop's requests, or a calibration
  // the spinning threads kept the worker from being idle for (CI at 0c0da91).
  if (status != 0) {
    EXPECT_THAT(output,
                AnyOf(HasSubstr("machine's load"), HasSubstr("was not idle while the judge")))
        << output;
  }
}

TEST(FreshValuesCheck, RktBenchRefusesTimesOfKernelsThatReuseResults) {
  // `rkt bench` runs the benchmark's fresh-values check too (fresh_values_check.h): a kernel that
  // copies a saved result once it has seen its buffers 100 times has no time, isolated or not,
  // and the entry names why; a kernel that reuses only on values it has seen, whose outputs are
  // always right, is refused on the time of its first calls on new values; one that waits for
  // more calls on the same values than the check repeats, on the time of the repeated calls
  // against the loop's.
  // Each is refused whatever happens. On a loaded machine (CI's two cores under ctest -j2) the
  // judge's cross-check may refuse the loop's time first: the loop is then cut short before the
  // buffer cheat's 100th call, and the load blurs the value cheat's slow first calls. Such a
  // refusal is tried again, twice at most, and then accepted with a note.
  const auto refused_by_cross_check = [](const std::string& refusal) {
    return refusal.find("machine's load") != std::string::npos ||
           refusal.find("not what the judge's clock measured") != std::string::npos;
  };
  struct Expectation {
    std::string kernel;
    bool in_process;
    std::string caught_by;
    int samples_before_reusing;  // [samples] in the timed loop (4 input sets)
  };
  for (const Expectation& expected :
       {Expectation{"matmul/cheat_reuses_by_buffer", false,
                    "after new values were drawn into its buffers", 4 * 100},
        Expectation{"matmul/cheat_reuses_by_buffer", true,
                    "after new values were drawn into its buffers", 4 * 100},
        Expectation{"matmul/cheat_reuses_by_values", false,
                    "on values it had not seen the kernel was slower", 4},
        // Its loop's fastest call is a reuse's once any set has been called 21 times.
        Expectation{"matmul/cheat_reuses_after_many_calls", false,
                    "the kernel was slower than in the timed loop", 4 * 21}}) {
    std::string refusal;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto [status, output] = bench_adversary(expected.kernel, expected.in_process);
      // A loaded machine's budget can end the loop before the cheat reuses (the buffer cheat: any
      // of the 4 input sets' 100th call): it then computed its calls, and its time is its own.
      // Timed so, it may stand; a loop long enough to reuse in must not.
      const std::size_t samples_field = output.find("\"samples\": ");
      if (status == 0 && samples_field != std::string::npos &&
          std::stod(output.substr(samples_field + 11)) < expected.samples_before_reusing) {
        std::cout << "note: " << expected.kernel << "'s loop ended before it could reuse\n";
        refusal = "machine's load";
        continue;
      }
      // The time comparisons are blurred by a loaded machine (CI at 857d091: both value cheats
      // were timed under ctest -j2): a cheat timed is run again, twice at most; a third time
      // fails the test.
      if (status == 0 && attempt < 2) {
        std::cout << "note: " << expected.kernel << " was timed on this machine's load; "
                  << "running again\n";
        continue;
      }
      EXPECT_EQ(status, 1) << output;
      refusal = line_with(output, expected.kernel + ": timing refused");
      EXPECT_FALSE(refusal.empty()) << output;
      if (!refused_by_cross_check(refusal)) break;
      std::cout << "note: " << expected.kernel
                << "'s loop time was refused by the cross-check on this "
                << "machine's load\n";
    }
    if (!refused_by_cross_check(refusal)) {
      EXPECT_THAT(refusal, HasSubstr(expected.caught_by));
    }
  }
}

TEST(TimingCrossCheck, AWorkerBusyWhileTheJudgeCalibratesIsRefused) {
  // relu/hog_between_calls leaves a thread spinning in its worker: the judge's calibration (and
  // any re-measurement) would run on a loaded machine and allow more time than the kernel took.
  // One process: the hog, then an honest kernel, which must get a fresh calibration and a worker
  // without the hog's thread (the refusal drops both).
  const auto [status, output] = bench_adversary("relu/(hog_between_calls|honest_after_hog)", false);
  EXPECT_EQ(status, 1) << output;
  // Refused for its busy worker: during the calibration, or (on a loaded machine, where its
  // requests go unexplained) while the judge re-measures the load; either way, named.
  const std::string hog_refusal = line_with(output, "relu/hog_between_calls: timing refused");
  EXPECT_THAT(hog_refusal, HasSubstr("the worker was not idle while the judge ")) << output;
  EXPECT_THAT(output, HasSubstr("\"name\": \"relu/honest_after_hog/"));
  // The honest kernel inherits neither the hog's thread nor its calibration: it is never refused
  // for a busy worker (stop 33's CI saw it refused so, in the hog's worker, before a worker seen
  // busy while re-measuring was dropped too). On a machine loaded by other tests (CI's two cores
  // under ctest -j2) its requests can still be slower than any calibration explains, and that
  // refusal is the cross-check doing its job, not the hog's doing: accepted, and said.
  EXPECT_THAT(line_with(output, "relu/honest_after_hog: timing refused"), Not(HasSubstr("not idle")))
      << output;
  if (output.find("relu/honest_after_hog: timing refused") == std::string::npos) {
    EXPECT_THAT(output, HasSubstr("rkt bench: 1 entry failed (reasons above): relu/hog_between_calls"));
  } else {
    EXPECT_THAT(output,
                AnyOf(HasSubstr("relu/honest_after_hog: timing refused: the worker's times are not "
                                "what the judge's clock measured"),
                      HasSubstr("relu/honest_after_hog: timing refused: most requests were "
                                "explained only by the machine's load")));
    std::cout << "note: relu/honest_after_hog's timing was refused for this machine's load\n";
  }
}

TEST(TimingCrossCheck, LoadExcusesASlowRequestOnlyWhenTheWorkerWasIdle) {
  // A request of 10 calls claimed 0.8 ms and took 2222 ms; the calibrated empty request was
  // 613 ms (seen in CI with other tests flushing the same cache).
  ASSERT_THAT(check_request_times(2222, 0.8, 613, 10), HasSubstr("explain at most"));
  // Re-measured now, an empty request costs 2500 ms and the worker was idle: excused.
  EXPECT_EQ(excuse_by_load(2222, 0.8, 2500, 0, 2500, 10), "");
  // The same, but the worker used 800 ms of processor time meanwhile (it loaded the machine
  // itself to inflate the re-measurement): not excused.
  EXPECT_THAT(excuse_by_load(2222, 0.8, 2500, 800, 2500, 10), HasSubstr("the worker was not idle"));
  EXPECT_THAT(excuse_by_load(2222, 0.8, 2500, -1, 2500, 10), HasSubstr("unreadable"));
  // The worker idle, but the machine is not loaded enough to explain the request.
  EXPECT_THAT(excuse_by_load(2222, 0.8, 700, 0, 700, 10), HasSubstr("not explained by the machine's load"));
}

TEST(TimingCrossCheck, TimesMostlyExcusedByLoadAreRefusedForTheLoad) {
  // 7 requests: excusing a minority is the load check's purpose; a majority excused could hide a
  // clock that runs as much slower as the load made the empty request (CI saw one pass so).
  TimingCrossCheck check;
  check.requests = 7;
  check.excused_by_load = 3;
  EXPECT_FALSE(check.load_dominated());
  EXPECT_FALSE(check.forged());
  check.excused_by_load = 4;
  EXPECT_TRUE(check.load_dominated());
  EXPECT_FALSE(check.forged());
  check.excused_by_load = 2;
  check.violations = 2;  // unexplained either way: together the majority
  EXPECT_TRUE(check.load_dominated());
  check.violations = 4;  // forged outright: refused as forged, not for the load
  EXPECT_TRUE(check.forged());
  EXPECT_FALSE(check.load_dominated());
}

TEST(TimingCrossCheck, HonestTimesAreExplained) {
  // 10 calls of 1 ms each, a request with an empty kernel costs 2 ms.
  EXPECT_EQ(check_request_times(12.3, 10.0, 2.0, 10), "");
  EXPECT_EQ(check_request_times(10.05, 10.0, 0.04, 10), "");
}

TEST(TimingCrossCheck, ForgedShortTimesAreCaught) {
  // The worker claims 1 us per call; the judge saw 10 ms pass.
  EXPECT_THAT(check_request_times(12.0, 0.01, 2.0, 10), HasSubstr("explain at most"));
}

TEST(TimingCrossCheck, ClaimsLongerThanTheRequestAreCaught) {
  EXPECT_THAT(check_request_times(5.0, 50.0, 2.0, 10), HasSubstr("claims"));
}

}  // namespace
}  // namespace rkt

namespace rkt {
namespace {

TEST(TimingCrossCheck, OneUnexplainedRequestIsNotAVerdict) {
  TimingCrossCheck check;
  check.requests = 1;
  check.violations = 1;
  EXPECT_FALSE(check.forged()) << "a single request is retried, not judged";
  check.requests = 3;
  check.violations = 1;
  EXPECT_FALSE(check.forged());
  check.violations = 2;
  EXPECT_TRUE(check.forged());
}

}  // namespace
}  // namespace rkt
