// The receiver (transfer.h): listen, accept, read until EOF; serve() for --forever.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <vector>

#include "ackstall/net/endpoint.h"
#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/ttcp/pattern.h"
#include "ackstall/ttcp/transfer.h"
#include "interval_clock.h"

namespace ackstall::ttcp {
namespace {

using detail::Clock;

// How often a waiting receiver looks at Config::interrupt.
constexpr int kInterruptPollMs = 100;

core::Result<net::Listener> open_listener(const Config& cfg, const Events& events) {
  auto listener = net::listen_tcp({cfg.bind, cfg.port}, 16);
  if (!listener) {
    return core::fail(fmt::format("listen on {}: {}",
                                  cfg.bind.empty() ? fmt::format("port {}", cfg.port)
                                                   : net::to_string({cfg.bind, cfg.port}),
                                  listener.error().message()));
  }
  if (cfg.sockbuf) {
    if (auto r = net::set_receive_buffer(listener->socket, *cfg.sockbuf); !r) return tl::unexpected(r.error());
  }
  if (events.listening) events.listening(listener->port);
  return listener;
}

// Waits for a connection, looking at the interrupt flag between slices: the socket, or none
// when interrupted (with the signal in `*signal`).
core::Result<net::TcpSocket> accept_next(const Config& cfg, const net::Listener& l, int* signal) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(cfg.accept_timeout_ms);
  for (;;) {
    if ((*signal = detail::interrupted(cfg.interrupt)) != 0) return net::TcpSocket();
    int slice = cfg.interrupt ? kInterruptPollMs : -1;
    if (cfg.accept_timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return core::fail(fmt::format("no transmitter connected within {} ms", cfg.accept_timeout_ms));
      slice = slice < 0 ? static_cast<int>(left) : std::min(slice, static_cast<int>(left));
    }
    auto ready = net::wait_readable(l.socket, slice);
    if (!ready) return core::fail("waiting for a connection: " + ready.error().message());
    if (!*ready) continue;
    auto conn = net::accept_tcp(l.socket);
    if (!conn) return core::fail("accept: " + conn.error().message());
    return conn;
  }
}

// Reads one connection to its end. Interrupted, the result so far (interrupted set).
core::Result<TransferResult> read_connection(const Config& cfg, const Events& events, net::TcpSocket conn) {
  TransferResult res;
  const std::string peer = net::peer_address(conn).value_or("?");
  res.local = net::local_address(conn).value_or("?");
  res.remote = peer;
  if (events.connected) events.connected(peer);
  const auto apply_ack_mode = [&]() -> core::Result<void> {
    if (cfg.ack_mode == AckMode::classic) return net::set_quickack(conn, false);
    if (cfg.ack_mode == AckMode::quickack) return net::set_quickack(conn, true);
    return {};
  };
  if (auto r = apply_ack_mode(); !r) return tl::unexpected(r.error());
  // With an interrupt flag to watch, reads do not block: an idle wait is polled in slices.
  // Not on Windows: there (Wine, Ttcp.ReceiverSurvivesPeerReset) a reset seen through WSAEventSelect reads as a clean
  // end of stream, and the reset must stay an error; a blocked read sees the flag at its return.
#if !defined(_WIN32)
  if (cfg.interrupt) {
    if (auto r = net::set_nonblocking(conn, true); !r) return tl::unexpected(r.error());
  }
#endif

  std::vector<std::byte> buf(static_cast<std::size_t>(cfg.buflen));
  std::vector<std::byte> want(cfg.verify ? buf.size() : 0);
  const auto t0 = Clock::now();
  detail::IntervalClock iv{cfg.interval, t0, &events.interval, cfg.stall_threshold};
  std::uint64_t got = 0;
  const auto lost = [&](const core::Error& e) {
    return core::fail(fmt::format("connection from {} lost after {} bytes: {}", peer, got, e.message()));
  };
  for (;;) {
    const auto began = Clock::now();
    net::RecvOutcome r;
    for (;;) {
      auto one = net::recv_some(conn, buf);
      if (!one) return lost(one.error());
      if (!one->would_block) {
        r = *one;
        break;
      }
      if ((res.interrupted = detail::interrupted(cfg.interrupt)) != 0) break;
      if (auto ready = net::wait_readable(conn, kInterruptPollMs); !ready) return lost(ready.error());
    }
    if (res.interrupted || r.eof) break;
    if (cfg.verify) {
      fill_pattern(std::span(want).first(r.bytes), got);
      if (std::memcmp(want.data(), buf.data(), r.bytes) != 0) {
        std::size_t i = 0;
        while (want[i] == buf[i]) ++i;
        return core::fail(fmt::format("--verify: byte {} is 0x{:02x}, expected 0x{:02x}", got + i,
                                      static_cast<unsigned>(buf[i]), static_cast<unsigned>(want[i])));
      }
    }
    if (!cfg.source_sink && !cfg.data_out->write(reinterpret_cast<const char*>(buf.data()),
                                                 static_cast<std::streamsize>(r.bytes))) {
      return core::fail(fmt::format("writing the output failed after {} bytes", got));
    }
    got += r.bytes;
    ++res.calls;
    if (auto a = apply_ack_mode(); !a) return tl::unexpected(a.error());
    // The first read's wait is the transmitter starting up, not a stall.
    if (res.calls == 1) {
      iv.tick(Clock::now(), got);
    } else {
      iv.call(began, Clock::now(), got);
    }
  }
  if (!cfg.source_sink && !cfg.data_out->flush()) {
    return core::fail(fmt::format("writing the output failed after {} bytes", got));
  }
  const auto t1 = Clock::now();
  conn.close();
  res.bytes = got;
  res.seconds = detail::since(t0, t1);
  iv.finish(res.seconds, got);
  iv.fill(res);
  const std::uint64_t expected = static_cast<std::uint64_t>(cfg.nbuf) * static_cast<std::uint64_t>(cfg.buflen);
  if (cfg.nbuf_set && got != expected && !res.interrupted) {
    return core::fail(fmt::format("{} {}: {} of {} bytes (-n {} -l {})", peer,
                                  got < expected ? "closed early" : "sent more than expected", got,
                                  expected, cfg.nbuf, cfg.buflen));
  }
  return res;
}

// Accepts and reads connections until one carries data (or is interrupted, or fails).
core::Result<TransferResult> next_transfer(const Config& cfg, const Events& events, const net::Listener& l) {
  for (;;) {
    int signal = 0;
    auto conn = accept_next(cfg, l, &signal);
    if (!conn) return tl::unexpected(conn.error());
    if (signal) {
      TransferResult res;
      res.interrupted = signal;
      return res;
    }
    auto res = read_connection(cfg, events, std::move(*conn));
    if (res && res->bytes == 0 && !res->interrupted) {
      if (events.empty) events.empty(res->remote);
      continue;
    }
    return res;
  }
}

}  // namespace

core::Result<TransferResult> receive(const Config& cfg, const Events& events) {
  if (!cfg.source_sink && !cfg.data_out) return core::fail("no output stream here: use -s");
  auto listener = open_listener(cfg, events);
  if (!listener) return tl::unexpected(listener.error());
  return next_transfer(cfg, events, *listener);
}

core::Result<void> serve(const Config& cfg, const Events& events,
                         const std::function<void(const core::Result<TransferResult>&)>& served) {
  if (!cfg.source_sink && !cfg.data_out) return core::fail("no output stream here: use -s");
  auto listener = open_listener(cfg, events);
  if (!listener) return tl::unexpected(listener.error());
  for (;;) {
    int signal = 0;
    // A failure to accept (the listener's, or --accept-timeout-ms) ends the service; a failed
    // connection is reported and the next one served.
    auto conn = accept_next(cfg, *listener, &signal);
    if (!conn) return tl::unexpected(conn.error());
    if (signal) return {};
    auto res = read_connection(cfg, events, std::move(*conn));
    if (res && res->bytes == 0 && !res->interrupted) {
      if (events.empty) events.empty(res->remote);
      continue;
    }
    served(res);
    if (res && res->interrupted) return {};
  }
}

}  // namespace ackstall::ttcp
