#include "framework/wire/worker_protocol.h"

namespace rkt::wire {
namespace {

constexpr std::uint32_t kRequestTag = 0x524b5452;   // "RKTR"
constexpr std::uint32_t kReplyTag = 0x524b5441;     // "RKTA"
constexpr std::uint32_t kDescribeTag = 0x524b5444;  // "RKTD"

void put_tensor(WireWriter& out, const TensorRef& tensor) {
  out.u64(tensor.buffer);
  out.u64(tensor.offset_bytes);
  out.u64(tensor.sizes.size());
  for (std::int64_t size : tensor.sizes) out.i64(size);
  for (std::int64_t stride : tensor.strides) out.i64(stride);
  out.u32(static_cast<std::uint32_t>(tensor.dtype));
  out.u32(static_cast<std::uint32_t>(tensor.device));
}

template <typename Enum>
Enum enum_in_range(std::uint32_t value, Enum last, const char* what) {
  if (value > static_cast<std::uint32_t>(last)) {
    throw WireError(std::string("unknown ") + what + " " + std::to_string(value));
  }
  return static_cast<Enum>(value);
}

TensorRef get_tensor(WireReader& in) {
  TensorRef tensor;
  tensor.buffer = in.u64();
  tensor.offset_bytes = in.u64();
  const std::uint64_t rank = in.count(16);
  if (rank > static_cast<std::uint64_t>(kMaxRank)) throw WireError("tensor rank over kMaxRank");
  for (std::uint64_t d = 0; d < rank; ++d) tensor.sizes.push_back(in.i64());
  for (std::uint64_t d = 0; d < rank; ++d) tensor.strides.push_back(in.i64());
  tensor.dtype = enum_in_range(in.u32(), DType::int32, "dtype");
  tensor.device = enum_in_range(in.u32(), Device::cuda, "device");
  return tensor;
}

void expect_tag(WireReader& in, std::uint32_t tag, const char* what) {
  if (in.u32() != tag) throw WireError(std::string("not a ") + what + " message");
  if (in.u32() != kProtocolVersion) throw WireError("protocol version mismatch");
}

}  // namespace

std::string encode(const Request& request) {
  WireWriter out;
  out.u32(kRequestTag);
  out.u32(kProtocolVersion);
  out.u32(static_cast<std::uint32_t>(request.kind));
  out.u64(request.sequence);
  out.u32(request.kernel);
  out.u64(request.new_buffers.size());
  for (const SharedBuffer& buffer : request.new_buffers) {
    out.u64(buffer.id);
    out.u64(buffer.bytes);
    out.u32(static_cast<std::uint32_t>(buffer.device));
    out.str(buffer.cuda_ipc_handle);
    out.u32(buffer.inaccessible_page_after ? 1 : 0);
  }
  out.u64(request.released.size());
  for (std::uint64_t id : request.released) out.u64(id);
  out.u64(request.sets.size());
  for (const ArgumentSet& set : request.sets) {
    out.u64(set.inputs.size());
    for (const TensorRef& tensor : set.inputs) put_tensor(out, tensor);
    out.u64(set.outputs.size());
    for (const TensorRef& tensor : set.outputs) put_tensor(out, tensor);
  }
  out.u32(request.samples);
  out.u32(request.first_set);
  out.u32(request.flush_caches ? 1 : 0);
  out.f64(request.warmup_milliseconds);
  out.u32(request.trace_off_stream_work ? 1 : 0);
  return out.bytes();
}

Request decode_request(const std::string& bytes) {
  WireReader in(bytes);
  expect_tag(in, kRequestTag, "request");
  Request request;
  request.kind = enum_in_range(in.u32(), RequestKind::adopt, "request kind");
  request.sequence = in.u64();
  request.kernel = in.u32();
  for (std::uint64_t n = in.count(28); n > 0; --n) {
    SharedBuffer buffer;
    buffer.id = in.u64();
    buffer.bytes = in.u64();
    buffer.device = enum_in_range(in.u32(), Device::cuda, "device");
    buffer.cuda_ipc_handle = in.str();
    buffer.inaccessible_page_after = in.u32() != 0;
    request.new_buffers.push_back(buffer);
  }
  for (std::uint64_t n = in.count(8); n > 0; --n) request.released.push_back(in.u64());
  for (std::uint64_t n = in.count(16); n > 0; --n) {
    ArgumentSet set;
    for (std::uint64_t i = in.count(32); i > 0; --i) set.inputs.push_back(get_tensor(in));
    for (std::uint64_t i = in.count(32); i > 0; --i) set.outputs.push_back(get_tensor(in));
    request.sets.push_back(std::move(set));
  }
  request.samples = in.u32();
  request.first_set = in.u32();
  request.flush_caches = in.u32() != 0;
  request.warmup_milliseconds = in.f64();
  request.trace_off_stream_work = in.u32() != 0;
  if (!in.at_end()) throw WireError("trailing bytes after a request");
  return request;
}

std::string encode(const Reply& reply) {
  WireWriter out;
  out.u32(kReplyTag);
  out.u32(kProtocolVersion);
  out.u64(reply.sequence);
  out.u32(reply.ok ? 1 : 0);
  out.str(reply.error);
  out.f64(reply.stream_milliseconds);
  out.u64(reply.operators.size());
  for (const auto& [name, count] : reply.operators) {
    out.str(name);
    out.i64(count);
  }
  out.u64(reply.samples.size());
  for (double sample : reply.samples) out.f64(sample);
  out.f64(reply.peak_memory_bytes);
  out.f64(reply.device_milliseconds);
  out.u32(reply.off_stream_traced ? 1 : 0);
  out.f64(reply.off_stream_milliseconds);
  out.str(reply.off_stream_latest);
  out.str(reply.off_stream_untraced);
  out.u32(reply.device_lost ? 1 : 0);
  out.u32(reply.not_final_at_return ? 1 : 0);
  out.i64(reply.not_final_output);
  out.u32(reply.l2_persistence_reset ? 1 : 0);
  out.f64(reply.mapping_milliseconds);
  out.f64(reply.handling_milliseconds);
  return out.bytes();
}

Reply decode_reply(const std::string& bytes) {
  WireReader in(bytes);
  expect_tag(in, kReplyTag, "reply");
  Reply reply;
  reply.sequence = in.u64();
  reply.ok = in.u32() != 0;
  reply.error = in.str();
  reply.stream_milliseconds = in.f64();
  for (std::uint64_t n = in.count(16); n > 0; --n) {
    std::string name = in.str();
    reply.operators[name] = static_cast<int>(in.i64());
  }
  for (std::uint64_t n = in.count(8); n > 0; --n) reply.samples.push_back(in.f64());
  reply.peak_memory_bytes = in.f64();
  reply.device_milliseconds = in.f64();
  reply.off_stream_traced = in.u32() != 0;
  reply.off_stream_milliseconds = in.f64();
  reply.off_stream_latest = in.str();
  reply.off_stream_untraced = in.str();
  reply.device_lost = in.u32() != 0;
  reply.not_final_at_return = in.u32() != 0;
  reply.not_final_output = static_cast<std::int32_t>(in.i64());
  reply.l2_persistence_reset = in.u32() != 0;
  reply.mapping_milliseconds = in.f64();
  reply.handling_milliseconds = in.f64();
  if (!in.at_end()) throw WireError("trailing bytes after a reply");
  return reply;
}

std::string encode(const DescribeReply& reply, std::uint64_t sequence) {
  WireWriter out;
  out.u32(kDescribeTag);
  out.u32(kProtocolVersion);
  out.u64(sequence);
  out.str(reply.sandbox);
  out.str(reply.load_error);
  out.u32(reply.libtorch_loaded ? 1 : 0);
  out.u64(reply.kernels.size());
  for (const KernelDescription& kernel : reply.kernels) {
    out.str(kernel.task_id);
    out.str(kernel.kernel_id);
    out.str(kernel.description);
    out.str(kernel.file);
    out.i64(kernel.line);
    out.u32(static_cast<std::uint32_t>(kernel.device));
    out.u32(static_cast<std::uint32_t>(kernel.precision));
    out.u32(static_cast<std::uint32_t>(kernel.accumulation));
    out.u32(kernel.returns_tensors ? 1 : 0);
    out.u64(kernel.waived_gates.size());
    for (const auto& [gate, reason] : kernel.waived_gates) {
      out.u32(static_cast<std::uint32_t>(gate));
      out.str(reason);
    }
    out.u64(kernel.allowed_operators.size());
    for (const std::string& name : kernel.allowed_operators) out.str(name);
    out.u64(kernel.supported_dims.size());
    for (const DimRestriction& restriction : kernel.supported_dims) {
      out.str(restriction.dim);
      out.u32(static_cast<std::uint32_t>(restriction.kind));
      out.i64(restriction.value);
    }
    out.i64(kernel.alignment_bytes);
    out.u64(kernel.declaration_errors.size());
    for (const std::string& error : kernel.declaration_errors) out.str(error);
  }
  return out.bytes();
}

DescribeReply decode_describe_reply(const std::string& bytes, std::uint64_t expected_sequence) {
  WireReader in(bytes);
  expect_tag(in, kDescribeTag, "describe reply");
  if (in.u64() != expected_sequence) throw WireError("describe reply out of turn");
  DescribeReply reply;
  reply.sandbox = in.str();
  reply.load_error = in.str();
  reply.libtorch_loaded = in.u32() != 0;
  for (std::uint64_t n = in.count(64); n > 0; --n) {
    KernelDescription kernel;
    kernel.task_id = in.str();
    kernel.kernel_id = in.str();
    kernel.description = in.str();
    kernel.file = in.str();
    kernel.line = in.i64();
    kernel.device = enum_in_range(in.u32(), Device::cuda, "device");
    kernel.precision = enum_in_range(in.u32(), Precision::fp16, "precision");
    kernel.accumulation = enum_in_range(in.u32(), Precision::fp16, "accumulation precision");
    kernel.returns_tensors = in.u32() != 0;
    for (std::uint64_t g = in.count(12); g > 0; --g) {
      const auto gate = enum_in_range(in.u32(), IntegrityGate::misaligned_pointers, "gate");
      kernel.waived_gates[gate] = in.str();
    }
    for (std::uint64_t o = in.count(8); o > 0; --o) kernel.allowed_operators.push_back(in.str());
    for (std::uint64_t r = in.count(16); r > 0; --r) {
      DimRestriction restriction;
      restriction.dim = in.str();
      restriction.kind = enum_in_range(in.u32(), DimRestriction::Kind::at_most, "dim restriction");
      restriction.value = in.i64();
      kernel.supported_dims.push_back(std::move(restriction));
    }
    kernel.alignment_bytes = in.i64();
    for (std::uint64_t e = in.count(8); e > 0; --e) kernel.declaration_errors.push_back(in.str());
    reply.kernels.push_back(std::move(kernel));
  }
  if (!in.at_end()) throw WireError("trailing bytes after a describe reply");
  return reply;
}

}  // namespace rkt::wire
