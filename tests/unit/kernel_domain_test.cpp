// Kernel-declared domains (KernelSpec::supports): the restriction text, its travel over the wire,
// property draws inside it, registration errors, and the adversaries of domain_kernels.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "adversary_support.h"
#include "framework/cases/property_cases.h"
#include "framework/dims/edge_dims.h"
#include "framework/dims/kernel_domain.h"
#include "framework/isolation/kernel_library.h"
#include "framework/runtime/device_support.h"
#include "framework/wire/worker_protocol.h"
#include "rkt/defaults.h"
#include "rkt/kernel.h"
#include "rkt/task.h"

namespace rkt {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::expect_case_status;

void does_nothing(KernelCall&) {}

// A kernel spec that is not in the registry (so that its errors stay out of registry_errors()).
KernelSpec softmax_kernel(const std::vector<std::string>& restrictions) {
  KernelSpec kernel("softmax", "declares", {does_nothing, false}, Device::cpu, "here.cpp", 7);
  for (const std::string& text : restrictions) kernel.supports(text);
  return kernel;
}

TEST(DimRestriction, ReadsTheThreeFormsAndWritesThemBack) {
  for (const char* text : {"N % 4 == 0", "N >= 16", "N <= 8192"}) {
    EXPECT_EQ(parse_dim_restriction(text).describe(), text);
  }
  const DimRestriction compact = parse_dim_restriction("K%32==0");
  EXPECT_EQ(compact.dim, "K");
  EXPECT_EQ(compact.kind, DimRestriction::Kind::multiple_of);
  EXPECT_EQ(compact.value, 32);
  EXPECT_TRUE(compact.admits(64));
  EXPECT_FALSE(compact.admits(65));
  EXPECT_TRUE(parse_dim_restriction("N <= 10").admits(10));
  EXPECT_FALSE(parse_dim_restriction("N >= 10").admits(9));
}

TEST(DimRestriction, RejectsAnythingButTheThreeForms) {
  for (const char* text : {"N % 4 == 1", "N < 8", "N == 4", "4 <= N", "N <= 8 && N >= 2", "N <=",
                           "N <= -3", "system(\"rm\")"}) {
    EXPECT_THROW(parse_dim_restriction(text), std::invalid_argument) << text;
  }
  EXPECT_THAT(softmax_kernel({"N < 8"}).declaration_errors(),
              Contains(HasSubstr("cannot read the restriction \"N < 8\"")));
}

TEST(KernelDomain, TravelsOverTheWireAsData) {
  wire::DescribeReply reply;
  wire::KernelDescription kernel;
  kernel.task_id = "softmax";
  kernel.kernel_id = "k";
  kernel.supported_dims = {parse_dim_restriction("N % 4 == 0"), parse_dim_restriction("N <= 512")};
  kernel.declaration_errors = {"cannot read ..."};
  reply.kernels.push_back(kernel);
  const wire::DescribeReply decoded = wire::decode_describe_reply(wire::encode(reply, 9), 9);
  ASSERT_EQ(decoded.kernels.size(), 1u);
  EXPECT_EQ(decoded.kernels[0].supported_dims, kernel.supported_dims);
  EXPECT_EQ(decoded.kernels[0].declaration_errors, kernel.declaration_errors);
  // An unknown restriction kind is a protocol violation, not a restriction.
  wire::KernelDescription bad = kernel;
  bad.supported_dims = {{"N", static_cast<DimRestriction::Kind>(7), 4}};
  reply.kernels = {bad};
  EXPECT_THROW(wire::decode_describe_reply(wire::encode(reply, 9), 9), wire::WireError);
}

TEST(KernelDomain, NarrowsThePropertyRangeAndStepsInMultiples) {
  const TaskSpec& softmax = *find_task("softmax");
  const auto ranges = property_dim_ranges(
      softmax, Device::cpu, {parse_dim_restriction("N % 4 == 0"), parse_dim_restriction("N <= 510")});
  const DimRange n = ranges.at("N");
  EXPECT_EQ(n.step, 4);
  EXPECT_EQ(n.min, 4);
  EXPECT_EQ(n.max, 508);
  EXPECT_EQ(n.test_size, 300);
  EXPECT_EQ(ranges.at("B").step, 1);  // Undeclared dims keep the task's range.
  std::uint64_t state = 12345;
  const RandomBits next = [&state] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  std::map<std::int64_t, int> seen;
  for (int i = 0; i < 4000; ++i) {
    for (DimTier tier : {DimTier::edges, DimTier::full_size}) {
      const std::int64_t value = draw_dim(n, tier, next);
      ASSERT_EQ(value % 4, 0) << value;
      ASSERT_GE(value, 4);
      ASSERT_LE(value, 508);
      ++seen[value];
    }
  }
  // The edges, counted in steps: the smallest size, a granularity and one step either side.
  EXPECT_GT(seen[4], 0);
  EXPECT_GT(seen[8], 0);
  EXPECT_GT(seen[124], 0);
  EXPECT_GT(seen[132], 0);
  // Several "% k" restrictions on one dim: the least common multiple.
  EXPECT_EQ(restrict_range({1, 1000, 300, 1}, "N",
                           {parse_dim_restriction("N % 4 == 0"), parse_dim_restriction("N % 6 == 0")})
                .step,
            12);
}

TEST(KernelDomain, ShrinksToTheSmallestSupportedSizeAndFitsTheBudgetInSteps) {
  const DimRange range{8, 800, 304, 8};
  rc::Random random(7);
  const rc::Shrinkable<std::int64_t> drawn = dim_generator(range, DimTier::edges)(random, 0);
  EXPECT_EQ(drawn.value() % 8, 0);
  std::int64_t smallest = drawn.value();
  for (auto candidates = drawn.shrinks(); auto next = candidates.next();) {
    EXPECT_EQ(next->value() % 8, 0);
    smallest = std::min(smallest, next->value());
  }
  if (drawn.value() > 8) {
    EXPECT_EQ(smallest, 8);
  }
  // Halving to fit the input budget stays on multiples of the step.
  const TaskSpec& softmax = *find_task("softmax");
  const std::map<std::string, DimRange> ranges = {{"B", {1, 74, 37, 1}}, {"N", {4, 596, 300, 4}}};
  const Dims fitted = fit_to_input_budget(softmax, {{"B", 74}, {"N", 596}}, 4 * 1000, ranges);
  EXPECT_EQ(fitted.at("N") % 4, 0);
  EXPECT_LE(fitted.at("B") * fitted.at("N") * 4, 4 * 1000);
}

TEST(KernelDomain, TheTasksOwnSizesMustLieInsideTheDeclaration) {
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"N % 4 == 0", "N <= 512", "B >= 1"}),
                                    *find_task("softmax")),
              IsEmpty());
  // The CPU test size is 37 x 300: 300 % 7 != 0.
  const auto errors = supported_dims_errors(softmax_kernel({"N % 7 == 0"}), *find_task("softmax"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("kernel 'softmax/declares' (here.cpp:7) declares \"N % 7 == 0\""));
  EXPECT_THAT(errors[0], HasSubstr("B=37 N=300"));
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"N <= 100"}), *find_task("softmax")),
              Contains(HasSubstr("declares \"N <= 100\"")));
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"K % 4 == 0"}), *find_task("softmax")),
              Contains(HasSubstr("task 'softmax' has no dim 'K'")));
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"N % 0 == 0"}), *find_task("softmax")),
              Contains(HasSubstr("must be at least 1")));
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"N >= 400", "N <= 350"}), *find_task("softmax")),
              Contains(HasSubstr("leaves no size of N")));
  EXPECT_THAT(supported_dims_errors(softmax_kernel({"N <"}), *find_task("softmax")),
              Contains(HasSubstr("cannot read the restriction")));
  // A CUDA kernel is tested and benchmarked at the default size (4096 x 8192).
  KernelSpec cuda("softmax", "cuda_declares", {does_nothing, false}, Device::cuda, "here.cu", 3);
  cuda.supports_max("N", 4096);
  EXPECT_THAT(supported_dims_errors(cuda, *find_task("softmax")),
              Contains(HasSubstr("B=4096 N=8192")));
}

TEST(KernelDomain, DimsInsideTheDomainAreTheNearestAdmittedSizesKeptOffPowersOfTwo) {
  const TaskSpec& relu = *find_task("relu");  // small 37 x 300, domains [1, 16384]
  const auto inside = [&relu](const std::vector<std::string>& texts, const Dims& dims) {
    std::vector<DimRestriction> restrictions;
    for (const std::string& text : texts) restrictions.push_back(parse_dim_restriction(text));
    return dims_inside_domain(dims, relu, restrictions);
  };
  const Dims small = relu.small_dims();
  // Admitted dims are kept, undeclared dims are kept.
  EXPECT_EQ(inside({}, small), small);
  EXPECT_EQ(inside({"N % 4 == 0", "B >= 2"}, small), small);
  // The nearest multiple: 320, not 256 (nearer to nothing and a power of two).
  EXPECT_EQ(inside({"N % 64 == 0"}, small), (Dims{{"B", 37}, {"N", 320}}));
  // The nearest multiple is a power of two (512): the next one off it (768) is taken instead.
  EXPECT_EQ(inside({"N % 256 == 0"}, {{"B", 37}, {"N", 500}}).at("N"), 768);
  // Caps and floors: one off the power of two where the domain allows it.
  EXPECT_EQ(inside({"N <= 256"}, small).at("N"), 255);
  EXPECT_EQ(inside({"N >= 512"}, small).at("N"), 513);
  EXPECT_EQ(inside({"N >= 512", "N <= 512"}, small).at("N"), 512);  // nothing else is left
  // The 8192 x 8192-only kernel of issue 28: its one point, whatever the small size was.
  EXPECT_EQ(inside({"B >= 8192", "B <= 8192", "N >= 8192", "N <= 8192"}, small),
            (Dims{{"B", 8192}, {"N", 8192}}));
  // The task's own domain bounds the search: N <= 16384 on relu.
  EXPECT_EQ(inside({"N % 10000 == 0"}, small).at("N"), 10000);
  // Several steps on one dim: their least common multiple (12), 300 is one already.
  EXPECT_EQ(inside({"N % 4 == 0", "N % 6 == 0"}, small).at("N"), 300);
  EXPECT_EQ(inside({"N % 4 == 0", "N % 7 == 0"}, small).at("N"), 308);
  // No size left: an error naming the dim.
  try {
    inside({"N >= 400", "N <= 350"}, small);
    ADD_FAILURE() << "no error for an empty domain";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("no size of N in [400, 350]"));
  }
}

// On the CPU a kernel's test size must lie inside its declaration, so the CPU form of "declares
// N % 64 == 0 and handles nothing else" runs on sum_dim (24 x 512): every case, properties,
// relations and hidden inputs included, must stay inside and pass.
TEST(DomainAdversaries, AKernelThatHandlesOnlyItsDeclaredMultiplePassesEveryCase) {
  const auto cases = testing::run_adversary_cases("sum_dim/rows_of_64_declared.*", 300, "1");
  ASSERT_FALSE(cases.empty());
  for (const auto& [name, record] : cases) {
    EXPECT_THAT(record.status, ::testing::AnyOf("passed", "skipped")) << name << ": " << record.message;
    const auto n = record.details.dims.find("N");
    if (n != record.details.dims.end()) {
      EXPECT_EQ(n->second % 64, 0) << name;
    }
  }
  expect_case_status(cases, "sum_dim/rows_of_64_declared.property_shapes", "passed");
}

// On a GPU the value-family and sanitizer cases run at the small size (37 x 300 on relu), outside
// "N % 64 == 0": they must move inside it (B=37 N=320; the sanitizer's ragged dims keep N a multiple of 64), and the honest kernel must pass them.
TEST(DomainAdversaries, OnAGpuValueRelationAndSanitizerCasesStayInsideTheDeclaredDomain) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = testing::run_adversary_cases(
      "relu/cuda_rows_of_64_declared.values_*:relu/cuda_rows_of_64_declared.relation_*:"
      "relu/cuda_rows_of_64_declared.sanitizer_*:relu/cuda_rows_of_64_declared.correctness_*",
      600, "1");
  ASSERT_FALSE(cases.empty());
  for (const auto& [name, record] : cases) {
    EXPECT_THAT(record.status, ::testing::AnyOf("passed", "skipped")) << name << ": " << record.message;
    const auto n = record.details.dims.find("N");
    if (n != record.details.dims.end()) {
      EXPECT_EQ(n->second % 64, 0) << name;
    }
  }
  expect_case_status(cases, "relu/cuda_rows_of_64_declared.values_ties", "passed");
}

// The adversaries, run as `rkt test` runs them, in the default isolated mode and in-process.
class DomainAdversaries : public ::testing::TestWithParam<bool> {};

TEST_P(DomainAdversaries, AnUndeclaredRestrictionFailsADeclaredOnePassesAndBugsInsideStillFail) {
  if (GetParam()) ::setenv(kIsolationVariable, "in-process", 1);
  const auto cases = testing::run_adversary_cases(
      "softmax/float4_*:softmax/domain_too_wide.*:softmax/capped_declared.*", 300, "1");
  if (GetParam()) ::unsetenv(kIsolationVariable);
  expect_case_status(cases, "softmax/float4_no_tail_undeclared.correctness_x1", "passed");
  expect_case_status(cases, "softmax/float4_no_tail_undeclared.property_shapes", "failed");
  for (const std::string kernel : {"float4_no_tail_declared", "capped_declared"}) {
    for (const auto& [name, record] : cases) {
      if (name.rfind("softmax/" + kernel + ".", 0) != 0) continue;
      EXPECT_EQ(record.status, name.find("hidden") == std::string::npos ? "passed" : record.status)
          << name << ": " << record.message;
    }
    expect_case_status(cases, "softmax/" + kernel + ".property_shapes", "passed");
  }
  expect_case_status(cases, "softmax/float4_declared_wrong_inside.property_shapes", "failed");
  const CaseRecord& inside = cases.at("softmax/float4_declared_wrong_inside.property_shapes");
  EXPECT_EQ(inside.details.dims.at("N") % 4, 0) << inside.message;
  EXPECT_LT(inside.details.dims.at("N"), 256) << inside.message;
  expect_case_status(cases, "softmax/domain_too_wide.property_shapes", "failed");
  const CaseRecord& wide = cases.at("softmax/domain_too_wide.property_shapes");
  EXPECT_EQ(wide.details.dims.at("N") % 2, 0);
  EXPECT_NE(wide.details.dims.at("N") % 4, 0);
}

INSTANTIATE_TEST_SUITE_P(BothModes, DomainAdversaries, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "in_process" : "isolated"; });

TEST(DomainAdversaries, TheDeclaredKernelPassesEverySeedAndTheUndeclaredFailsThem) {
  for (const char* seed : {"2", "3", "4"}) {
    const auto cases = testing::run_adversary_cases("softmax/float4_no_tail_*.property_shapes", 120, seed);
    expect_case_status(cases, "softmax/float4_no_tail_declared.property_shapes", "passed");
    expect_case_status(cases, "softmax/float4_no_tail_undeclared.property_shapes", "failed");
  }
}

}  // namespace
}  // namespace rkt
