#include "ackstall/ttcp/transfer.h"

namespace ackstall::ttcp {

core::Result<TransferResult> run(const Config& cfg, const Events& events) {
  return cfg.transmit ? transmit(cfg, events) : receive(cfg, events);
}

}  // namespace ackstall::ttcp
