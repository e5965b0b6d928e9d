#include "ackstall/ttcp/transfer.h"

namespace ackstall::ttcp {

core::Result<TransferResult> run(const Config& cfg, const Events& events) {
  return cfg.transmit ? transmit(cfg, events) : receive(cfg, events);
}

Config receiver_for(const Config& tx, AckMode mode) {
  Config rx;
  rx.buflen = tx.buflen;
  rx.nbuf = tx.nbuf;
  rx.nbuf_set = tx.nbuf_set && tx.seconds <= 0;
  rx.verify = tx.verify;
  rx.interval = tx.interval;
  rx.ack_mode = mode;
  rx.accept_timeout_ms = 15000;
  return rx;
}

}  // namespace ackstall::ttcp
