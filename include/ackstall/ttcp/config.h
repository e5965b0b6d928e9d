// ackstall/ttcp/config.h — what one end of a ttcp transfer does (the ackstall ttcp flags, minus
// the presentation ones: the command line adds --json and -v).
//
// Data: with source_sink (-s) a deterministic pattern (pattern.h); without it, as in ttcp, the
// transmitter sends what it reads from `data_in` (reads of up to buflen bytes, one send each,
// until end of input or nbuf buffers) and the receiver writes what it receives to `data_out`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/units.h"

namespace ackstall::ttcp {

// The receiver's ACK behaviour: the OS default, TCP_QUICKACK=0 after every read (a classic
// delayed-ACK receiver) or TCP_QUICKACK=1.
enum class AckMode { normal, classic, quickack };
inline constexpr AckMode kAckModes[] = {AckMode::normal, AckMode::classic, AckMode::quickack};
std::string_view to_string(AckMode m) noexcept;              // "default", "classic", "quickack"
std::optional<AckMode> parse_ack_mode(std::string_view s) noexcept;

struct Config {
  bool transmit = false;           // -t (else -r)
  std::string host;                // -t: where to connect
  // -r: the address to listen on (a v4/v6 literal or a name); empty: every address, IPv6 and
  // IPv4 (one dual-stack socket; IPv4 alone where the host has no IPv6).
  std::string bind;
  bool forever = false;            // -r --forever: serve connections one after another (serve())
  std::uint16_t port = 5001;       // -p (ttcp's default); -r with 0 picks a free port
  std::int64_t nbuf = 2048;        // -n
  bool nbuf_set = false;           // -n given: -t stops after n buffers, -r expects n*l bytes
  std::int64_t buflen = 8192;      // -l
  std::optional<int> sockbuf;      // -b: SO_SNDBUF (-t; the quota under --emulate-afd), SO_RCVBUF (-r)
  bool nodelay = false;            // -D
  bool source_sink = true;         // -s (else data from data_in / to data_out)
  std::istream* data_in = nullptr;   // without -s, -t: the data to send
  std::ostream* data_out = nullptr;  // without -s, -r: where received data goes
  core::PolicyKind chunk = core::PolicyKind::none;  // --chunk
  // --sndbuf-rule: what the sender does with SO_SNDBUF beside the cut (core::SndbufRule): keep,
  // raise (robust may raise it, KB823764's second way; --raise-sndbuf) or ideal-backlog (it
  // follows Windows' ideal send backlog; --chunk isb is seed with it).
  core::SndbufRule sndbuf_rule = core::SndbufRule::keep;
  std::optional<std::int64_t> afd_quota;            // --emulate-afd[=QUOTA] (Linux)
  double seconds = 0;              // --time (0: by -n)
  double interval = 0;             // --interval (0: none)
  bool verify = false;             // --verify: the receiver checks the pattern byte for byte
  AckMode ack_mode = AckMode::normal;  // --ack-mode (-r)
  // --stall-threshold: a send or read (or an emulated quota's completion wait) longer than this
  // is a stall.
  core::StallThreshold stall_threshold = core::kDefaultStallThreshold;
  int connect_timeout_ms = 5000;   // -t: retry refused connects this long (receiver starting)
  int accept_timeout_ms = -1;      // -r: give up waiting for the transmitter (< 0: never)
  // Set (by a signal handler) to a signal number to stop early: the transfer ends at its next
  // send or read (within 100 ms while it waits; on Windows a blocked read sees it when it returns)
  // and returns what it measured so far, with TransferResult::interrupted set. Null: never.
  const std::atomic<int>* interrupt = nullptr;
};

// The receiver for transmitter `tx` (the lab's pair): its buffer length and count (a count only
// for a transfer by count), --verify and --interval, the ACK mode `mode`, and 15 s to wait for
// the transmitter.
Config receiver_for(const Config& tx, AckMode mode);

}  // namespace ackstall::ttcp
