#include "framework/supervision/cases_beside.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "framework/runtime/kernel_execution.h"

namespace rkt {
namespace {

struct OfferedCase {
  enum class State { offered, queued, running, done };
  std::function<CaseOutcome()> run;
  State state = State::offered;
  CaseRunBeside ran;
};

// Runs a case beside the others, timed.
CaseRunBeside run_guarded(const std::function<CaseOutcome()>& run) {
  const auto began = std::chrono::steady_clock::now();
  CaseRunBeside ran;
  try {
    ran.outcome = run();
  } catch (const std::exception& error) {
    ran.outcome = {CaseStatus::failed, "the case threw: " + describe_exception(error)};
  }
  ran.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  return ran;
}

class CasesBeside {
 public:
  void offer(const std::string& name, std::function<CaseOutcome()> run) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto offered = std::make_shared<OfferedCase>();
    offered->run = std::move(run);
    cases_[name] = offered;
    order_.push_back(name);
  }

  void start(const std::vector<std::string>& selected) {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
    for (const std::string& name : selected) {
      auto found = cases_.find(name);
      if (found != cases_.end() && found->second->state == OfferedCase::State::offered) {
        found->second->state = OfferedCase::State::queued;
      }
    }
    for (const std::string& name : order_) {
      if (cases_[name]->state == OfferedCase::State::queued) queue_.push_back(cases_[name]);
    }
    if (queue_.empty()) return;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    const int helpers = std::max(1, std::min<int>({kCasesBesideAtOnce, cores - 1,
                                                   static_cast<int>(queue_.size())}));
    for (int i = 0; i < helpers; ++i) helpers_.emplace_back([this] { help(); });
  }

  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      for (const auto& dropped : queue_) dropped->state = OfferedCase::State::offered;
      queue_.clear();
    }
    changed_.notify_all();
    for (std::thread& helper : helpers_) helper.join();
    helpers_.clear();
  }

  CaseRunBeside outcome(const std::string& name) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto found = cases_.find(name);
    if (found == cases_.end()) {
      return {
          {CaseStatus::failed, "internal error: no case '" + name + "' was offered to run beside"},
          0};
    }
    std::shared_ptr<OfferedCase> offered = found->second;
    if (offered->state == OfferedCase::State::offered || offered->state == OfferedCase::State::queued) {
      queue_.erase(std::remove(queue_.begin(), queue_.end(), offered), queue_.end());
      offered->state = OfferedCase::State::running;
      lock.unlock();
      CaseRunBeside ran = run_guarded(offered->run);
      lock.lock();
      offered->state = OfferedCase::State::done;
      offered->ran = ran;
      changed_.notify_all();
      return ran;
    }
    changed_.wait(lock, [&] { return offered->state == OfferedCase::State::done; });
    return offered->ran;
  }

 private:
  void help() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      std::shared_ptr<OfferedCase> offered = queue_.front();
      queue_.pop_front();
      offered->state = OfferedCase::State::running;
      lock.unlock();
      CaseRunBeside ran = run_guarded(offered->run);
      lock.lock();
      offered->ran = std::move(ran);
      offered->state = OfferedCase::State::done;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<OfferedCase>> cases_;
  std::vector<std::string> order_;
  std::deque<std::shared_ptr<OfferedCase>> queue_;
  std::vector<std::thread> helpers_;
  bool stopping_ = false;
};

CasesBeside& cases_beside() {
  static CasesBeside* cases = new CasesBeside;  // never destroyed: helpers may outlive statics
  return *cases;
}

// The full names of the cases gtest will run (its filter has been applied when the program
// starts).
std::vector<std::string> selected_case_names(const ::testing::UnitTest& unit) {
  std::vector<std::string> names;
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(j);
      if (info.should_run()) names.push_back(std::string(info.test_suite_name()) + "." + info.name());
    }
  }
  return names;
}

class CasesBesideListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest& unit) override {
    start_cases_beside(selected_case_names(unit));
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override { finish_cases_beside(); }
};

}  // namespace

void offer_case_beside(const std::string& full_name, std::function<CaseOutcome()> run) {
  cases_beside().offer(full_name, std::move(run));
}

void start_cases_beside(const std::vector<std::string>& selected) { cases_beside().start(selected); }

void finish_cases_beside() { cases_beside().finish(); }

void install_cases_beside() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new CasesBesideListener);
}

CaseRunBeside outcome_of_case_beside(const std::string& full_name) {
  return cases_beside().outcome(full_name);
}

}  // namespace rkt
