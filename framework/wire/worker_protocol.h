// The judge-worker protocol: what the judge asks of a worker and what a worker may answer.
//
// The worker runs untrusted kernel code, so nothing it sends is a verdict: it reports only what
// the judge checks itself (outputs land in buffers the judge owns; times are cross-checked
// against the judge's own clock). Every request carries a sequence number that its reply must
// echo; a reply out of turn is a protocol violation.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/wire/wire_message.h"
#include "rkt/precision.h"
#include "rkt/registration.h"
#include "rkt/tensor_view.h"

namespace rkt::wire {

/// Bumped whenever a message's layout changes; judge and worker must agree.
// 2: kernels carry their supported dims; 3: adopt; 4: declared alignment; 5: declared
// accumulation precision; 6: the worker's mapping time; 7: its whole handling time; 8: the
// trace of work off the stream; 9: whether LibTorch is in the worker.
inline constexpr std::uint32_t kProtocolVersion = 9;

/// The first message a worker started with --library-from-socket receives (a worker started
/// before its judge knew the library): this prefix, then the library's path. Nothing else of the
/// protocol is sent before it.
inline constexpr const char* kLibraryMessagePrefix = "rkt-library ";
/// The worker's argument that runs a compute-sanitizer tool's planted error instead of serving
/// (`rkt-worker --sanitizer-probe TOOL`: framework/worker/sanitizer_probe.h); the judge runs it
/// under the tool (framework/cases/sanitizer_tool_check.h).
inline constexpr const char* kSanitizerProbeArgument = "--sanitizer-probe";

enum class RequestKind : std::uint32_t {
  describe = 1,     ///< List the kernels of the loaded library; reply: DescribeReply.
  call = 2,         ///< Run one kernel once on shared buffers; reply: CallReply.
  measure = 3,      ///< Run timed calls; reply: MeasureReply.
  synchronize = 4,  ///< Wait for all work on the device; reply: CallReply.
  adopt = 5,        ///< A new judge takes the worker over: unmap every buffer of the judges
                    ///< before it; reply: DescribeReply.
};

/// A kernel as its library registered it: everything but the function.
struct KernelDescription {
  std::string task_id, kernel_id, description, file;
  std::int64_t line = 0;
  Device device = Device::cpu;
  Precision precision = Precision::fp32;
  /// The precision the kernel declares its sums are kept in (KernelSpec::accumulates_in).
  Precision accumulation = Precision::fp32;
  bool returns_tensors = false;
  std::map<IntegrityGate, std::string> waived_gates;
  std::vector<std::string> allowed_operators;
  /// The dims the kernel declares it supports: data only (the judge checks them against the
  /// task, draws property trials inside them and shows them in every report).
  std::vector<DimRestriction> supported_dims;
  /// The alignment the kernel declared for its buffers (bytes; 0: none).
  std::int64_t alignment_bytes = 0;
  /// Declarations the kernel library could not read (the judge reports them as registration errors).
  std::vector<std::string> declaration_errors;
};

struct DescribeReply {
  std::vector<KernelDescription> kernels;
  /// What the worker's sandbox holds and what it could not apply (shown in every report).
  std::string sandbox;
  /// Why the kernel library could not be loaded; empty on success.
  std::string load_error;
  /// Whether LibTorch is in the worker: a library that needs it (it links LibTorch, or has a
  /// tensor-form kernel) gets it; one that does not runs in a worker without it (kernel_calls.h).
  bool libtorch_loaded = false;
};

/// A buffer the judge shares with the worker: a memfd (CPU; the descriptor travels with the
/// datagram, in order) or a CUDA IPC handle (64 bytes).
struct SharedBuffer {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;
  Device device = Device::cpu;
  std::string cuda_ipc_handle;
  /// CPU: the worker maps an inaccessible page right after the buffer (`bytes` is then a whole
  /// number of pages), so a read past its end faults.
  bool inaccessible_page_after = false;
};

/// A tensor inside a shared buffer.
struct TensorRef {
  std::uint64_t buffer = 0;
  std::uint64_t offset_bytes = 0;
  std::vector<std::int64_t> sizes, strides;  // strides in elements
  DType dtype = DType::float32;
  Device device = Device::cpu;
};

/// One set of arguments: a kernel's inputs and its preallocated outputs.
struct ArgumentSet {
  std::vector<TensorRef> inputs, outputs;
};

struct Request {
  RequestKind kind = RequestKind::call;
  std::uint64_t sequence = 0;
  std::uint32_t kernel = 0;              ///< Index into DescribeReply::kernels.
  std::vector<SharedBuffer> new_buffers; ///< To map before the request runs.
  std::vector<std::uint64_t> released;   ///< Buffers the judge is about to free: unmap them.
  std::vector<ArgumentSet> sets;         ///< call: one set; measure: the sets to rotate over.
  // measure only:
  std::uint32_t samples = 0;             ///< Timed calls to make, rotating over the sets.
  std::uint32_t first_set = 0;           ///< The set the first timed call uses.
  bool flush_caches = true;              ///< Evict caches before each timed call.
  double warmup_milliseconds = 0;        ///< [ms] untimed calls first
  // call only:
  bool trace_off_stream_work =
      false;  ///< Trace the call's device work (CUDA; the escaped-work gate).
};

struct Reply {
  std::uint64_t sequence = 0;
  bool ok = false;
  std::string error;                      ///< Why the request failed (the kernel threw, ...).
  double stream_milliseconds = 0;         ///< call: the call's time on its stream [ms]
  std::map<std::string, int> operators;   ///< call: ATen operators observed (advisory)
  std::vector<double> samples;            ///< measure: [ms] one per timed call
  /// call: device memory the call added at its peak (-1 on the CPU, where it is not measured).
  double peak_memory_bytes = -1;  // [bytes]
  /// call on CUDA: from entering the kernel to a device-wide synchronisation, measured in the
  /// worker (work launched off the given stream shows here; -1 on the CPU).
  double device_milliseconds = -1;  // [ms]
  /// call with trace_off_stream_work: whether the trace was read; if so, how far the work off the
  /// given stream outlasted the call on it, on the GPU's clock, and what ended last; if not, why
  /// (framework/runtime/off_stream_work_trace.h).
  bool off_stream_traced = false;
  double off_stream_milliseconds = 0;  // [ms]
  std::string off_stream_latest;
  std::string off_stream_untraced;
  /// The worker's CUDA context is lost (a fault such as an illegal memory access): nothing it
  /// does afterwards can be trusted, so the judge replaces it before the next request.
  bool device_lost = false;
  /// call or measure on CUDA: the outputs were not final when the kernel returned (error says
  /// why, naming the output by output_placeholder); the index of the first changed output, -1
  /// when none changed or the device stayed busy (framework/runtime/outputs_final_at_return.h).
  bool not_final_at_return = false;
  std::int32_t not_final_output = -1;
  /// measure on CUDA: the kernel set L2 persistence (a carve-out or an access policy window),
  /// which was taken away before each timed sample (framework/runtime/l2_persistence.h).
  bool l2_persistence_reset = false;
  /// Any request: the worker's time unmapping the released buffers and mapping the new ones.
  double mapping_milliseconds = 0;  // [ms]
  /// Any request: the worker's whole time on it, from the request read to the reply written.
  double handling_milliseconds = 0;  // [ms]
};

std::string encode(const Request& request);
Request decode_request(const std::string& bytes);
std::string encode(const Reply& reply);
Reply decode_reply(const std::string& bytes);
std::string encode(const DescribeReply& reply, std::uint64_t sequence);
DescribeReply decode_describe_reply(const std::string& bytes, std::uint64_t expected_sequence);

}  // namespace rkt::wire
