// Kernels that reuse results inside the benchmark's timed loop, where the same few buffers come
// back call after call with values that never change (known cheat 11). Each computes honestly
// until it believes it is in the loop, and then copies a result it saved, taking a
// quarter of the time its honest calls took (slow enough to stay clear of the physical floor's
// "impossible"). Every case passes, and so do the spot checks of the loop's last outputs; the
// benchmark's fresh-values check (framework/benchmarks/fresh_values_check.h) must fail them:
// cheat_reuses_by_buffer on its outputs, cheat_reuses_by_values (which notices new values, so
// its outputs are always right) on the time of its first calls on them,
// cheat_reuses_after_many_calls (which waits for more calls on the same values than the check
// repeats) on the time of the check's repeated calls against the loop's.
// matmul/plan_cache_by_buffer keeps per-buffer state too, but computes on every call: it must pass.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "rkt/registration.h"

namespace {

using rkt::KernelCall;
using rkt::TensorView;
using Clock = std::chrono::steady_clock;

// More calls on the same buffers than the cases make (integrity_replay: 5 calls; property_scale:
// 40 trials of one size, whose buffers the judge's pool hands back; 30 was not enough).
constexpr int kPatience = 100;
// [x] A reused call takes this share of the time computing took on the same buffers.
constexpr double kReusedTimeShare = 0.25;

void matmul_into(const TensorView& a, const TensorView& b, const TensorView& c) {
  const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  if (b.size(0) != k || c.size(0) != m || c.size(1) != n)
    throw std::invalid_argument("matmul shapes");
  const float* pa = a.data_as<const float>();
  const float* pb = b.data_as<const float>();
  float* pc = c.data_as<float>();
  std::vector<double> row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = pa[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) row[static_cast<std::size_t>(j)] += aip * pb[p * n + j];
    }
    for (std::int64_t j = 0; j < n; ++j)
      pc[i * n + j] = static_cast<float>(row[static_cast<std::size_t>(j)]);
  }
}

// How long computing took on given buffers, and a wait that makes a reused call on them look
// like real work.
struct HonestPace {
  double seconds = -1;  // -1: never computed
  void timed_matmul(const TensorView& a, const TensorView& b, const TensorView& c) {
    const auto start = Clock::now();
    matmul_into(a, b, c);
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  void pretend() const {
    const auto until = Clock::now() + std::chrono::duration<double>(kReusedTimeShare * seconds);
    while (Clock::now() < until) {
    }
  }
};

// The buffers of one call: a reuse is keyed on them.
using BufferKey = std::array<const void*, 3>;
BufferKey buffers_of(const KernelCall& call) {
  return {call.input(0).data, call.input(1).data, call.output(0).data};
}

// A result kept aside, and handed back without computing.
struct SavedResult {
  std::vector<float> output;
  void save(const TensorView& c) {
    output.assign(c.data_as<const float>(), c.data_as<const float>() + c.numel());
  }
  void restore(const TensorView& c) const {
    std::memcpy(c.data, output.data(), output.size() * sizeof(float));
  }
};

// Keyed on the buffers: after kPatience calls on the same three, it copies its saved result.
// (Case buffers come back from the judge's pool with new values now and then; the benchmark's
// come back hundreds of times with the same ones.)
void matmul_reuses_by_buffer(KernelCall& call) {
  struct Seen {
    int sightings = 0;
    HonestPace pace;
    SavedResult result;
  };
  static std::map<BufferKey, Seen> seen;
  Seen& entry = seen[buffers_of(call)];
  HonestPace& pace = entry.pace;
  SavedResult& saved = entry.result;
  if (++entry.sightings <= kPatience || pace.seconds < 0) {
    pace.timed_matmul(call.input(0), call.input(1), call.output(0));
    saved.save(call.output(0));
  } else {
    saved.restore(call.output(0));
    pace.pretend();
  }
}

// Keyed on the buffers and their whole values: reuses only when A and B hold exactly what they
// held at its last call on the same buffers, and have for more than `patience` calls in a row
// (comparing them costs far less than the product), so its every output is right, whatever the
// judge changed.
void matmul_reuses_by_values_after(KernelCall& call, int patience) {
  struct Seen {
    std::vector<float> a, b;
    int calls_on_these_values = 0;
    HonestPace pace;
    SavedResult result;
  };
  static std::map<std::pair<BufferKey, int>, Seen> seen;
  const TensorView& a = call.input(0);
  const TensorView& b = call.input(1);
  const auto same = [](const std::vector<float>& kept, const TensorView& now) {
    // std::equal, not memcmp: harness_attacks.cpp, in the same library, defines a memcmp that
    // always says equal.
    return kept.size() == static_cast<std::size_t>(now.numel()) &&
           std::equal(kept.begin(), kept.end(), now.data_as<const float>());
  };
  Seen& entry = seen[{buffers_of(call), patience}];
  if (!same(entry.a, a) || !same(entry.b, b)) entry.calls_on_these_values = 0;
  if (++entry.calls_on_these_values <= patience + 1 || entry.pace.seconds < 0) {
    entry.pace.timed_matmul(a, b, call.output(0));
    entry.a.assign(a.data_as<const float>(), a.data_as<const float>() + a.numel());
    entry.b.assign(b.data_as<const float>(), b.data_as<const float>() + b.numel());
    entry.result.save(call.output(0));
  } else {
    entry.result.restore(call.output(0));
    entry.pace.pretend();
  }
}

// Reuses from the second call on the same values.
void matmul_reuses_by_values(KernelCall& call) { matmul_reuses_by_values_after(call, 0); }

// More calls on the same values before a reuse than the fresh-values check makes on each set
// (kFreshValuesRepeats, 8, after the first): every call of that check computes; the timed loop's
// calls, on values that never change, mostly do not.
constexpr int kPatienceBeyondTheRepeats = 20;
void matmul_reuses_after_many_calls(KernelCall& call) {
  matmul_reuses_by_values_after(call, kPatienceBeyondTheRepeats);
}

// Honest: keeps a workspace per output buffer (as a plan cache would), computes every call.
void matmul_plan_cache_by_buffer(KernelCall& call) {
  static std::map<const void*, std::vector<double>> workspaces;
  std::vector<double>& workspace = workspaces[call.output(0).data];
  workspace.resize(static_cast<std::size_t>(call.output(0).size(1)));
  matmul_into(call.input(0), call.input(1), call.output(0));
}

}  // namespace

ROBUST_KERNEL_TEST(matmul, cheat_reuses_by_buffer, matmul_reuses_by_buffer)
    .describe("copies its saved result once it has been called 100 times on the same buffers");
ROBUST_KERNEL_TEST(matmul, cheat_reuses_by_values, matmul_reuses_by_values)
    .describe("copies its saved result while A and B hold the values of its last call on them");
ROBUST_KERNEL_TEST(matmul, cheat_reuses_after_many_calls, matmul_reuses_after_many_calls)
    .describe("copies its saved result once A and B have held the same values for 21 calls");
ROBUST_KERNEL_TEST(matmul, plan_cache_by_buffer, matmul_plan_cache_by_buffer)
    .describe("honest: a workspace per output buffer, computed every call");
