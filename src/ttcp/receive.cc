// The receiver (transfer.h): listen, accept one connection, read until EOF.
#include <fmt/format.h>

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

core::Result<TransferResult> receive(const Config& cfg, const Events& events) {
  using detail::Clock;
  if (!cfg.source_sink && !cfg.data_out) return core::fail("no output stream here: use -s");
  TransferResult res;
  auto listener = net::listen_tcp({cfg.bind, cfg.port}, 1);
  if (!listener) {
    return core::fail(fmt::format("listen on {}: {}", net::to_string({cfg.bind, cfg.port}),
                                  listener.error().message()));
  }
  if (cfg.sockbuf) {
    if (auto r = net::set_receive_buffer(listener->socket, *cfg.sockbuf); !r) return tl::unexpected(r.error());
  }
  if (events.listening) events.listening(listener->port);
  if (auto ready = net::wait_readable(listener->socket, cfg.accept_timeout_ms); !ready || !*ready) {
    return core::fail(fmt::format("no transmitter connected within {} ms", cfg.accept_timeout_ms));
  }
  auto conn = net::accept_tcp(listener->socket);
  if (!conn) return core::fail("accept: " + conn.error().message());
  listener->socket.close();
  const std::string peer = net::peer_address(*conn).value_or("?");
  if (events.connected) events.connected(peer);
  const auto apply_ack_mode = [&]() -> core::Result<void> {
    if (cfg.ack_mode == AckMode::classic) return net::set_quickack(*conn, false);
    if (cfg.ack_mode == AckMode::quickack) return net::set_quickack(*conn, true);
    return {};
  };
  if (auto r = apply_ack_mode(); !r) return tl::unexpected(r.error());

  std::vector<std::byte> buf(static_cast<std::size_t>(cfg.buflen));
  std::vector<std::byte> want(cfg.verify ? buf.size() : 0);
  const auto t0 = Clock::now();
  detail::IntervalClock iv{cfg.interval, t0, &events.interval};
  std::uint64_t got = 0;
  for (;;) {
    auto r = net::recv_some(*conn, buf);
    if (!r) {
      return core::fail(fmt::format("connection from {} lost after {} bytes: {}", peer, got, r.error().message()));
    }
    if (r->eof) break;
    if (cfg.verify) {
      fill_pattern(std::span(want).first(r->bytes), got);
      if (std::memcmp(want.data(), buf.data(), r->bytes) != 0) {
        std::size_t i = 0;
        while (want[i] == buf[i]) ++i;
        return core::fail(fmt::format("--verify: byte {} is 0x{:02x}, expected 0x{:02x}", got + i,
                                      static_cast<unsigned>(buf[i]), static_cast<unsigned>(want[i])));
      }
    }
    if (!cfg.source_sink && !cfg.data_out->write(reinterpret_cast<const char*>(buf.data()),
                                                 static_cast<std::streamsize>(r->bytes))) {
      return core::fail(fmt::format("writing the output failed after {} bytes", got));
    }
    got += r->bytes;
    ++res.calls;
    if (auto a = apply_ack_mode(); !a) return tl::unexpected(a.error());
    iv.tick(Clock::now(), got);
  }
  if (!cfg.source_sink && !cfg.data_out->flush()) {
    return core::fail(fmt::format("writing the output failed after {} bytes", got));
  }
  const auto t1 = Clock::now();
  conn->close();
  res.bytes = got;
  res.seconds = detail::since(t0, t1);
  iv.finish(res.seconds, got);
  res.intervals = std::move(iv.done);
  res.local = net::to_string({cfg.bind, listener->port});
  res.remote = peer;
  const std::uint64_t expected = static_cast<std::uint64_t>(cfg.nbuf) * static_cast<std::uint64_t>(cfg.buflen);
  if (cfg.nbuf_set && got != expected) {
    return core::fail(fmt::format("{} {}: {} of {} bytes (-n {} -l {})", peer,
                                  got < expected ? "closed early" : "sent more than expected", got,
                                  expected, cfg.nbuf, cfg.buflen));
  }
  return res;
}

}  // namespace ackstall::ttcp
