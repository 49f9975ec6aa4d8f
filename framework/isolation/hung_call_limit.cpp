#include "framework/isolation/hung_call_limit.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "framework/base/number_text.h"
#include "framework/isolation/worker_process.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

static_assert(defaults::kHungCallFloorSeconds >= 2 * defaults::kDeviceIdleAfterReturnSeconds,
              "a call the worker reports on after waiting for the device must not be cut");

struct ReturnedCall {
  double seconds = 0;
  double argument_bytes = 0;
};

struct KernelCalls {
  int worker = 0;                  ///< the worker whose first call of the kernel was seen last
  std::vector<ReturnedCall> kept;  ///< the calls after each worker's first
};

struct ReturnedCalls {
  std::mutex mutex;  // cases beside each other run on threads of their own
  std::map<std::string, KernelCalls> by_kernel;
};

ReturnedCalls& returned_calls() {
  static ReturnedCalls calls;
  return calls;
}

// Calls kept per kernel: the slowest for their bytes. A property case makes hundreds of calls;
// the limit needs the few that allow most.
constexpr std::size_t kCallsKept = 16;

double hung_call_factor() {
  const char* text = std::getenv(kHungCallFactorVariable);
  if (text == nullptr || *text == '\0') return defaults::kHungCallFactor;
  char* end = nullptr;
  const double factor = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(factor) || (factor != 0 && factor < 1)) {
    throw std::invalid_argument(std::string(kHungCallFactorVariable) + "='" + text +
                                "' is not 0 (no bound but the reply timeout) or a number of at "
                                "least 1 (times the kernel's earlier calls)");
  }
  return factor;
}

// What `call` allows a call with `argument_bytes`: factor x its time x the square of the growth in
// argument bytes. [s]
double allowance(const ReturnedCall& call, double argument_bytes, double factor) {
  const double growth =
      call.argument_bytes > 0 ? std::max(1.0, argument_bytes / call.argument_bytes) : 1.0;
  return factor * call.seconds * growth * growth;
}

std::string describe_bytes(double bytes) {
  std::ostringstream text;
  text.precision(3);
  if (bytes >= 1e6) {
    text << bytes / 1e6 << " MB";
  } else if (bytes >= 1e3) {
    text << bytes / 1e3 << " kB";
  } else {
    text << bytes << " bytes";
  }
  return text.str();
}

}  // namespace

void note_call_returned(const std::string& kernel_id, int worker, double seconds,
                        double argument_bytes) {
  ReturnedCalls& calls = returned_calls();
  const std::lock_guard<std::mutex> lock(calls.mutex);
  KernelCalls& kernel = calls.by_kernel[kernel_id];
  // A worker's first call of a kernel loads its code (CUDA loads a kernel function at its first
  // launch; run 44: 0.3 s for a relu whose later calls took 0.1 ms): no measure of the calls after.
  if (kernel.worker != worker) {
    kernel.worker = worker;
    return;
  }
  std::vector<ReturnedCall>& kept = kernel.kept;
  kept.push_back({seconds, argument_bytes});
  if (kept.size() <= kCallsKept) return;
  // Drop the call that allows least for a call of its own size (the fastest per squared byte).
  const auto least =
      std::min_element(kept.begin(), kept.end(), [](const ReturnedCall& a, const ReturnedCall& b) {
        const double a_rate =
            a.argument_bytes > 0 ? a.seconds / (a.argument_bytes * a.argument_bytes) : a.seconds;
        const double b_rate =
            b.argument_bytes > 0 ? b.seconds / (b.argument_bytes * b.argument_bytes) : b.seconds;
        return a_rate < b_rate;
      });
  kept.erase(least);
}

HungCallLimit hung_call_limit(const std::string& kernel_id, double argument_bytes) {
  const int reply_timeout = worker_reply_timeout_seconds();
  const double factor = hung_call_factor();
  if (factor == 0) return {reply_timeout, ""};
  ReturnedCall basis;
  double allowed = 0;
  {
    ReturnedCalls& calls = returned_calls();
    const std::lock_guard<std::mutex> lock(calls.mutex);
    const auto found = calls.by_kernel.find(kernel_id);
    if (found == calls.by_kernel.end() || found->second.kept.empty()) return {reply_timeout, ""};
    for (const ReturnedCall& call : found->second.kept) {
      const double allows = allowance(call, argument_bytes, factor);
      if (allows > allowed) {
        allowed = allows;
        basis = call;
      }
    }
  }
  // In double until it is known to be under the reply timeout: a trial's arguments may be 10^6
  // times a tiny one's, and the square of that overflows an int (run 44).
  const double limit = std::ceil(std::max<double>(allowed, defaults::kHungCallFloorSeconds));
  if (!(limit < reply_timeout)) return {reply_timeout, ""};
  const int seconds = static_cast<int>(limit);
  std::ostringstream text;
  text.precision(3);
  text << seconds << " s: " << fixed_digits(factor, factor == std::floor(factor) ? 0 : 2)
       << "x its earlier call of " << basis.seconds * 1e3 << " ms on "
       << describe_bytes(basis.argument_bytes) << " of arguments";
  if (argument_bytes > basis.argument_bytes && basis.argument_bytes > 0) {
    text << ", times the square of this call's " << argument_bytes / basis.argument_bytes
         << "x more bytes";
  }
  text << ", at least " << defaults::kHungCallFloorSeconds << " s (" << kHungCallFactorVariable
       << " sets the factor; 0 leaves only the reply timeout, " << reply_timeout << " s)";
  return {seconds, text.str()};
}

void forget_returned_calls() {
  ReturnedCalls& calls = returned_calls();
  const std::lock_guard<std::mutex> lock(calls.mutex);
  calls.by_kernel.clear();
}

}  // namespace rkt
