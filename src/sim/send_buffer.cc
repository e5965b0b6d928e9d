#include "ackstall/sim/send_buffer.h"

#include <algorithm>

namespace ackstall::sim {

SendBufferAccounting::SendBufferAccounting(const SendBufferConfig& cfg)
    : cfg_(cfg), afd_(cfg.size), isb_(cfg.isb_initial) {
  // SO_SNDBUF unset: Winsock sizes the quota itself, from the ideal send backlog (Learn,
  // "SIO_IDEAL_SEND_BACKLOG_QUERY": dynamic send buffering unless the application sets SO_SNDBUF).
  if (cfg_.unset && cfg_.kind == SendBufferKind::afd) afd_.set_quota(isb_.value());
}

bool SendBufferAccounting::on_delivery_sample(std::int64_t delivered, Nanos interval, Nanos srtt,
                                              std::int64_t peer_window) {
  if (!cfg_.unset || cfg_.kind != SendBufferKind::afd) return false;
  const bool blocked = !afd_.may_send();
  afd_.set_quota(isb_.sample(delivered, interval, srtt, peer_window));
  // A nonblocking writer refused with WSAEWOULDBLOCK is told by FD_WRITE when it may send again;
  // a larger quota lets it [I: that AFD signals FD_WRITE when the buffer grows, not only when a
  // send completes].
  if (blocked && afd_.may_send() && waiting_ == Wait::writable) {
    waiting_ = Wait::none;
    return true;
  }
  return false;
}

SendOutcome SendBufferAccounting::send(std::int64_t len, bool nonblocking) {
  SendOutcome out;
  if (len <= 0) return out;
  switch (cfg_.kind) {
    case SendBufferKind::afd: {
      if (nonblocking) {
        // Seed pseudo-code (sock_send): accept iff bufferedbytes < so_sndbuf, else EAGAIN.
        const bool ok = cfg_.kb214397_literal ? afd_.completes_at_once() : afd_.may_send();
        if (!ok) {
          out.would_block = true;
          waiting_ = Wait::writable;  // FD_WRITE when a buffered send completes (KB823764)
          return out;
        }
        out.completed = true;
      } else {
        // Blocking: always copied (seed pseudo-code); completion per KB214397 rules 1-3.
        out.completed = afd_.completes_at_once();
      }
      out.accepted = len;
      enqueued_ += len;
      afd_.charge(len);
      if (!out.completed) {
        waiting_ = Wait::completion;
      }
      return out;
    }
    case SendBufferKind::bsd: {
      // OpenBSD sosend: space = sbspace; nonblocking and space < min(resid, lowat): EWOULDBLOCK.
      const std::int64_t space = cfg_.size - buffered_;
      if (space <= 0 || space < std::min(len, kBsdLowat)) {
        out.would_block = true;
        waiting_ = Wait::writable;
        wanted_ = std::min(len, kBsdLowat);
        if (!nonblocking) out.completed = false;
        return out;
      }
      out.accepted = std::min(len, space);
      enqueued_ += out.accepted;
      buffered_ += out.accepted;
      return out;
    }
    case SendBufferKind::ns3: {
      // ns-3 TcpSocketBase::Send: m_txBuffer->Add fails unless the whole packet fits.
      const std::int64_t space = cfg_.size - buffered_;
      if (len > space) {
        out.would_block = true;
        waiting_ = Wait::writable;
        wanted_ = len;
        return out;
      }
      out.accepted = len;
      enqueued_ += len;
      buffered_ += len;
      return out;
    }
  }
  return out;
}

bool SendBufferAccounting::on_acked(std::int64_t acked) {
  if (acked <= acked_) return false;
  acked_ = std::min(acked, enqueued_);
  switch (cfg_.kind) {
    case SendBufferKind::afd: {
      // Buffered bytes are released per whole send, when its last byte is ACKed (§1).
      if (afd_.acknowledge(acked_) == 0) return false;
      if (waiting_ == Wait::writable) {
        waiting_ = Wait::none;
        return true;  // FD_WRITE (KB823764; seed pseudo-code)
      }
      if (waiting_ == Wait::completion) {
        // KB214397 rule 3. The withheld send is the newest (the writer is blocked).
        if (afd_.withheld_may_complete()) {
          waiting_ = Wait::none;
          return true;
        }
      }
      return false;
    }
    case SendBufferKind::bsd:
    case SendBufferKind::ns3: {
      buffered_ = enqueued_ - acked_;
      if (waiting_ == Wait::none) return false;
      if (cfg_.size - buffered_ >= wanted_) {
        waiting_ = Wait::none;
        return true;
      }
      return false;
    }
  }
  return false;
}

bool SendBufferAccounting::psh(std::int64_t begin, std::int64_t end) const {
  switch (cfg_.kind) {
    case SendBufferKind::afd:
      // PSH on the last segment of a send [I §1].
      return afd_.send_ends_in(begin, end) || end == enqueued_;
    case SendBufferKind::bsd:
      return end == enqueued_;  // tcp_output: PSH when the segment empties the send buffer
    case SendBufferKind::ns3:
      return false;             // ns-3 never sets PSH
  }
  return false;
}

}  // namespace ackstall::sim
