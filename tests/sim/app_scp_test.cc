// scp source and sink models driven directly (app_scp.h): the select() teardown before and
// after the seed's fix (docs/STACKS.md §2).
#include "ackstall/sim/app_scp.h"
#include "ackstall/sim/engine.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

// The rng the send/read costs and the teardown draw from: the default (constant) costs never
// touch it, so the wake-ups' draws below are as they were.
Rng costs{0};

ScpConfig scp(SelectTeardown t) {
  ScpConfig c;
  c.enabled = true;
  c.teardown = t;
  return c;
}

TEST(SelectTeardown, SleepLoopWaitsForTheCurrentQuantum) {
  ScpConfig c = scp(SelectTeardown::sleep_loop);
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::zero(), costs), Nanos::ms(10));  // data already there
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::ms(3), costs), Nanos::ms(10));
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::ms(10), costs), Nanos::ms(10));
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::ms(10) + Nanos::ns(1), costs), Nanos::ms(20));
  EXPECT_EQ(select_teardown_end(c, Nanos::ms(5), Nanos::ms(6), costs), Nanos::ms(15));
}

TEST(SelectTeardown, EventExitsAfterTheWakeup) {
  ScpConfig c = scp(SelectTeardown::event);
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::zero(), costs), Nanos::us(20));
  EXPECT_EQ(select_teardown_end(c, Nanos::zero(), Nanos::ms(3), costs), Nanos::ms(3) + Nanos::us(20));
}

TEST(ScpSink, SelectBeforeEveryReadSleepLoop) {
  Rng rng(1);
  const TtcpReceiverConfig rc;  // read_len 8192, latency 15 us, cost 2 us
  ScpSink sink(rc, scp(SelectTeardown::sleep_loop));
  // Data already waiting: select() returns only when the pipe thread's 10 ms sleep ends.
  RxRequest r = sink.run(Nanos::zero(), true, costs);
  EXPECT_EQ(r.read, 0);
  ASSERT_EQ(r.wake.stall_count, 1);
  EXPECT_EQ(r.wake.stalls[0].kind, StallKind::select_teardown);
  EXPECT_EQ(r.wake.stalls[0].begin, Nanos::zero());
  EXPECT_EQ(r.wake.stalls[0].end, Nanos::ms(10));
  EXPECT_EQ(r.wake.at, Nanos::ms(10));
  EXPECT_FALSE(sink.readable(Nanos::ms(1), rng).runs());  // a run is already pending
  // select() returned: read.
  r = sink.run(Nanos::ms(10), true, costs);
  EXPECT_EQ(r.read, 8192);
  EXPECT_EQ(sink.read_done(Nanos::ms(10), 8192, costs), Nanos::ms(10) + Nanos::us(2));
  // Nothing waiting: block in select() until readable.
  r = sink.run(Nanos::ms(11), false, costs);
  EXPECT_EQ(r.read, 0);
  EXPECT_FALSE(r.wake.runs());
  EXPECT_EQ(r.wake.stall_count, 0);
  const AppWake w = sink.readable(Nanos::ms(14), rng);
  ASSERT_EQ(w.stall_count, 1);
  EXPECT_EQ(w.stalls[0].begin, Nanos::ms(14));
  EXPECT_EQ(w.stalls[0].end, Nanos::ms(21));  // 11 ms + one 10 ms quantum
  EXPECT_EQ(w.at, Nanos::ms(21) + Nanos::us(15));
  EXPECT_EQ(sink.run(w.at, true, costs).read, 8192);  // selected already: straight to read()
  EXPECT_EQ(sink.read_calls(), 1u);
}

TEST(ScpSink, EventTeardownAfterTheFix) {
  Rng rng(1);
  const TtcpReceiverConfig rc;
  ScpSink sink(rc, scp(SelectTeardown::event));
  RxRequest r = sink.run(Nanos::zero(), true, costs);
  EXPECT_EQ(r.wake.at, Nanos::us(20));
  EXPECT_EQ(r.wake.stalls[0].end, Nanos::us(20));
  r = sink.run(r.wake.at, true, costs);
  EXPECT_EQ(r.read, 8192);
  EXPECT_TRUE(sink.read_done(Nanos::us(20), 0, costs).is_never());  // read() found nothing: blocks
  const AppWake w = sink.readable(Nanos::ms(5), rng);
  EXPECT_EQ(w.at, Nanos::ms(5) + Nanos::us(20) + Nanos::us(15));
}

TEST(ScpSink, ReceiverCpuPerByte) {
  ScpConfig c = scp(SelectTeardown::event);
  c.receiver_cpu_ps_per_byte = 5000;  // 5 ns per byte
  ScpSink sink(TtcpReceiverConfig{}, c);
  sink.run(Nanos::zero(), true, costs);
  sink.run(Nanos::us(20), true, costs);
  EXPECT_EQ(sink.read_done(Nanos::us(20), 1000, costs), Nanos::us(20) + Nanos::us(2) + Nanos::us(5));
}

TEST(ScpSource, EncryptsEachWriteBeforeSendingIt) {
  ScpConfig c = scp(SelectTeardown::sleep_loop);
  c.sender_cpu_ps_per_byte = 1000;  // 1 ns per byte
  c.sender_output_buffer = 0;       // serially: encrypt, then send
  TtcpTransmitterConfig t;
  t.writes = 2;
  t.write_len = 4096;
  TtcpTransmitter src = make_scp_source(t, {.sndbuf = 8192, .mss = 1460, .stream = true}, c);
  Nanos now = src.connected(Nanos::zero());
  TxRequest r = src.run(now);
  ASSERT_EQ(r.kind, TxKind::sleep);
  EXPECT_EQ(r.at, Nanos::ns(4096));
  r = src.run(r.at);
  ASSERT_EQ(r.kind, TxKind::send);
  EXPECT_EQ(r.len, 4096);
  now = src.sent(Nanos::ns(4096), {.accepted = 4096, .would_block = false, .completed = true}, costs);
  EXPECT_EQ(src.run(now).kind, TxKind::sleep);  // the next block is encrypted first
}

// ssh's output buffer (OpenSSH packet_not_very_much_data_to_write, docs/STACKS.md §2): while a
// write waits for the socket, the next ones are encrypted, up to the buffer's size.
TEST(ScpSource, EncryptsAheadWhileTheSocketWaitsUpToItsOutputBuffer) {
  ScpConfig c = scp(SelectTeardown::event);
  c.sender_cpu_ps_per_byte = 1000;  // 1 ns per byte: 4096 ns per write
  c.sender_output_buffer = 12288;   // two writes ahead: encrypts while < 12288 bytes wait
  TtcpTransmitterConfig t;
  t.writes = 4;
  t.write_len = 4096;
  t.wakeup = Delay();
  t.send_cost = Delay(Nanos::zero());
  TtcpTransmitter src = make_scp_source(t, {.sndbuf = 8192, .mss = 1460, .stream = true}, c);
  Rng rng(1);
  TxRequest r = src.run(src.connected(Nanos::zero()));
  ASSERT_EQ(r.kind, TxKind::sleep);
  EXPECT_EQ(r.at, Nanos::ns(4096));  // the first write is encrypted before anything is sent
  ASSERT_EQ(src.run(r.at).kind, TxKind::send);
  // The socket makes it wait 100 us (WSAEWOULDBLOCK, then FD_WRITE).
  EXPECT_TRUE(src.sent(Nanos::ns(4096), {.accepted = 0, .would_block = true, .completed = false}, costs).is_never());
  const Nanos w = Nanos::us(100);
  EXPECT_EQ(src.writable(w, rng).at, w);
  ASSERT_EQ(src.run(w).kind, TxKind::send);
  Nanos now = src.sent(w, {.accepted = 4096, .would_block = false, .completed = true}, costs);
  // Writes 2 and 3 were encrypted during the wait (ready at 8192 and 12288 ns): sent at once.
  for (int k = 2; k <= 3; ++k) {
    r = src.run(now);
    ASSERT_EQ(r.kind, TxKind::send) << "write " << k;
    now = src.sent(now, {.accepted = 4096, .would_block = false, .completed = true}, costs);
  }
  // Write 4 could start only when write 1 had left the buffer (at 100 us): ready 4096 ns later.
  r = src.run(now);
  ASSERT_EQ(r.kind, TxKind::sleep);
  EXPECT_EQ(r.at, w + Nanos::ns(4096));
  // Nothing is encrypted before the connection is up: connected at 500 us, the first write waits
  // for its own encryption from then.
  TtcpTransmitter late = make_scp_source(t, {.sndbuf = 8192, .mss = 1460, .stream = true}, c);
  r = late.run(late.connected(Nanos::us(500)));
  ASSERT_EQ(r.kind, TxKind::sleep);
  EXPECT_EQ(r.at, Nanos::us(500) + Nanos::ns(4096));
  // Serially (sender_output_buffer 0) write 2 would wait for its own encryption after the wait.
  c.sender_output_buffer = 0;
  TtcpTransmitter serial = make_scp_source(t, {.sndbuf = 8192, .mss = 1460, .stream = true}, c);
  r = serial.run(serial.connected(Nanos::zero()));
  ASSERT_EQ(serial.run(r.at).kind, TxKind::send);
  now = serial.sent(w, {.accepted = 4096, .would_block = false, .completed = true}, costs);
  r = serial.run(now);
  ASSERT_EQ(r.kind, TxKind::sleep);
  EXPECT_EQ(r.at, w + Nanos::ns(4096));
}

}  // namespace
}  // namespace ackstall::sim
