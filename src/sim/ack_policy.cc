#include "ackstall/sim/ack_policy.h"

#include "ackstall/sim/ack_bsd.h"
#include "ackstall/sim/ack_count.h"
#include "ackstall/sim/ack_linux.h"

namespace ackstall::sim {

std::unique_ptr<AckPolicy> make_ack_policy(const AckPolicyConfig& c, Nanos tick_phase) {
  switch (c.kind) {
    case AckPolicyKind::openbsd:
      return std::make_unique<BsdAckPolicy>(c.delack_timeout, c.ack_on_push);
    case AckPolicyKind::freebsd:
      // FreeBSD 6 has no ackonpush (§3); its 100 ms comes from the profile's delack_timeout.
      return std::make_unique<BsdAckPolicy>(c.delack_timeout, false);
    case AckPolicyKind::bsd_tick:
      return std::make_unique<BsdAckPolicy>(c.delack_timeout, c.ack_on_push, c.tick, tick_phase);
    case AckPolicyKind::linux_2_6:
      return std::make_unique<LinuxAckPolicy>(LinuxAckFlavor::v2_6, c.ato_min, c.ato_max, c.max_quickacks, c.jiffy);
    case AckPolicyKind::linux:
      return std::make_unique<LinuxAckPolicy>(LinuxAckFlavor::current, c.ato_min, c.ato_max, c.max_quickacks, c.jiffy);
    case AckPolicyKind::linux_pingpong:
      return std::make_unique<LinuxAckPolicy>(LinuxAckFlavor::pingpong, c.ato_min, c.ato_max, c.max_quickacks, c.jiffy);
    case AckPolicyKind::windows:
      return std::make_unique<CountAckPolicy>(c.ack_frequency, c.delack_timeout, false);
    case AckPolicyKind::ns3:
      return std::make_unique<CountAckPolicy>(c.ack_frequency, c.delack_timeout, true);
  }
  return std::make_unique<BsdAckPolicy>(c.delack_timeout, c.ack_on_push);
}

}  // namespace ackstall::sim
