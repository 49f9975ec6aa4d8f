// Messages between the judge and a worker: byte strings with file descriptors, sent as single
// datagrams over a SOCK_SEQPACKET socket pair. No LibTorch here: the worker and the judge both
// link it, and it is the whole of what they share.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rkt::wire {

/// A malformed, truncated or unexpected message. The judge treats it as a protocol violation by
/// the worker (the case fails and the worker is replaced).
struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Appends fixed-width little-endian fields and length-prefixed strings.
class WireWriter {
 public:
  void u32(std::uint32_t value);
  void u64(std::uint64_t value);
  void i64(std::int64_t value);
  void f64(double value);
  void str(const std::string& value);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads what WireWriter wrote; throws WireError past the end or on absurd lengths.
class WireReader {
 public:
  explicit WireReader(const std::string& bytes) : bytes_(bytes) {}
  std::uint32_t u32();
  std::uint64_t u64();
  std::int64_t i64();
  double f64();
  std::string str();
  /// A count of items that follow, each at least `min_item_bytes` long: bounded by what is left.
  std::uint64_t count(std::size_t min_item_bytes = 1);
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  void need(std::size_t size) const;
  const std::string& bytes_;
  std::size_t offset_ = 0;
};

/// One datagram: bytes and the descriptors that travel with it (SCM_RIGHTS).
struct Datagram {
  std::string bytes;
  std::vector<int> fds;  ///< Received descriptors are owned by the receiver (close-on-exec).
};

/// The largest datagram either side sends or accepts.
inline constexpr std::size_t kMaxDatagramBytes = 4 << 20;  // [bytes]
/// The most descriptors one datagram carries.
inline constexpr std::size_t kMaxDatagramFds = 250;

/// Sends one datagram; throws WireError when the peer is gone.
void send_datagram(int socket, const Datagram& datagram);

/// What receive_datagram saw.
enum class ReceiveStatus { received, timed_out, closed };

/// Waits up to `timeout_milliseconds` (negative: forever) for one datagram.
ReceiveStatus receive_datagram(int socket, int timeout_milliseconds, Datagram& datagram);

}  // namespace rkt::wire
