// ackstall/ttcp/transfer.h — the ttcp transfer engine: one end of a connection, as a function.
//
// Transmitter: connects (retrying while refused, up to connect_timeout_ms), writes `nbuf`
// buffers of `buflen` bytes (or for `seconds`), each as one application send through a
// net::ChunkedSender with the chosen policy — over an emulated Winsock quota
// (net::AfdSocketOps) when afd_quota is set — then half-closes and waits for the receiver to
// close: the clock stops when the receiver has read everything (and, with the quota, when the
// last byte is ACKed), so the rate is delivered goodput.
// Receiver: listens, accepts one connection, reads buflen-byte buffers until EOF (checking the
// pattern with verify, applying ack_mode after every read); with nbuf_set, a byte count other
// than nbuf * buflen is an error. A connection that closes before sending a byte (`ackstall
// probe`, a port scanner) is not a transfer: it is reported (Events::empty) and the receiver
// goes on waiting. serve() is the receiver of --forever: one connection after another.
// Interrupted (Config::interrupt), either end returns the partial result, `interrupted` set.
//
// Errors: core::Error, one line without the role ("connect to 10.77.0.2:5001: Connection
// refused", "connection from ... lost after N bytes: ..."); a peer's reset or early close is an
// Error, never a crash — except on the transmitter once connected: a lost connection returns the
// transfer so far with TransferResult::lost set (the report, then the error). Events report progress while the transfer runs (the command line prints
// ttcp's lines from them); every one is optional and runs on the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/error.h"
#include "ackstall/net/path_probe.h"
#include "ackstall/ttcp/config.h"
#include "ackstall/ttcp/result.h"

namespace ackstall::ttcp {

// The transmitter's send path, once set up (before the first send).
struct SenderSetup {
  core::PolicyKind policy = core::PolicyKind::none;  // the policy in effect
  core::SndbufRule sndbuf_rule = core::SndbufRule::keep;  // --sndbuf-rule
  std::int64_t mss = 0, sndbuf = 0, base_chunk = 0;  // what the policy computed from
  std::optional<std::int64_t> afd_quota;             // the emulated quota in effect
  std::optional<net::Finding<std::int64_t>> isb_reading;  // following the ISB: the first reading
  // core::policy_notice for a -l send: why the policy leaves it whole or cannot meet its goals.
  std::optional<std::string> notice;
};

struct Events {
  std::function<void(std::uint16_t port)> listening;      // -r: listening, before accept
  std::function<void(const std::string& peer)> connected;  // -t: connected; -r: accepted
  std::function<void()> nodelay;                           // -t: TCP_NODELAY is set
  std::function<void(const SenderSetup&)> sending;         // -t: before the first send
  std::function<void(const Interval&)> interval;           // an --interval closed (and the
                                                           // last, partial one at the end)
  std::function<void(const std::string& peer)> empty;      // -r: a connection sent nothing
};

core::Result<TransferResult> transmit(const Config& cfg, const Events& events = {});
core::Result<TransferResult> receive(const Config& cfg, const Events& events = {});
// The --forever receiver: listens once, then receives one connection after another, handing each
// one's result (or the error that ended it: the next connection is served all the same) to
// `served`. Returns when interrupted, after handing over the partial result of a connection in
// progress; an error when it cannot listen or accept (including --accept-timeout-ms passing
// with no transmitter).
core::Result<void> serve(const Config& cfg, const Events& events,
                         const std::function<void(const core::Result<TransferResult>&)>& served);
// transmit() or receive(), by cfg.transmit.
core::Result<TransferResult> run(const Config& cfg, const Events& events = {});

}  // namespace ackstall::ttcp
