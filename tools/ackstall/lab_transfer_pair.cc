#include "lab_transfer_pair.h"

#include <cstring>
#include <future>
#include <sstream>
#include <thread>

#include "app.h"
#include "ackstall/lab/netns.h"
#include "ttcp_run.h"

namespace ackstall::tools {
using namespace ::ackstall::lab;  // the lab library (src/lab): namespaces, addresses

namespace {

Status prepare_thread(const char* ns, bool realtime) {
  return realtime ? enter_namespace(ns, kRealtimePriority) : enter_namespace(ns);
}

}  // namespace

PairOutcome run_pair(TtcpConfig tx, TtcpConfig rx, bool realtime, bool ipv6) {
  PairOutcome o;
  tx.transmit = true;
  tx.host = ipv6 ? kAddr6B : kAddrB;
  rx.transmit = false;
  rx.bind = tx.host;
  rx.port = tx.port;
  if (rx.accept_timeout_ms < 0) rx.accept_timeout_ms = 15000;
  std::promise<bool> listening;
  auto ready = listening.get_future();
  std::ostringstream rx_out, rx_err, tx_out, tx_err;
  std::thread receiver([&] {
    bool signalled = false;
    const Io io{rx_out, rx_err};
    if (auto r = prepare_thread(kNsB, realtime); !r) {
      o.rx_code = fail(io, r.error());
    } else {
      o.rx_code = run_ttcp(rx, io, [&](std::uint16_t) {
        signalled = true;
        listening.set_value(true);
      }, &o.rx);
    }
    if (!signalled) listening.set_value(false);
  });
  const Io tx_io{tx_out, tx_err};
  if (ready.get()) {
    std::thread transmitter([&] {
      if (auto r = prepare_thread(kNsA, realtime); !r) {
        o.tx_code = fail(tx_io, r.error());
        return;
      }
      o.tx_code = run_ttcp(tx, tx_io, {}, &o.tx);
    });
    transmitter.join();
  } else {
    o.tx_code = fail(tx_io, "ttcp-t: not started: the receiver failed");
  }
  receiver.join();
  o.tx_out = tx_out.str();
  o.tx_err = tx_err.str();
  o.rx_out = rx_out.str();
  o.rx_err = rx_err.str();
  return o;
}

}  // namespace ackstall::tools
