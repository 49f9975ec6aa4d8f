// Per-case JUnit XML (`rkt test --junit FILE`, `--gtest_output=xml:FILE`), written by the
// supervisor from its case records.
//
// Why the parent writes it and not gtest in the child: a child that crashes or hangs never writes
// its XML, and a kernel running in the child could write a forged one. The parent's records hold
// every case, crashed ones included, so CI sees one testcase per case, with the message and the
// command that replays it, whatever became of the processes.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/supervision/supervisor.h"

namespace rkt {

/// The file `--gtest_output=xml` names when it gives no path, as in GoogleTest.
inline constexpr const char* kDefaultJunitFile = "test_detail.xml";

/// The report: <testsuites> with one <testsuite name="task/kernel"> per kernel (cases in the
/// order they ran), each case a <testcase name="case" classname="task/kernel" time="seconds">;
/// a failed or crashed case carries <failure message="first line" type="failed|crashed"> with
/// the whole message and the replay command, a skipped one <skipped message="...">. Problems of
/// the run itself (a process that died between cases, no case at all) are failed testcases of a
/// suite named "rkt", so that a report is never green when the run was not. A suite named in
/// `suite_properties` ("task/kernel" -> the declarations in force, declaration_policy.h) opens
/// with <properties><property name="..." value="..."/></properties>, one per declaration.
using SuiteProperties = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
std::string junit_report_xml(const SupervisedRun& run, const SuiteProperties& suite_properties = {});

/// Where `--gtest_output=VALUE` writes, as GoogleTest reads it: "xml" is kDefaultJunitFile,
/// "xml:FILE" is FILE, "xml:DIR/" is DIR/<program>.xml. Another format (json:...) or a malformed
/// value leaves `error` saying so and returns "".
std::string junit_path_from_gtest_output(const std::string& value, const std::string& program,
                                         std::string& error);

/// Creates the folders above `path` and checks that the file can be written there, before any
/// case runs; "" when it can, else why not.
std::string junit_path_problem(const std::string& path);

/// Writes junit_report_xml(run, suite_properties) to `path`; throws std::runtime_error when it cannot.
void write_junit_report(const std::string& path, const SupervisedRun& run,
                        const SuiteProperties& suite_properties = {});

}  // namespace rkt
