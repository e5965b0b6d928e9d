// ackstall ttcp: the transmitter and receiver, as functions (the CLI, `lab run` and `lab matrix`
// call them; tests call them through run()).
//
// Data: with -s (source_sink) a deterministic pattern; without it, as in ttcp, the transmitter
// sends what it reads from `data_in` (stdin: reads of up to buflen bytes, one send each, until
// end of input or -n buffers) and the receiver writes what it receives to `data_out` (stdout);
// the reports then go to io.err, as ttcp prints them to stderr.
// Transfer: the transmitter writes `nbuf` buffers of `buflen` bytes (or for `seconds`), each as
// one application send through a ChunkedSender (--chunk) — over an emulated Winsock quota when
// afd_quota is set — then half-closes and waits for the receiver to close: the clock stops when
// the receiver has read everything (and, with the quota, when the last byte is ACKed), so the
// rate is delivered goodput. The receiver reads buflen-byte buffers until EOF.
// Errors: one line, returned as text (the caller prefixes "ackstall: "); peer reset or early
// close is an error, never a crash.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/net/afd_emulator.h"
#include "ackstall/net/path_probe.h"
#include "app.h"

namespace ackstall::tools {

enum class AckMode { normal, classic, quickack };
std::string_view to_string(AckMode m) noexcept;
std::optional<AckMode> parse_ack_mode(std::string_view s) noexcept;

struct TtcpConfig {
  bool transmit = false;           // -t (else -r)
  std::string host;                // -t: where to connect
  std::string bind = "0.0.0.0";    // -r: numeric address to listen on
  std::uint16_t port = 5001;       // -p (ttcp's default); -r with 0 picks a free port
  std::int64_t nbuf = 2048;        // -n
  bool nbuf_set = false;           // -n given: -t stops after n buffers, -r expects n*l bytes
  std::int64_t buflen = 8192;      // -l
  std::optional<int> sockbuf;      // -b: SO_SNDBUF (-t; the quota under --emulate-afd), SO_RCVBUF (-r)
  bool nodelay = false;            // -D
  bool verbose = false;            // -v
  bool source_sink = true;         // -s (else data from data_in / to data_out)
  std::istream* data_in = nullptr;   // without -s, -t: the data to send (stdin)
  std::ostream* data_out = nullptr;  // without -s, -r: where received data goes (stdout)
  core::PolicyKind chunk = core::PolicyKind::none;  // --chunk
  bool isb = false;  // --chunk isb: seed under SO_SNDBUF = the ideal send backlog (Windows)
  std::optional<std::int64_t> afd_quota;            // --emulate-afd[=QUOTA]
  double seconds = 0;              // --time (0: by -n)
  double interval = 0;             // --interval (0: none)
  bool verify = false;             // --verify
  bool json = false;               // --json
  AckMode ack_mode = AckMode::normal;  // --ack-mode (-r)
  double stall_ms = 20;            // --stall-ms: a completion wait longer than this is a stall
  int connect_timeout_ms = 5000;   // -t: retry refused connects this long (receiver starting)
  int accept_timeout_ms = -1;      // -r: give up waiting for the transmitter (< 0: never)
};

struct TtcpInterval {
  double start = 0, end = 0;
  std::uint64_t bytes = 0;
};

struct TtcpResult {
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::uint64_t calls = 0;                 // application sends / reads
  std::vector<TtcpInterval> intervals;
  std::optional<net::AfdStats> afd;        // -t --emulate-afd
  // -t: the connection's MSS and timestamps from TCP_INFO (Linux) / SIO_TCP_INFO (Windows 10
  // 1703+) after the transfer; empty where the OS does not say (Wine), with the reason.
  std::optional<std::int64_t> mss;
  bool timestamps = false;
  std::string tcp_info_error;
  std::optional<net::Finding<std::int64_t>> isb;  // -t --chunk isb: the last ISB reading
  double mb_per_s() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0; }
};

// Runs one side. `on_listening(port)` is called by -r once it listens (before accept).
// Returns the exit code; output (ttcp-style text or --json) on io.out, one error line on io.err.
int run_ttcp(const TtcpConfig& cfg, Io io, const std::function<void(std::uint16_t)>& on_listening = {},
             TtcpResult* result = nullptr);

// The deterministic --verify stream: byte i of the transfer (splitmix64 of i / 8).
void fill_pattern(std::span<std::byte> out, std::uint64_t offset) noexcept;

// Registers ttcp's flags on `cmd` (shared by `ttcp` and `lab run -- ...`). `finish()` must be
// called after parsing: it checks combinations and returns "" or a one-line usage error.
struct TtcpCli {
  TtcpConfig cfg;
  bool receive = false;
  bool source_sink = false;
  std::optional<std::int64_t> afd_flag;  // --emulate-afd given (0 = default quota)
  std::string chunk = "none";
  std::string ack_mode = "default";
  void add_to(CLI::App& cmd);
  std::string finish(bool host_required);
};

}  // namespace ackstall::tools
