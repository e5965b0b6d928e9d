// ttcp::transmit / ttcp::receive over loopback, both ends in threads of this process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/net/socket_ops.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/ttcp/transfer.h"

namespace ackstall::ttcp {
namespace {

struct Ends {
  core::Result<TransferResult> tx, rx;
};

// Runs `rx` (port 0: a free one) in a thread and `tx` against the port it reports.
Ends transfer(Config tx, Config rx, Events tx_events = {}, Events rx_events = {}) {
  rx.transmit = false;
  rx.bind = "127.0.0.1";
  rx.port = 0;
  if (rx.accept_timeout_ms < 0) rx.accept_timeout_ms = 10000;
  std::promise<std::uint16_t> port;
  auto listening = port.get_future();
  bool reported = false;
  Ends ends{core::fail("not run"), core::fail("not run")};
  auto user_listening = rx_events.listening;
  rx_events.listening = [&](std::uint16_t p) {
    if (user_listening) user_listening(p);
    reported = true;
    port.set_value(p);
  };
  std::thread receiver([&] {
    ends.rx = receive(rx, rx_events);
    if (!reported) port.set_value(0);
  });
  tx.transmit = true;
  tx.host = "127.0.0.1";
  tx.port = listening.get();
  if (tx.port != 0) ends.tx = transmit(tx, tx_events);
  receiver.join();
  return ends;
}

Config sized(std::int64_t nbuf, std::int64_t buflen) {
  Config c;
  c.nbuf = nbuf;
  c.nbuf_set = true;
  c.buflen = buflen;
  return c;
}

TEST(TtcpTransfer, PatternArrivesByteExactAndCounted) {
  Config tx = sized(40, 3000), rx;
  rx.buflen = 1024;  // reads of another size than the sends
  tx.verify = rx.verify = true;
  tx.chunk = core::PolicyKind::seed;
  tx.sockbuf = 8192;
  std::string tx_peer, rx_peer;
  std::optional<SenderSetup> setup;
  Events te, re;
  te.connected = [&](const std::string& p) { tx_peer = p; };
  te.sending = [&](const SenderSetup& s) { setup = s; };
  re.connected = [&](const std::string& p) { rx_peer = p; };
  const auto [t, r] = transfer(tx, rx, te, re);
  ASSERT_TRUE(t) << t.error();
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(t->bytes, 120000u);
  EXPECT_EQ(r->bytes, 120000u);
  EXPECT_EQ(t->calls, 40u);
  EXPECT_GE(r->calls, 1u);
  EXPECT_GT(t->seconds, 0.0);
  EXPECT_EQ(t->remote, tx_peer);
  EXPECT_EQ(r->remote, rx_peer);
  EXPECT_EQ(tx_peer.rfind("127.0.0.1:", 0), 0u) << tx_peer;
  ASSERT_TRUE(setup.has_value());
  EXPECT_EQ(setup->policy, core::PolicyKind::seed);
  EXPECT_FALSE(setup->afd_quota.has_value());
  EXPECT_FALSE(t->afd.has_value());
}

TEST(TtcpTransfer, StreamDataArrivesUnchanged) {
  std::string data(100'001, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 31 + i / 97) & 0xff);
  std::istringstream in(data);
  std::ostringstream out;
  Config tx, rx;
  tx.source_sink = rx.source_sink = false;
  tx.buflen = 7000;
  rx.buflen = 5000;
  tx.data_in = &in;
  rx.data_out = &out;
  const auto [t, r] = transfer(tx, rx);
  ASSERT_TRUE(t) << t.error();
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(t->calls, 15u);  // ceil(100001 / 7000) sends
  EXPECT_TRUE(out.str() == data) << "received " << out.str().size() << " of " << data.size();
}

TEST(TtcpTransfer, WithoutAStreamIsAnError) {
  Config tx;
  tx.transmit = true;
  tx.source_sink = false;
  const auto t = run(tx);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("no input stream"), std::string::npos) << t.error();
  Config rx;
  rx.source_sink = false;
  const auto r = run(rx);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no output stream"), std::string::npos) << r.error();
}

TEST(TtcpTransfer, EarlyCloseIsAnErrorWithTheCounts) {
  const auto [t, r] = transfer(sized(10, 1000), sized(1000, 1000));
  ASSERT_TRUE(t) << t.error();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("closed early: 10000 of 1000000 bytes"), std::string::npos) << r.error();
}

TEST(TtcpTransfer, WrongPatternIsAnErrorNamingTheByte) {
  Config rx = sized(5, 1000);
  rx.verify = true;
  const auto [t, r] = transfer(sized(5, 1000), rx);  // -s without --verify: one buffer, repeated
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("--verify: byte 1000 is 0x"), std::string::npos) << r.error();
}

TEST(TtcpTransfer, IntervalsAreReportedAndCoverTheTransfer) {
  Config tx, rx;
  tx.seconds = 0.3;
  tx.interval = rx.interval = 0.1;
  tx.buflen = 16384;
  int reported = 0;
  Events te;
  te.interval = [&](const Interval& i) {
    ++reported;
    EXPECT_GE(i.end, i.start);
  };
  const auto [t, r] = transfer(tx, rx, te);
  ASSERT_TRUE(t) << t.error();
  ASSERT_TRUE(r) << r.error();
  EXPECT_GE(reported, 2);
  EXPECT_GE(t->intervals.size(), static_cast<std::size_t>(reported));
  std::uint64_t sum = 0;
  for (const auto& i : t->intervals) sum += i.bytes;
  EXPECT_EQ(sum, t->bytes);
  EXPECT_EQ(r->bytes, t->bytes);
}

TEST(TtcpTransfer, RefusedConnectionIsAnError) {
  std::uint16_t port = 0;
  {
    auto l = net::listen_tcp({"127.0.0.1", 0});
    ASSERT_TRUE(l) << l.error();
    port = l->port;
  }  // closed: nothing listens there now
  Config tx;
  tx.transmit = true;
  tx.host = "127.0.0.1";
  tx.port = port;
  tx.connect_timeout_ms = 100;
  const auto t = transmit(tx);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message().rfind("connect to 127.0.0.1:" + std::to_string(port) + ": ", 0), 0u)
      << t.error();
}

TEST(TtcpTransfer, NoTransmitterIsAnErrorAfterTheAcceptTimeout) {
  Config rx;
  rx.bind = "127.0.0.1";
  rx.port = 0;
  rx.accept_timeout_ms = 50;
  std::uint16_t port = 0;
  Events events;
  events.listening = [&](std::uint16_t p) { port = p; };
  const auto r = receive(rx, events);
  EXPECT_NE(port, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "no transmitter connected within 50 ms");
}

TEST(TtcpTransfer, BadBindAddressIsAnError) {
  Config rx;
  rx.bind = "not-an-address";
  rx.port = 0;
  const auto r = receive(rx);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().rfind("listen on ", 0), 0u) << r.error();
}

}  // namespace
}  // namespace ackstall::ttcp

namespace ackstall::ttcp {
namespace {

// A receiver in a thread, on its own port: `bind` as given (empty: dual stack).
struct Receiver {
  Config cfg;
  std::promise<std::uint16_t> port;
  std::thread thread;
  core::Result<TransferResult> result = core::fail("not run");
  std::uint16_t start(Events events = {}) {
    auto listening = port.get_future();
    events.listening = [this](std::uint16_t p) { port.set_value(p); };
    cfg.port = 0;
    if (cfg.accept_timeout_ms < 0) cfg.accept_timeout_ms = 10000;
    thread = std::thread([this, events] { result = receive(cfg, events); });
    return listening.get();
  }
  ~Receiver() {
    if (thread.joinable()) thread.join();
  }
};

core::Result<TransferResult> send_to(const std::string& host, std::uint16_t port, std::int64_t nbuf = 10) {
  Config tx = sized(nbuf, 8192);
  tx.transmit = true;
  tx.host = host;
  tx.port = port;
  return transmit(tx);
}

bool ipv6_loopback_works() {
  return static_cast<bool>(net::listen_tcp({"::1", 0}));
}

TEST(TtcpTransfer, DefaultReceiverTakesIpv4AndIpv6AndReportsItsRealAddress) {
  if (!ipv6_loopback_works()) GTEST_SKIP() << "no IPv6 loopback here";
  for (const std::string host : {"127.0.0.1", "::1"}) {
    SCOPED_TRACE(host);
    Receiver rx;  // bind empty: every address, one dual-stack socket
    const auto port = rx.start();
    const auto t = send_to(host, port);
    ASSERT_TRUE(t) << t.error();
    rx.thread.join();
    ASSERT_TRUE(rx.result) << rx.result.error();
    const std::string want = host == "::1" ? "[::1]:" + std::to_string(port) : host + ":" + std::to_string(port);
    EXPECT_EQ(rx.result->local, want);  // the connection's address, not the wildcard
    EXPECT_EQ(rx.result->bytes, 81920u);
    EXPECT_EQ(t->local.rfind(host == "::1" ? "[::1]:" : "127.0.0.1:", 0), 0u) << t->local;
  }
}

TEST(TtcpTransfer, ReceiverIgnoresAConnectionThatSendsNothing) {
  Receiver rx;
  rx.cfg.bind = "127.0.0.1";
  int empties = 0;
  Events ev;
  ev.empty = [&](const std::string&) { ++empties; };
  const auto port = rx.start(ev);
  {
    auto probe = net::connect_tcp({"127.0.0.1", port}, std::chrono::milliseconds(2000));
    ASSERT_TRUE(probe) << probe.error();
  }  // closed without a byte, as `ackstall probe` does
  const auto t = send_to("127.0.0.1", port);
  ASSERT_TRUE(t) << t.error();
  rx.thread.join();
  ASSERT_TRUE(rx.result) << rx.result.error();
  EXPECT_EQ(empties, 1);
  EXPECT_EQ(rx.result->bytes, 81920u);
}

TEST(TtcpTransfer, ReceiverCountsAWaitForDataAsAStall) {
  Receiver rx;
  rx.cfg.bind = "127.0.0.1";
  rx.cfg.stall_threshold = std::chrono::milliseconds(20);
  const auto port = rx.start();
  {
    auto s = net::connect_tcp({"127.0.0.1", port}, std::chrono::milliseconds(2000));
    ASSERT_TRUE(s) << s.error();
    const std::byte data[100] = {};
    const core::ByteSlice slice{data, sizeof data};
    for (int i = 0; i < 3; ++i) {
      const auto sent = net::system_socket_ops().send(s->native(), std::span(&slice, 1), net::SendFlags::none);
      ASSERT_TRUE(sent && *sent == sizeof data);
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
    }
  }
  rx.thread.join();
  ASSERT_TRUE(rx.result) << rx.result.error();
  EXPECT_EQ(rx.result->bytes, 300u);
  // Three reads: the first waits for the sender to start (not a stall), the next two 60 ms each.
  EXPECT_EQ(rx.result->stalls, 2u);
  EXPECT_GE(rx.result->longest_call_ms, 40.0);
}

TEST(TtcpTransfer, InterruptedTransmitterReturnsWhatItSentSoFar) {
  std::atomic<int> stop{0};
  Config tx, rx;
  tx.seconds = 30;  // would run 30 s
  tx.interval = 0.05;
  tx.interrupt = &stop;
  int events = 0;
  Events te;
  te.interval = [&](const Interval&) { ++events; };
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.store(2);
  });
  const auto [t, r] = transfer(tx, rx, te);
  signaller.join();
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->interrupted, 2);
  EXPECT_GT(t->bytes, 0u);
  EXPECT_LT(t->seconds, 10.0);
  // Every interval was reported, the last partial one too, and they cover the bytes sent.
  EXPECT_EQ(static_cast<std::size_t>(events), t->intervals.size());
  std::uint64_t sum = 0;
  for (const auto& i : t->intervals) sum += i.bytes;
  EXPECT_EQ(sum, t->bytes);
  ASSERT_TRUE(r) << r.error();  // the receiver saw a transmitter that closed: a complete transfer
  EXPECT_EQ(r->bytes, t->bytes);
}

TEST(TtcpTransfer, InterruptedReceiverStopsWaiting) {
  std::atomic<int> stop{0};
  Receiver rx;
  rx.cfg.bind = "127.0.0.1";
  rx.cfg.accept_timeout_ms = 60000;
  rx.cfg.interrupt = &stop;
  rx.start();
  const auto t0 = std::chrono::steady_clock::now();
  stop.store(15);
  rx.thread.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  ASSERT_TRUE(rx.result) << rx.result.error();
  EXPECT_EQ(rx.result->interrupted, 15);
  EXPECT_EQ(rx.result->bytes, 0u);
}

TEST(TtcpTransfer, ServeTakesOneTransferAfterAnother) {
  std::atomic<int> stop{0};
  Config rx;
  rx.bind = "127.0.0.1";
  rx.port = 0;
  rx.interrupt = &stop;
  std::promise<std::uint16_t> port;
  Events ev;
  ev.listening = [&](std::uint16_t p) { port.set_value(p); };
  std::vector<std::uint64_t> served;
  core::Result<void> done = core::fail("not run");
  auto listening = port.get_future();
  std::thread server([&] {
    done = serve(rx, ev, [&](const core::Result<TransferResult>& r) {
      served.push_back(r ? r->bytes : 0);
    });
  });
  const auto p = listening.get();
  for (std::int64_t n : {3, 5}) {
    const auto t = send_to("127.0.0.1", p, n);
    ASSERT_TRUE(t) << t.error();
  }
  stop.store(2);
  server.join();
  ASSERT_TRUE(done) << done.error();
  EXPECT_EQ(served, (std::vector<std::uint64_t>{3 * 8192, 5 * 8192}));
}

// The lab's receiver for a transmitter: its sizes, a count only for a transfer by count, and
// its own ACK mode.
TEST(TtcpTransfer, ReceiverForATransmitter) {
  Config tx;
  tx.transmit = true;
  tx.buflen = 15928;
  tx.nbuf = 500;
  tx.nbuf_set = true;
  tx.verify = true;
  const Config rx = receiver_for(tx, AckMode::classic);
  EXPECT_FALSE(rx.transmit);
  EXPECT_EQ(rx.buflen, 15928);
  EXPECT_TRUE(rx.nbuf_set);
  EXPECT_TRUE(rx.verify);
  EXPECT_EQ(rx.ack_mode, AckMode::classic);
  EXPECT_EQ(rx.accept_timeout_ms, 15000);
  tx.seconds = 1;  // a timed transfer: the receiver does not expect a count
  EXPECT_FALSE(receiver_for(tx, AckMode::normal).nbuf_set);
}

}  // namespace
}  // namespace ackstall::ttcp
