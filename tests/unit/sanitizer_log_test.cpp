// Reading compute-sanitizer logs (framework/cases/sanitizer_cases.h): the error count and the first
// finding on one line. The logs are in the tool's format; the GPU run checks real ones
// (tools/gpu/run.sh, docs/gpu_runs.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "framework/cases/failed_cases.h"
#include "framework/cases/sanitizer_cases.h"
#include "framework/cases/sanitizer_tool_check.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

TEST(SanitizerLog, TheFirstMemcheckFindingIsOneLineWithWhatWhereAndWhichAddress) {
  const SanitizerLog log = read_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at relu_reads_past_end(const float *, float *, long long)+0x1d0 in /src/bounds_cheats.cu:27\n"
      "=========     by thread (27,0,0) in block (43,0,0)\n"
      "=========     Address 0x7f3e2c00ad70 is out of bounds\n"
      "=========     and is 1 bytes after the nearest allocation at 0x7f3e2c000000 of size 44400 bytes\n"
      "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
      "=========         Host Frame: [0x2dfbef] in libcuda.so.1\n"
      "=========\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at somewhere_else()+0x10\n"
      "=========\n"
      "========= ERROR SUMMARY: 2 errors\n");
  EXPECT_TRUE(log.summarised);
  EXPECT_EQ(log.errors, 2);
  EXPECT_EQ(log.first_finding,
            "Invalid __global__ read of size 4 bytes; at relu_reads_past_end(const float *, float *, long "
            "long)+0x1d0 in /src/bounds_cheats.cu:27; by thread (27,0,0) in block (43,0,0); Address "
            "0x7f3e2c00ad70 is out of bounds; and is 1 bytes after the nearest allocation at "
            "0x7f3e2c000000 of size 44400 bytes");
}

TEST(SanitizerLog, RacecheckCountsErrorsFromItsOwnSummary) {
  const SanitizerLog log = read_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at relu_shared_race(const float *, float *, long long)+0x100 in /x.cu:61\n"
      "=========     and Read access at relu_shared_race(const float *, float *, long long)+0x120 in /x.cu:62 [248 hazards]\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  EXPECT_TRUE(log.summarised);
  EXPECT_EQ(log.errors, 1);
  EXPECT_THAT(log.first_finding, HasSubstr("Race reported between Write access"));
  EXPECT_THAT(log.first_finding, HasSubstr("; and Read access at relu_shared_race"));
}

TEST(SanitizerLog, AnErrorCountedWithoutAFindingLineIsNeverAnEmptyMessage) {
  // The tool counts an API error of the program as an error; before, its message read
  // "found 1 error ...; the first: " (run 22).
  const SanitizerLog api = read_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
      "call to cudaStreamSynchronize.\n"
      "=========     Saved host backtrace up to driver entry point at error\n"
      "=========\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_EQ(api.errors, 1);
  EXPECT_THAT(api.first_finding, HasSubstr("Program hit cudaErrorLaunchFailure (error 719)"));
  // A finding in a form the reader does not know: the tool's last lines stand for it.
  const SanitizerLog unknown = read_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "=========     Something new the tool says\n"
      "=========     at kernel()+0x10\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_EQ(unknown.errors, 1);
  EXPECT_THAT(unknown.first_finding, HasSubstr("no finding in a form this reader knows"));
  EXPECT_THAT(unknown.first_finding, HasSubstr("Something new the tool says"));
  // A program's own "Program hit" line beside a real finding does not displace it.
  const SanitizerLog both = read_sanitizer_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit cudaErrorLaunchFailure (error 719) on CUDA API call to cudaStreamSynchronize.\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at reads_past_end()+0x1d0 in /src/x.cu:27\n"
      "=========\n"
      "========= ERROR SUMMARY: 2 errors\n");
  EXPECT_THAT(both.first_finding, HasSubstr("Invalid __global__ read of size 4 bytes; at reads_past_end"));
}

TEST(SanitizerLog, ACleanRunHasNoFindingAndAnUnfinishedOneNoSummary) {
  const SanitizerLog clean = read_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.summarised);
  EXPECT_EQ(clean.errors, 0);
  EXPECT_EQ(clean.first_finding, "");
  const SanitizerLog cut = read_sanitizer_log("========= COMPUTE-SANITIZER\n");
  EXPECT_FALSE(cut.summarised);
  EXPECT_EQ(read_sanitizer_log("").errors, 0);
}

TEST(SanitizerCases, EveryCudaKernelHasOneCasePerToolLabelledSanitizer) {
  EXPECT_EQ(all_sanitizer_tools().size(), 4u);
  EXPECT_STREQ(to_string(SanitizerTool::synccheck), "synccheck");
}

TEST(SanitizerCases, InitcheckIsOffWithItsReasonUnlessAskedFor) {
  ::unsetenv("RKT_SANITIZER_INITCHECK");
  for (SanitizerTool tool : {SanitizerTool::memcheck, SanitizerTool::racecheck, SanitizerTool::synccheck}) {
    EXPECT_EQ(sanitizer_tool_disabled_reason(tool), "") << to_string(tool);
  }
  const std::string why = sanitizer_tool_disabled_reason(SanitizerTool::initcheck);
  EXPECT_NE(why.find("RKT_SANITIZER_INITCHECK=1"), std::string::npos) << why;
  EXPECT_NE(why.find("never answered"), std::string::npos) << why;
  ::setenv("RKT_SANITIZER_INITCHECK", "1", 1);
  EXPECT_EQ(sanitizer_tool_disabled_reason(SanitizerTool::initcheck), "");
  ::unsetenv("RKT_SANITIZER_INITCHECK");
}

TEST(SanitizerCases, AFailedKernelsSilentSanitizedCallIsEndedAfterItsGrace) {
  // A kernel that has failed none of its cases keeps its call to the case's limit: an honest
  // kernel's sanitizer case is never cut short.
  const std::string kernel = "relu/cut_short_probe";
  EXPECT_EQ(sanitizer_call_cut_short_reason(kernel, SanitizerTool::memcheck, 59.0), "");
  note_failed_case(kernel, "relu/cut_short_probe.correctness_x1");
  note_failed_case(kernel, "relu/cut_short_probe.correctness_x3");  // the first is kept
  EXPECT_EQ(first_failed_case(kernel), "relu/cut_short_probe.correctness_x1");
  // Failed: its call still gets the grace for a finding, then is ended, naming the failure.
  const double grace = defaults::kSanitizerSecondsAfterKernelFailed;
  EXPECT_EQ(sanitizer_call_cut_short_reason(kernel, SanitizerTool::memcheck, grace - 0.5), "");
  const std::string reason =
      sanitizer_call_cut_short_reason(kernel, SanitizerTool::memcheck, grace + 0.5);
  EXPECT_THAT(reason,
              HasSubstr("not finished: the kernel had failed relu/cut_short_probe.correctness_x1"));
  EXPECT_THAT(reason, HasSubstr("compute-sanitizer memcheck was still running with no finding"));
  // Another kernel's failure ends nothing of this one's.
  EXPECT_EQ(first_failed_case("relu/cut_short_other"), "");
  EXPECT_EQ(sanitizer_call_cut_short_reason("relu/cut_short_other", SanitizerTool::racecheck, 59.0),
            "");
}

}  // namespace
}  // namespace rkt

namespace rkt {
namespace {

// The check of a tool against its planted error (framework/cases/sanitizer_tool_check.h): a
// finding makes the tool's silence count; 0 errors, no summary or a timeout does not, and says
// which. The GPU run (tools/gpu/run.sh) asks real tools.
TEST(SanitizerToolCheck, AToolThatReportsItsPlantedErrorIsTrustedAndSaysWhatItFound) {
  const SanitizerToolCheck check =
      judge_sanitizer_probe(SanitizerTool::memcheck,
                            "========= COMPUTE-SANITIZER\n"
                            "========= Invalid __global__ read of size 4 bytes\n"
                            "=========     at read_one_past_end(const float *, float *, int)+0x70\n"
                            "=========     by thread (0,0,0) in block (0,0,0)\n"
                            "=========     Address 0x7f3e2c400000 is out of bounds\n"
                            "=========\n"
                            "========= ERROR SUMMARY: 1 error\n",
                            "exit 0", false);
  EXPECT_TRUE(check.reports_planted_error);
  EXPECT_THAT(check.evidence, HasSubstr("memcheck reported a read one past the end"));
  EXPECT_THAT(check.evidence, HasSubstr("Invalid __global__ read of size 4 bytes"));
}

TEST(SanitizerToolCheck, AToolSilentOnItsPlantedErrorIsNotTrustedAndTheEvidenceSaysHow) {
  // What memcheck wrote on the H100 of run 45 for a plain program reading past its own buffer.
  const SanitizerToolCheck silent = judge_sanitizer_probe(
      SanitizerTool::memcheck, "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n",
      "exit 0", false);
  EXPECT_FALSE(silent.reports_planted_error);
  EXPECT_THAT(silent.evidence, HasSubstr("memcheck reported 0 errors for a read one past the end"));

  const SanitizerToolCheck hung = judge_sanitizer_probe(
      SanitizerTool::racecheck, "========= COMPUTE-SANITIZER\n", "killed after 60 s", true);
  EXPECT_FALSE(hung.reports_planted_error);
  EXPECT_THAT(hung.evidence, HasSubstr("racecheck reported nothing for a shared-memory slot"));
  EXPECT_THAT(hung.evidence, HasSubstr("killed after 60 s"));

  const SanitizerToolCheck cut =
      judge_sanitizer_probe(SanitizerTool::synccheck, "", "signal 9 (Killed)", false);
  EXPECT_FALSE(cut.reports_planted_error);
  EXPECT_THAT(cut.evidence, HasSubstr("synccheck wrote no summary for a __syncwarp"));
}

}  // namespace
}  // namespace rkt

namespace rkt {
namespace {

// The whole check on the CPU, with a stand-in for compute-sanitizer: a script that writes the
// log a tool would (its 6th argument is --log-file's path) and counts its runs. The answer is
// asked once per process and kept in RKT_SANITIZER_CHECK_DIR, keyed by the tool's path.
TEST(SanitizerToolCheck, AsksAStandInToolOnceAndKeepsItsAnswer) {
  const std::string folder = ::testing::TempDir() + "rkt_tool_check_" + std::to_string(::getpid());
  std::system(("rm -rf " + folder + " && mkdir -p " + folder).c_str());
  ::setenv(kSanitizerCheckFolderVariable, (folder + "/kept").c_str(), 1);
  const auto stand_in = [&](const std::string& name, const std::string& log) {
    const std::string path = folder + "/" + name;
    std::ofstream(path) << "#!/bin/sh\necho run >> " << folder << "/" << name << ".calls\n"
                        << "echo 'probe: synchronised: no error'\nprintf '" << log
                        << "' > \"$6\"\n";
    ::chmod(path.c_str(), 0755);
    return path;
  };
  const std::string reporting =
      stand_in("reporting",
               "========= COMPUTE-SANITIZER\\n========= Invalid __global__ read of size 4 bytes\\n"
               "=========     at probe()+0x10\\n=========\\n========= ERROR SUMMARY: 1 error\\n");
  const std::string silent =
      stand_in("silent", "========= COMPUTE-SANITIZER\\n========= ERROR SUMMARY: 0 errors\\n");
  const auto calls = [&](const std::string& name) {
    std::ifstream counted(folder + "/" + name + ".calls");
    return static_cast<int>(std::count(std::istreambuf_iterator<char>(counted),
                                       std::istreambuf_iterator<char>(), '\n'));
  };

  const SanitizerToolCheck trusted =
      check_sanitizer_tool(SanitizerTool::memcheck, reporting, "/bin/true");
  EXPECT_TRUE(trusted.reports_planted_error) << trusted.evidence;
  EXPECT_THAT(trusted.evidence, HasSubstr("Invalid __global__ read of size 4 bytes"));
  EXPECT_TRUE(
      check_sanitizer_tool(SanitizerTool::memcheck, reporting, "/bin/true").reports_planted_error);
  EXPECT_EQ(calls("reporting"), 1) << "asked once per process";

  const SanitizerToolCheck untrusted =
      check_sanitizer_tool(SanitizerTool::racecheck, silent, "/bin/true");
  EXPECT_FALSE(untrusted.reports_planted_error);
  EXPECT_THAT(untrusted.evidence,
              HasSubstr("racecheck reported 0 errors for a shared-memory slot"));
  EXPECT_THAT(untrusted.evidence, HasSubstr("(exit 0); it printed: probe: synchronised: no error"));

  // Kept for the next judge: the key names the tool's path, then the answer and its evidence.
  std::ifstream kept(folder + "/kept/memcheck-.txt");
  std::string key, answer;
  std::getline(kept, key);
  std::getline(kept, answer);
  EXPECT_THAT(key, HasSubstr(reporting));
  EXPECT_EQ(answer, "1");
  ::unsetenv(kSanitizerCheckFolderVariable);
}

}  // namespace
}  // namespace rkt
