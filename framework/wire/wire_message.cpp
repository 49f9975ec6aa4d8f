#include "framework/wire/wire_message.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rkt::wire {

void WireWriter::u32(std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void WireWriter::u64(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void WireWriter::i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
void WireWriter::f64(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  u64(bits);
}
void WireWriter::str(const std::string& value) {
  u64(value.size());
  bytes_ += value;
}

void WireReader::need(std::size_t size) const {
  if (size > bytes_.size() - offset_) {
    throw WireError("message truncated: needed " + std::to_string(size) + " more bytes at offset " +
                    std::to_string(offset_) + " of " + std::to_string(bytes_.size()));
  }
}
std::uint32_t WireReader::u32() {
  need(4);
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[offset_ + i])) << (8 * i);
  }
  offset_ += 4;
  return value;
}
std::uint64_t WireReader::u64() {
  need(8);
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[offset_ + i])) << (8 * i);
  }
  offset_ += 8;
  return value;
}
std::int64_t WireReader::i64() { return static_cast<std::int64_t>(u64()); }
double WireReader::f64() {
  const std::uint64_t bits = u64();
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
std::string WireReader::str() {
  const std::uint64_t size = u64();
  need(size);
  std::string value = bytes_.substr(offset_, size);
  offset_ += size;
  return value;
}
std::uint64_t WireReader::count(std::size_t min_item_bytes) {
  const std::uint64_t value = u64();
  if (min_item_bytes > 0 && value > (bytes_.size() - offset_) / min_item_bytes) {
    throw WireError("message claims " + std::to_string(value) + " items, more than it holds");
  }
  return value;
}

void send_datagram(int socket, const Datagram& datagram) {
  if (datagram.bytes.size() > kMaxDatagramBytes || datagram.fds.size() > kMaxDatagramFds) {
    throw WireError("datagram too large to send");
  }
  iovec part{const_cast<char*>(datagram.bytes.data()), datagram.bytes.size()};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  std::vector<char> control;
  if (!datagram.fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * datagram.fds.size()));
    header.msg_control = control.data();
    header.msg_controllen = control.size();
    cmsghdr* message = CMSG_FIRSTHDR(&header);
    message->cmsg_level = SOL_SOCKET;
    message->cmsg_type = SCM_RIGHTS;
    message->cmsg_len = CMSG_LEN(sizeof(int) * datagram.fds.size());
    std::memcpy(CMSG_DATA(message), datagram.fds.data(), sizeof(int) * datagram.fds.size());
  }
  while (sendmsg(socket, &header, MSG_NOSIGNAL) < 0) {
    if (errno == EINTR) continue;
    throw WireError(std::string("the peer is gone (sendmsg: ") + std::strerror(errno) + ")");
  }
}

ReceiveStatus receive_datagram(int socket, int timeout_milliseconds, Datagram& datagram) {
  pollfd waiting{socket, POLLIN, 0};
  for (;;) {
    const int ready = poll(&waiting, 1, timeout_milliseconds);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw WireError(std::string("poll: ") + std::strerror(errno));
    if (ready == 0) return ReceiveStatus::timed_out;
    break;
  }
  // The datagram's own length, peeked, sizes the buffer: filling kMaxDatagramBytes for every
  // message cost each round trip about 0.7 ms (a fresh 4 MiB, page-faulted and zeroed, twice).
  ssize_t length;
  do {
    length = recv(socket, nullptr, 0, MSG_PEEK | MSG_TRUNC);
  } while (length < 0 && errno == EINTR);
  if (length < 0) throw WireError(std::string("recv: ") + std::strerror(errno));
  datagram.bytes.resize(
      std::clamp<std::size_t>(static_cast<std::size_t>(length), 1, kMaxDatagramBytes));
  datagram.fds.clear();
  iovec part{datagram.bytes.data(), datagram.bytes.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxDatagramFds));
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control.data();
  header.msg_controllen = control.size();
  ssize_t received;
  do {
    received = recvmsg(socket, &header, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  if (received < 0) throw WireError(std::string("recvmsg: ") + std::strerror(errno));
  for (cmsghdr* message = CMSG_FIRSTHDR(&header); message != nullptr;
       message = CMSG_NXTHDR(&header, message)) {
    if (message->cmsg_level == SOL_SOCKET && message->cmsg_type == SCM_RIGHTS) {
      const std::size_t count = (message->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const std::size_t first = datagram.fds.size();
      datagram.fds.resize(first + count);
      std::memcpy(datagram.fds.data() + first, CMSG_DATA(message), count * sizeof(int));
    }
  }
  if (received == 0 && datagram.fds.empty()) return ReceiveStatus::closed;
  datagram.bytes.resize(static_cast<std::size_t>(received));
  if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    for (int fd : datagram.fds) close(fd);
    throw WireError("datagram truncated (over " + std::to_string(kMaxDatagramBytes) + " bytes)");
  }
  return ReceiveStatus::received;
}

}  // namespace rkt::wire
