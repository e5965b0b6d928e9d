// ackstall/sim/send_buffer.h — send-buffer accounting as the application sees it.
//
// Sans-IO value types. The TCP endpoint owns the byte stream; an accounting unit only decides
// (a) how many bytes of an application send are accepted now, (b) when a blocked writer is told
// it may go on (FD_WRITE, a withheld completion, or sowakeup), and (c) where PSH goes, because it
// alone knows the application's send boundaries. Offsets are stream offsets of data bytes
// (0 = first data byte); `acked` is the number of data bytes cumulatively ACKed.
//
//   afd — Winsock AFD (docs/STACKS.md §1; seed pseudo-code; KB214397; KB823764), accounted by
//         core::AfdQuota, the same class the Linux AFD emulator charges real sends against:
//         quota = SO_SNDBUF charged per whole send, released only when the whole send is ACKed.
//         Nonblocking: accepted whole iff buffered < quota (seed: "if (bufferedbytes <
//         so_sndbuf)"), else WSAEWOULDBLOCK and FD_WRITE when a buffered send completes.
//         Blocking: always copied; completion per KB214397 — rule 1 within quota, rule 2 only
//         one send buffered before: complete at once; rule 3 otherwise: withheld until rule 1 or
//         2 holds again for the sends buffered before it.
//         `kb214397_literal` applies rule 2 to nonblocking sends too (as the KB reads; the seed
//         observed XP does not).
//         PSH: on the segment carrying the last byte of a send [I §1].
//         With SO_SNDBUF unset (SendBufferConfig::unset, Windows 7+ dynamic send buffering) the
//         quota is the ideal send backlog (ideal_send_backlog.h), updated at each delivery-rate
//         sample the endpoint reports (on_delivery_sample); a setsockopt (set_size) ends it.
//   bsd — byte-granular (OpenBSD sosend, sowriteable): accepts min(len, space); nonblocking
//         EWOULDBLOCK when space < min(len, sb_lowat); writable again when space >= sb_lowat
//         (2048, MCLBYTES). PSH when a segment empties the buffer (tcp_output, §3).
//   ns3 — TcpSocketBase::Send: a write is accepted only if it fits whole (else error, retry on
//         the send callback); bytes freed as ACKed; no PSH ever (peers/ns3 README).
#pragma once

#include "ackstall/core/afd_quota.h"
#include "ackstall/sim/engine.h"
#include "ackstall/sim/config.h"
#include "ackstall/sim/ideal_send_backlog.h"

#include <cstdint>

namespace ackstall::sim {

struct SendOutcome {
  std::int64_t accepted = 0;  // bytes appended to the stream (0 with would_block)
  bool would_block = false;   // WSAEWOULDBLOCK / EAGAIN: wait for the writable signal
  bool completed = true;      // blocking afd: false = completion withheld (KB214397 rule 3)
};

class SendBufferAccounting {
 public:
  explicit SendBufferAccounting(const SendBufferConfig& cfg);

  // The application offers `len` bytes at stream offset enqueued().
  SendOutcome send(std::int64_t len, bool nonblocking);
  // Cumulative data bytes ACKed by the peer; returns true when a waiting writer must be woken
  // (FD_WRITE after WSAEWOULDBLOCK, a withheld completion released, or buffer space for ns3/bsd).
  bool on_acked(std::int64_t acked);
  // Should the segment [begin, end) carry PSH?
  bool psh(std::int64_t begin, std::int64_t end) const;

  std::int64_t enqueued() const noexcept { return enqueued_; }
  // Bytes charged: to the quota (afd), or held in the buffer (bsd, ns3).
  std::int64_t buffered() const noexcept {
    return cfg_.kind == SendBufferKind::afd ? afd_.charged() : buffered_;
  }
  std::int64_t outstanding_sends() const noexcept {
    return static_cast<std::int64_t>(afd_.outstanding_sends());
  }
  bool writer_waiting() const noexcept { return waiting_ != Wait::none; }
  // setsockopt(SO_SNDBUF): the new size, effective for the next send (Winsock: a new quota,
  // AfdQuota::set_quota).
  void set_size(std::int64_t size) noexcept {
    cfg_.size = size;
    cfg_.unset = false;  // the application set SO_SNDBUF: no dynamic send buffering (Learn)
    afd_.set_quota(size);
  }
  // SO_SNDBUF unset (afd): a delivery-rate sample from the endpoint (IdealSendBacklog::sample);
  // the quota becomes the new ideal send backlog, effective for the next send. Returns true when
  // a writer waiting for FD_WRITE may go on because the quota grew past the bytes charged.
  bool on_delivery_sample(std::int64_t delivered, Nanos interval, Nanos srtt, std::int64_t peer_window);
  // The AFD quota in force (the ideal send backlog while SO_SNDBUF is unset).
  std::int64_t quota() const noexcept { return afd_.quota(); }
  // The ideal send backlog's estimator (SO_SNDBUF unset).
  const IdealSendBacklog& isb() const noexcept { return isb_; }
  const SendBufferConfig& config() const noexcept { return cfg_; }

  static constexpr std::int64_t kBsdLowat = 2048;  // OpenBSD so_snd.sb_lowat = MCLBYTES

 private:
  enum class Wait : std::uint8_t { none, writable, completion };

  SendBufferConfig cfg_;
  std::int64_t enqueued_ = 0;
  std::int64_t acked_ = 0;
  std::int64_t buffered_ = 0;    // bsd, ns3: bytes held
  std::int64_t wanted_ = 0;      // ns3/bsd: size of the write that failed
  Wait waiting_ = Wait::none;
  core::AfdQuota afd_;           // afd: the per-send quota (core/afd_quota.h)
  IdealSendBacklog isb_;         // afd with SO_SNDBUF unset: the quota's source
};

}  // namespace ackstall::sim
