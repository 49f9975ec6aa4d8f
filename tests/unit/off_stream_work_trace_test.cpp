// The escaped-work gate's reading of CUPTI activity records
// (framework/runtime/off_stream_work_trace.h) and the worker protocol's fields for it. The records
// here are written by hand, as CUPTI would return them; the traced gate against real kernels runs
// on the GPU (integrity_test.cpp, EscapedWorkGate.*).
#include "framework/runtime/off_stream_work_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/runtime/device_support.h"
#include "framework/wire/worker_protocol.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

constexpr std::uint32_t kCallStream = 7;
constexpr std::uint32_t kSideStream = 13;

DeviceActivity kernel_on(std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                         const std::string& name = "work") {
  return {stream, start, end, false, "kernel " + name};
}

DeviceActivity marker_at(std::uint64_t start) {
  return {kCallStream, start, start + 1'000, true, "set"};
}

TEST(OffStreamOverrun, WorkForkedAndJoinedBeforeTheMarkerDidNotEscape) {
  // The side stream's kernel ends as the join lets the call's stream go on to the marker.
  const auto overrun = off_stream_overrun(
      {kernel_on(kCallStream, 0, 40'000), kernel_on(kSideStream, 1'000, 90'000, "side"),
       kernel_on(kCallStream, 90'500, 120'000), marker_at(121'000)},
      kCallStream);
  ASSERT_TRUE(overrun.has_value());
  EXPECT_EQ(overrun->milliseconds, 0);
  EXPECT_EQ(overrun->latest, "");
}

TEST(OffStreamOverrun, WorkEndingAfterTheMarkerBeganEscapedByItsOverrun) {
  const auto overrun = off_stream_overrun(
      {kernel_on(kCallStream, 0, 100'000), marker_at(101'000),
       kernel_on(kSideStream, 2'000, 351'000, "spin"), kernel_on(kSideStream, 5'000, 150'000, "b")},
      kCallStream);
  ASSERT_TRUE(overrun.has_value());
  EXPECT_DOUBLE_EQ(overrun->milliseconds, 0.25);  // 351 us - 101 us
  EXPECT_EQ(overrun->latest, "kernel spin");
}

TEST(OffStreamOverrun, TheFrameworksOwnWorkBehindTheMarkerOnTheCallsStreamIsNotCounted) {
  // The outputs' hashes follow the marker on the call's stream.
  const auto overrun = off_stream_overrun({kernel_on(kCallStream, 0, 100'000), marker_at(101'000),
                                           kernel_on(kCallStream, 103'000, 900'000, "fingerprint")},
                                          kCallStream);
  ASSERT_TRUE(overrun.has_value());
  EXPECT_EQ(overrun->milliseconds, 0);
}

TEST(OffStreamOverrun, TheLastMarkerOnTheCallsStreamCountsAndOnlyThere) {
  // A memset that looks like the marker on another stream is not the call's end; of two on the
  // call's stream the later is (a kernel's own memset of the same length comes before it).
  DeviceActivity elsewhere = marker_at(500'000);
  elsewhere.stream = kSideStream;
  const auto overrun =
      off_stream_overrun({marker_at(10'000), kernel_on(kCallStream, 11'000, 100'000),
                          marker_at(101'000), elsewhere, kernel_on(kSideStream, 0, 60'000)},
                         kCallStream);
  ASSERT_TRUE(overrun.has_value());
  EXPECT_DOUBLE_EQ(overrun->milliseconds, (501'000.0 - 101'000.0) / 1e6);
}

TEST(OffStreamOverrun, WithoutTheMarkerThereIsNoReading) {
  EXPECT_FALSE(off_stream_overrun({kernel_on(kSideStream, 0, 60'000)}, kCallStream).has_value());
  DeviceActivity not_a_marker = marker_at(0);
  not_a_marker.stream_end_marker = false;
  EXPECT_FALSE(off_stream_overrun({not_a_marker}, kCallStream).has_value());
}

TEST(OffStreamWorkTrace, WithoutAGpuATraceSaysWhyAndReadsNothing) {
  // The trace cannot start; it must say so rather than read as a call with no work off its
  // stream (the gate then uses the host clock).
  if (device_available(Device::cuda)) {
    GTEST_SKIP() << "a GPU is present: the traced gate runs in EscapedWorkGate.*";
  }
  OffStreamWorkTrace trace(nullptr);
  trace.mark_stream_end();
  EXPECT_FALSE(trace.finish().has_value());
  EXPECT_FALSE(trace.untraced_reason().empty());
}

TEST(WorkerProtocol, TheTraceRequestAndItsReadingCrossTheWire) {
  wire::Request request;
  request.trace_off_stream_work = true;
  EXPECT_TRUE(wire::decode_request(wire::encode(request)).trace_off_stream_work);
  request.trace_off_stream_work = false;
  EXPECT_FALSE(wire::decode_request(wire::encode(request)).trace_off_stream_work);

  wire::Reply reply;
  reply.off_stream_traced = true;
  reply.off_stream_milliseconds = 0.25;
  reply.off_stream_latest = "kernel spin";
  reply.off_stream_untraced = "";
  const wire::Reply traced = wire::decode_reply(wire::encode(reply));
  EXPECT_TRUE(traced.off_stream_traced);
  EXPECT_DOUBLE_EQ(traced.off_stream_milliseconds, 0.25);
  EXPECT_EQ(traced.off_stream_latest, "kernel spin");

  reply.off_stream_traced = false;
  reply.off_stream_untraced = "CUPTI could not be loaded";
  const wire::Reply untraced = wire::decode_reply(wire::encode(reply));
  EXPECT_FALSE(untraced.off_stream_traced);
  EXPECT_THAT(untraced.off_stream_untraced, HasSubstr("CUPTI"));
}

}  // namespace
}  // namespace rkt
