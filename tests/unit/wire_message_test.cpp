// Datagrams between judge and worker (framework/wire/wire_message.h): each received at its own
// length, with its descriptors; one over kMaxDatagramBytes refused; a closed peer seen.
#include "framework/wire/wire_message.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace rkt::wire {
namespace {

struct SocketPair {
  int ends[2] = {-1, -1};
  SocketPair() {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ends), 0);
    const int buffer_bytes = 2 * static_cast<int>(kMaxDatagramBytes);  // as the worker's socket
    for (int end : ends) {
      ::setsockopt(end, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof buffer_bytes);
      ::setsockopt(end, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
    }
  }
  ~SocketPair() {
    for (int end : ends) {
      if (end >= 0) ::close(end);
    }
  }
};

TEST(WireMessage, EachDatagramArrivesWholeAtItsOwnLengthWithItsDescriptors) {
  SocketPair pair;
  const std::string small = "request";
  const std::string large(3 << 20, 'x');  // under kMaxDatagramBytes
  int carried[2];
  ASSERT_EQ(::pipe(carried), 0);
  send_datagram(pair.ends[0], {small, {carried[0]}});
  send_datagram(pair.ends[0], {large, {}});
  Datagram first, second;
  ASSERT_EQ(receive_datagram(pair.ends[1], 1000, first), ReceiveStatus::received);
  EXPECT_EQ(first.bytes, small);
  ASSERT_EQ(first.fds.size(), 1u);
  ASSERT_EQ(receive_datagram(pair.ends[1], 1000, second), ReceiveStatus::received);
  EXPECT_EQ(second.bytes.size(), large.size());
  EXPECT_EQ(second.bytes, large);
  EXPECT_TRUE(second.fds.empty());
  // The descriptor works: what is written to the pipe is read through it.
  ASSERT_EQ(::write(carried[1], "z", 1), 1);
  char read_back = 0;
  EXPECT_EQ(::read(first.fds[0], &read_back, 1), 1);
  EXPECT_EQ(read_back, 'z');
  for (int fd : {carried[0], carried[1], first.fds[0]}) ::close(fd);
}

TEST(WireMessage, NothingWaitingTimesOutAndAClosedPeerIsSeen) {
  SocketPair pair;
  Datagram datagram;
  EXPECT_EQ(receive_datagram(pair.ends[1], 0, datagram), ReceiveStatus::timed_out);
  ::close(pair.ends[0]);
  pair.ends[0] = -1;
  EXPECT_EQ(receive_datagram(pair.ends[1], 1000, datagram), ReceiveStatus::closed);
}

TEST(WireMessage, ADatagramOverTheLimitIsRefusedNotCutShort) {
  SocketPair pair;
  const std::string oversized(kMaxDatagramBytes + 1, 'y');
  if (::send(pair.ends[0], oversized.data(), oversized.size(), 0) < 0) {
    GTEST_SKIP() << "this kernel's socket buffer cannot hold a datagram of " << oversized.size()
                 << " bytes";
  }
  Datagram datagram;
  EXPECT_THROW(receive_datagram(pair.ends[1], 1000, datagram), WireError);
}

}  // namespace
}  // namespace rkt::wire
