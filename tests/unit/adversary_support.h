// Running the adversarial kernels (tests/adversaries) under supervision, as `rkt test` does.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "framework/supervision/supervisor.h"

namespace rkt::testing {

/// Runs the cases matching `filter` in rkt_adversaries; returns them by "suite.case" name.
/// `seed`, when not empty, is the RKT_SEED the children run with.
inline std::map<std::string, CaseRecord> run_adversary_cases(
    const std::string& filter, int timeout_seconds = 120, const std::string& seed = "",
    const std::string& executable = RKT_ADVERSARIES_EXECUTABLE) {
  if (!seed.empty()) ::setenv("RKT_SEED", seed.c_str(), 1);
  SupervisionOptions options;
  options.executable = executable;
  options.gtest_filter = filter;
  options.echo_child_output = false;
  options.case_timeout_seconds = timeout_seconds;
  const SupervisedRun run = run_supervised(options);
  if (!seed.empty()) ::unsetenv("RKT_SEED");
  EXPECT_TRUE(run.problems.empty()) << ::testing::PrintToString(run.problems);
  std::map<std::string, CaseRecord> by_name;
  for (const CaseRecord& record : run.cases) by_name[record.name] = record;
  return by_name;
}

/// Expects case `name` to have run with `status`; prints its message otherwise.
inline void expect_case_status(const std::map<std::string, CaseRecord>& cases,
                               const std::string& name, const std::string& status) {
  const auto found = cases.find(name);
  ASSERT_NE(found, cases.end()) << name << " did not run";
  EXPECT_EQ(found->second.status, status) << name << ": " << found->second.message;
}

/// The message of case `name` ("" when it did not run).
inline std::string case_message(const std::map<std::string, CaseRecord>& cases,
                                const std::string& name) {
  const auto found = cases.find(name);
  return found == cases.end() ? "" : found->second.message;
}

}  // namespace rkt::testing
