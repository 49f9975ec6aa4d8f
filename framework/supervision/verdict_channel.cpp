#include "framework/supervision/verdict_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "framework/base/phase_times.h"
#include "framework/base/record_fields.h"
#include "framework/cases/case_announcement.h"
#include "framework/supervision/case_records_json.h"
#include "framework/timing/device_lease.h"

namespace rkt {
namespace {

int verdict_fd = -1;
std::string verdict_nonce;

void write_record(const std::string& body) {
  if (verdict_fd < 0) return;
  const std::string line = "RKT " + verdict_nonce + " " + body + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(verdict_fd, line.data() + written, line.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

std::string full_name(const ::testing::TestInfo& info) {
  return std::string(info.test_suite_name()) + "." + info.name();
}

class VerdictReporter : public ::testing::EmptyTestEventListener {
 public:
  VerdictReporter() {
    // "inputs NAME DETAILS": what the running case is about to call its kernel on, so that the
    // supervisor's record of a case killed as hung carries them (cases/case_announcement.h).
    set_case_inputs_listener([this](const CaseDetails& details) {
      if (running_.empty()) return;
      write_record("inputs " + running_ + " " + escape_record_field(with_case_details("", details, running_)));
    });
  }
  ~VerdictReporter() override { set_case_inputs_listener(nullptr); }

 private:
  void OnTestStart(const ::testing::TestInfo& info) override {
    running_ = full_name(info);
    phases_at_start_ = process_phase_times();
    write_record("start " + running_);
  }

  void OnTestPartResult(const ::testing::TestPartResult& part) override {
    if (part.failed() || part.skipped()) messages_ += part.message() + std::string("\n");
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    std::string milliseconds = std::to_string(result.elapsed_time());
    for (int i = 0; i < result.test_property_count(); ++i) {
      const ::testing::TestProperty& property = result.GetTestProperty(i);
      if (std::string(property.key()) == kCaseSummaryProperty) messages_ += property.value();
      if (std::string(property.key()) == kCaseRanBesideMillisecondsProperty) {
        milliseconds = property.value();
      }
    }
    const char* status = result.Failed() ? "failed" : result.Skipped() ? "skipped" : "passed";
    // "phases NAME drawing=MS ...": where the case's time went (base/phase_times.h), before its end.
    write_record("phases " + full_name(info) + " " +
                 format_phase_times(process_phase_times() - phases_at_start_));
    write_record("end " + full_name(info) + " " + status + " " + milliseconds + " " +
                 escape_record_field(messages_));
    messages_.clear();
    running_.clear();
  }

  std::string messages_;
  std::string running_;  ///< The case between its start and end records.
  PhaseTimes phases_at_start_;
};

}  // namespace

bool install_verdict_reporter() {
  const char* fd_text = std::getenv(kVerdictFdVariable);
  const char* nonce = std::getenv(kVerdictNonceVariable);
  if (fd_text == nullptr || nonce == nullptr) return false;
  verdict_fd = std::atoi(fd_text);
  verdict_nonce = nonce;
  ::unsetenv(kVerdictFdVariable);
  ::unsetenv(kVerdictNonceVariable);
  ::testing::UnitTest::GetInstance()->listeners().Append(new VerdictReporter);
  // "waiting WHY" / "resumed": the running case waits for its GPU, which another judge is timing
  // on; the supervisor's clock for it stops meanwhile (framework/timing/device_lease.h).
  set_device_lease_wait_listener([](bool waiting, const std::string& why) {
    write_record(waiting ? "waiting " + escape_record_field(why) : "resumed");
  });
  return true;
}

void report_run_complete() {
  write_record("complete");
  if (verdict_fd >= 0) ::close(verdict_fd);
  verdict_fd = -1;
}

}  // namespace rkt
