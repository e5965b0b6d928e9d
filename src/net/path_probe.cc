#include "ackstall/net/path_probe.h"

#include <string>
#include <utility>

namespace ackstall::net {

std::string_view to_string(Provenance p) noexcept {
  return p == Provenance::measured ? "measured" : "fallback";
}

namespace {

// Where measured values come from, named as the platform's own call.
#if defined(_WIN32)
constexpr std::string_view kMtuCall = "GetAdaptersAddresses Mtu of ";
constexpr std::string_view kTcpInfoOptions = "SIO_TCP_INFO TCP_INFO_v0.TimestampsEnabled";
constexpr std::string_view kTcpInfoMss = "SIO_TCP_INFO TCP_INFO_v0.Mss";
#else
constexpr std::string_view kMtuCall = "SIOCGIFMTU on ";
constexpr std::string_view kTcpInfoOptions = "TCP_INFO tcpi_options";
constexpr std::string_view kTcpInfoMss = "TCP_INFO tcpi_snd_mss";
#endif

Finding<std::int64_t> mtu_from(const Result<InterfaceMtu>& r) {
  if (!r) {
    return {kFallbackMtu, Provenance::fallback,
            "fallback: 1500, Ethernet (" + r.error().message() + ")"};
  }
  if (r->mtu < kMtuFloor) {
    return {kMtuFloor, Provenance::fallback,
            "fallback: 576 floor (" + r->interface + " reports " + std::to_string(r->mtu) + ")"};
  }
  return {r->mtu, Provenance::measured, std::string(kMtuCall) + r->interface};
}

Finding<bool> timestamps_from(const Result<TcpInfo>& info) {
  if (info) return {info->timestamps, Provenance::measured, std::string(kTcpInfoOptions)};
  return {false, Provenance::fallback, "fallback: assumed off (" + info.error().message() + ")"};
}

}  // namespace

Finding<std::int64_t> full_segment_mss(const TcpInfo& info) {
  // Linux bounds its sending MSS by half the largest window the peer has offered
  // (tcp_bound_to_half_wnd, net/ipv4/tcp_output.c; docs/STACKS.md §4) and lifts it as that window grows: on
  // loopback tcpi_snd_mss reads half the first window at connect, the full MSS once data flowed
  // (the readings: docs/STACKS.md §4). When
  // the current value sits at that bound, the full segment is this end's own advmss (the same
  // path and stack on both ends announce the same MSS).
  if (info.snd_wnd > 0 && info.advmss > info.snd_mss && info.snd_mss >= info.snd_wnd / 2 - 1) {
    return {info.advmss, Provenance::measured,
            "TCP_INFO tcpi_advmss (tcpi_snd_mss " + std::to_string(info.snd_mss) +
                " is Linux's half-window bound, tcp_bound_to_half_wnd)"};
  }
  return {info.snd_mss, Provenance::measured, std::string(kTcpInfoMss)};
}

namespace {

// TCP_INFO (full_segment_mss), then TCP_MAXSEG, then the seed's MTU - 40 (less timestamps when
// known to be on). `mtu` is called only when both measurements failed.
template <class MtuFn>
Finding<std::int64_t> mss_from(const Result<TcpInfo>& info, const Result<int>& maxseg,
                               MtuFn&& mtu) {
  if (info && info->snd_mss > 0) return full_segment_mss(*info);
  if (maxseg && *maxseg > 0) return {*maxseg, Provenance::measured, "getsockopt(TCP_MAXSEG)"};
  const Finding<std::int64_t> m = mtu();
  const bool ts = info && info->timestamps;
  std::string source = ts ? "fallback: interface MTU - 52 (40 + 12 for timestamps)"
                          : "fallback: interface MTU - 40";
  if (m.provenance == Provenance::fallback) source += ", MTU itself a " + m.source;
  return {m.value - kIpTcpHeaders - (ts ? kTimestampOption : 0), Provenance::fallback,
          std::move(source)};
}

Finding<std::int64_t> sndbuf_from(const Result<int>& reported, bool doubled) {
  if (!reported) {
    return {kFallbackSndbuf, Provenance::fallback,
            "fallback: 8192, the seed's Winsock default (" + reported.error().message() + ")"};
  }
  if (doubled) {
    return {*reported / 2, Provenance::measured,
            "getsockopt(SO_SNDBUF) " + std::to_string(*reported) + " / 2 (kernel reports double)"};
  }
  return {*reported, Provenance::measured, "getsockopt(SO_SNDBUF)"};
}

std::optional<std::int64_t> raw(const Result<int>& r) {
  return r ? std::optional<std::int64_t>(*r) : std::nullopt;
}

}  // namespace

Finding<std::int64_t> probe_mss(Syscalls& calls, NativeSocket s) {
  const auto info = calls.tcp_info(s);
  const auto maxseg = calls.get_option(s, SocketOption::tcp_maxseg);
  return mss_from(info, maxseg, [&] { return mtu_from(calls.interface_mtu(s)); });
}

Finding<std::int64_t> probe_send_buffer(Syscalls& calls, NativeSocket s) {
  return sndbuf_from(calls.get_option(s, SocketOption::send_buffer),
                     calls.ops().send_buffer_reported_doubled());
}

PathReport probe_path(Syscalls& calls, NativeSocket s) {
  PathReport report;
  const auto info = calls.tcp_info(s);
  const auto maxseg = calls.get_option(s, SocketOption::tcp_maxseg);
  const auto ifmtu = calls.interface_mtu(s);
  const auto sndbuf = calls.get_option(s, SocketOption::send_buffer);
  const auto kind = calls.socket_kind(s);

  report.mtu = mtu_from(ifmtu);
  if (ifmtu) report.interface = ifmtu->interface;
  report.timestamps = timestamps_from(info);
  report.mss = mss_from(info, maxseg, [&] { return report.mtu; });
  report.sndbuf = sndbuf_from(sndbuf, calls.ops().send_buffer_reported_doubled());
  report.stream = kind ? kind->stream && kind->ip : true;
  if (info) report.tcp_info_snd_mss = info->snd_mss;
  report.tcp_maxseg = raw(maxseg);
  report.sndbuf_reported = raw(sndbuf);
  return report;
}

}  // namespace ackstall::net
