// ackstall/pcap/stall_scanner.h — finds delayed-ACK stalls in a capture.
//
// Feed decoded TCP packets in capture order with add(); report() summarises every flow seen so
// far (flows ordered by FlowKey, so output is deterministic). Each direction of a flow that
// carried data is analysed on its own: the "sender" sends data, the "receiver" ACKs it.
//
// A stall (one per releasing event) is: the sender has unacknowledged data (payload: a SYN or a
// FIN alone does not count), sends nothing in this direction (its pure ACKs do not count) for
// longer than the path explains — the wait, less the path's floor (the shortest data-to-ACK time
// seen at the capture point, or the handshake's), is >= threshold — and the idle period ends with
//   * a receiver ACK that acknowledges new data or opens the window, or
//   * the sender retransmitting (kind retransmission: a timeout, not the receiver's doing).
// Times are as seen at the capture point: captured at the sender, a gap includes one RTT.
// Kinds, first match wins (docs/STACKS.md §3-§4 for the receiver rules behind them):
//   zero_window    the receiver's last window before the stall was 0;
//   window_update  the releasing ACK acknowledges nothing new, only opens the window;
//   window_limited the sender had filled the advertised window (needs window scaling known from
//                  the handshake, or no scaling);
//   reply          the releasing ACK carried the peer's data: a request answered (request/response
//                  think time), not a timer;
//   delayed_ack    the releasing ACK newly acknowledges exactly one segment, held at most 0.5 s
//                  beyond the floor (RFC 1122 §4.2.3.2): an odd tail the receiver held for its
//                  delayed-ACK timer (BSD: every 2nd segment ACKed at once, a lone one after
//                  200 ms, §3; Linux pingpong: ~40 ms, §4 and lab §7);
//   slow_ack       several segments ACKed late, or one held past 0.5 s (a busy receiver, a
//                  queue, lost ACKs);
//   retransmission see above.
// Time accounts: every moment from the first data segment to the last event of the transfer is
// attributed to one core::LimitCause (core/limit_cause.h; DirectionReport::cause_ns), so the
// accounts sum to duration_ns. Idle time with nothing in flight counts only once more data
// follows (a connection idle after its transfer is not part of it).
// delayed_ack_timeout_ns estimates the receiver's timer: the median hold (ACK delay less the
// floor) of delayed_ack stalls. ack_every summarises the ACKs that came within the threshold: every_second_segment when
// at least half of them acknowledge exactly two segments, every_segment when at least half
// acknowledge one, unknown with fewer than 4 such ACKs, else other (stretch ACKs, GRO).
// Memory: per flow, the segments in flight plus the list of stalls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/core/stall_kind.h"
#include "ackstall/core/units.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/stall_spill.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

// The kinds are core's one vocabulary (core/stall_kind.h); the scanner finds those the table says
// it sees (core::kScannerStallKinds). stall_counts is indexed by the kind's value.
using core::StallKind;
using core::kStallKindCount;
using core::to_string;

enum class AckEvery : std::uint8_t { unknown, every_segment, every_second_segment, other };
std::string_view to_string(AckEvery a) noexcept;

struct Stall {
  std::int64_t start_ns = 0;      // the sender's last segment before it went idle
  std::int64_t end_ns = 0;        // the releasing ACK (or retransmission)
  std::int64_t ack_delay_ns = 0;  // releasing ACK minus send time of the newest segment it ACKs
  std::uint64_t seq = 0;          // relative sequence number of the first unacknowledged byte
  std::uint64_t outstanding = 0;  // bytes unacknowledged while idle
  std::uint32_t segments = 0;     // segments the releasing ACK newly acknowledged
  // Frame numbers (1-based, Wireshark's frame.number; 0 when unknown): the segment that waited
  // (the newest one the releasing ACK covers, else the sender's last before the idle period)
  // and the releasing ACK (or retransmission).
  std::uint64_t segment_frame = 0;
  std::uint64_t release_frame = 0;
  StallKind kind = StallKind::delayed_ack;
  std::int64_t duration_ns() const noexcept { return end_ns - start_ns; }
};

// One direction's waits for the peer's reply linked to the other direction's stalls (a request
// held by a delayed ACK is a response late): a wait is linked to a cause of the peer's stalls when
// its overlap with them sums to at least the stall threshold (src/pcap/reply_link.h).
struct PeerStallLink {
  core::LimitCause cause = core::LimitCause::delayed_ack;  // the stalls' cause, the one overlapped longest
  std::uint64_t waits = 0;         // the waiting direction's waits for the peer's data
  std::uint64_t linked_waits = 0;  // of them, those linked to stalls of that cause
  std::int64_t wait_ns = 0;        // the waiting direction's time waiting for the peer's data
  std::int64_t overlap_ns = 0;     // the time the linked waits overlap those stalls
};

struct DirectionReport {
  SocketAddr sender, receiver;
  std::uint64_t data_segments = 0;           // segments carrying new payload
  // Segments sent again (each counted once, however often it was resent: never more than were
  // sent), and the retransmissions themselves (every segment carrying only sequence space sent
  // before; a segment resent three times by timeout backoff is three).
  std::uint64_t retransmitted_segments = 0;
  std::uint64_t retransmissions = 0;
  // Resends the receiver reported received twice (a D-SACK, RFC 2883): spurious (a tail-loss
  // probe, a timeout too early), counted here and in neither count above.
  std::uint64_t spurious_resends = 0;
  std::uint64_t bytes_sent = 0;   // payload sequence space sent (counts bytes the capture missed)
  std::uint64_t bytes_acked = 0;  // payload sequence space acknowledged, <= bytes_sent
  std::int64_t first_data_ns = 0;
  std::int64_t last_ack_ns = 0;
  double goodput_bytes_per_s = 0;  // bytes_acked / (last_ack_ns - first_data_ns)
  // The MSS option announced for this direction's segments: the receiver's SYN, else (no
  // receiver SYN in the capture) the sender's. effective_mss: the payload of a full segment,
  // the announced MSS minus the timestamps option (12 bytes) when it was negotiated.
  std::optional<std::uint16_t> mss;
  std::optional<std::uint32_t> effective_mss;
  bool timestamps = false;  // negotiated: in both SYNs (or in the sender's when only it was seen)
  // Every stall is counted (stall_count, stall_counts, stalled_ns); the list keeps the first
  // ScanOptions::keep_stalls of them (all by default), so a text report's memory stays flat.
  // With ScanOptions::spill_stalls the ones after those are in `spilled`, in order (on disk).
  std::vector<Stall> stalls;
  std::shared_ptr<StallSpill> spilled;
  std::uint64_t stall_count = 0;
  std::uint64_t max_outstanding_at_stall = 0;  // the most bytes in flight when a stall began
  std::array<std::uint64_t, kStallKindCount> stall_counts{};
  std::int64_t stalled_ns = 0;
  std::optional<std::int64_t> delayed_ack_timeout_ns;
  std::uint64_t prompt_acks_one = 0, prompt_acks_two = 0, prompt_acks_more = 0;
  AckEvery ack_every = AckEvery::unknown;
  // The sender's behaviour, for the diagnosis (diagnosis.h):
  std::uint64_t max_in_flight = 0;       // most payload bytes unacknowledged at any time
  std::uint64_t max_window_offered = 0;  // largest window the receiver advertised (scaled)
  std::uint32_t max_segment = 0;         // largest payload seen (the MSS when none in the SYN)
  std::uint64_t writes = 0;              // PSH-terminated runs of new data (write boundaries)
  std::map<std::uint64_t, std::uint64_t> write_sizes;        // bytes per write -> count
  std::map<std::uint32_t, std::uint64_t> segments_per_write;  // -> count
  std::uint64_t nagle_holds = 0;  // sub-MSS segments sent only once all before them were ACKed
  std::uint64_t nagle_hold_frame = 0;  // the first one's frame
  std::optional<std::int64_t> handshake_rtt_ns;  // SYN -> SYN/ACK -> ACK as seen at the capture
  // From the handshake's last ACK to this direction's first data, and whether the peer had sent
  // data (a request) by then: an application's latency before the transfer, outside its accounts.
  std::optional<std::int64_t> wait_before_data_ns;
  bool peer_spoke_first = false;
  std::optional<std::uint8_t> receiver_wscale;
  // The median spacing of two consecutive full-size new-data segments (0: none seen): where the
  // capture point is at or after the bottleneck, the link's serialisation time of one frame. The
  // median, not the shortest: a token-bucket shaper (the lab's tbf) lets a burst of two frames
  // through back to back after every pause, which made the shortest spacing claim twice the rate.
  std::int64_t back_to_back_ns = 0;
  // Where the time went (core/limit_cause.h): sums to duration_ns, from the first data segment
  // to the transfer's last event (trailing idle time excluded).
  core::CauseTimes cause_ns{};
  std::int64_t duration_ns = 0;
  std::array<std::uint64_t, core::kLimitCauseCount> cause_events{};  // intervals counted per cause
  // The path's floor: the shortest sender -> receiver -> sender time seen at the capture point
  // (data to its ACK, or the handshake's SYN to SYN/ACK): about one RTT captured at the sender,
  // about zero at the receiver. A wait no longer than it is the path, not a stall.
  std::optional<std::int64_t> rtt_floor_ns;
  // Waits for ACKs that were prompt (beyond the floor < threshold), and the flight at them: the
  // in-flight plateau (send buffer or quota) versus a growing congestion window.
  std::uint64_t flight_waits = 0;
  std::uint64_t flight_p25 = 0, flight_p50 = 0, flight_p90 = 0;
  // The capture was taken beside the receiver (its data-to-ACK floor is under a quarter of the
  // handshake's round trip): the flight quantiles above are then the new bytes per handshake
  // round trip (Little's law), flight_waits the round trips counted.
  bool flight_per_round = false;
  // Segments missing from the capture: bytes the receiver ACKed that no captured segment carried,
  // and sequence holes (new data beyond the highest seen).
  std::uint64_t uncaptured_bytes = 0;
  std::uint64_t sequence_holes = 0;
  // A capture that begins mid-stream: the receiver's ACKs came before the first captured data
  // segment (the time from the first of them is accounted, half_flow.h Prologue): the bytes they
  // ACKed, and how long their window was zero.
  bool starts_mid_stream = false;
  // Neither SYN was captured: the window scale, the MSS and the handshake's round trip are
  // unknown (evidence.h: a flight's limit is then not told).
  bool no_handshake = false;
  // Without the handshake, where the sender stopped each round settled the flight's limit
  // (src/pcap/scale_fit.h): receiver_window or send_buffer; evidence.h's mid-stream rule then
  // judges a direction whose time went mostly to it.
  std::optional<core::LimitCause> mid_stream_limit;
  // Segments left at 90 % or more of their back-to-back rate while the flight set the pace (the
  // path was full).
  bool path_full = false;
  std::uint64_t acked_before_data_bytes = 0;
  std::int64_t zero_window_before_data_ns = 0;
  std::uint64_t loss_events = 0;  // retransmissions starting a recovery (RFC 5681 §3.2, RFC 6298)
  // Of them: a write's last segment lost before the capture point, seen only as resent by a timer
  // (HalfFlow's idle branch: a mid-write idle the ACK did not end).
  std::uint64_t unseen_tail_losses = 0;
  std::uint64_t zero_window_acks = 0;
  std::uint64_t peer_data_bytes = 0;  // the receiver's own payload seen (request/response)
  std::uint8_t sender_ttl = 0, receiver_ttl = 0;  // as captured (0: unknown)
  bool receiver_sack = false;  // SACK permitted in the receiver's SYN (RFC 2018)
  // Connections on the same addresses and ports before the one reported (a SYN with a new
  // initial sequence number starts the report afresh).
  std::uint64_t earlier_connections = 0;
  // With ScanOptions::cause_timeline: the accounts in time order, adjacent spans of one cause
  // merged (what `scan --plot` draws as bands); at most ScanOptions::max_timeline_spans.
  struct CauseSpan {
    std::int64_t start_ns = 0, end_ns = 0;
    core::LimitCause cause = core::LimitCause::network;
  };
  std::vector<CauseSpan> timeline;
  // New data sent with nothing in flight (everything sent before was ACKed): how often, and the
  // median time the sender had sat idle before (from the later of the last ACK and its last
  // segment). Where these gaps fill much of the transfer, the application, not TCP, set the pace
  // (the seed's scp rows: a pipe thread's 10 ms sleep).
  std::uint64_t idle_starts = 0;
  std::optional<std::int64_t> idle_before_send_ns;
  // Frames of this direction captured twice (capture_artefacts.h): left out of every figure.
  std::uint64_t duplicate_frames = 0;
  // Frames of this direction captured again as a router forwarded them (capture_artefacts.h):
  // left out of every figure.
  std::uint64_t forwarded_copies = 0;
  // The cause the prompt waits for ACKs were given (send_buffer, receiver_window or network).
  core::LimitCause flight_cause = core::LimitCause::network;
  // Request/response (src/pcap/reply_link.h): this direction's waits for the peer's data
  // (peer_reply) that overlap the other direction's stalls, and the converse. Set when two or
  // more waits overlap stalls of one cause; the waiting direction's waits_on_peer and the stalled
  // direction's delays_peer are the same link.
  std::optional<PeerStallLink> waits_on_peer;
  std::optional<PeerStallLink> delays_peer;
};

struct FlowReport {
  FlowKey key;
  std::uint64_t packets = 0;
  std::vector<DirectionReport> directions;  // directions that carried data, a->b first
};

struct ScanOptions {
  core::StallThreshold threshold = core::kDefaultStallThreshold;  // a wait longer than this is a stall
  std::size_t keep_stalls = std::numeric_limits<std::size_t>::max();  // DirectionReport::stalls
  bool spill_stalls = false;  // the stalls past keep_stalls go to DirectionReport::spilled
  bool cause_timeline = false;  // keep DirectionReport::timeline
  std::size_t max_timeline_spans = std::size_t{1} << 20;
  // Called as each stall is found (live capture prints them), with the direction's ends.
  std::function<void(const SocketAddr& sender, const SocketAddr& receiver, const Stall&)> on_stall;
};

class StallScanner {
 public:
  explicit StallScanner(ScanOptions options = {});
  StallScanner(StallScanner&&) noexcept;
  StallScanner& operator=(StallScanner&&) noexcept;
  ~StallScanner();

  // IPv4 packets: addresses from the packet, frame numbers counted from 1 by add().
  void add(const TcpPacket& packet);
  // Any IP version: the flow's addresses and the frame number given by the caller; ip_id the
  // IPv4 Identification (0: none), which tells a frame captured twice (capture_artefacts.h).
  void add(const TcpPacket& packet, const SocketAddr& src, const SocketAddr& dst,
           std::uint64_t frame, std::uint8_t ttl = 0, std::uint16_t ip_id = 0);
  // Every flow's report, in the order of their keys (a key used again after its connection was
  // retired, a port reused, is a connection of its own, after the earlier one).
  std::vector<FlowReport> report() const;
  // The same, moving the retired connections' reports out (the scanner is done after it): no
  // second copy of them at the end of a long capture.
  std::vector<FlowReport> take_report();
  // Flows whose state is held (not yet retired).
  std::size_t flow_count() const noexcept { return flows_.size(); }

  // A connection closed in both directions (a FIN each way) or reset is retired this long after,
  // in capture time: its state (two HalfFlows, ~9.5 KB) becomes its report (~1 KB), so memory
  // grows with the connections open at once, not with every one the capture held. Packets after
  // it (a late retransmitted FIN) are rare: RFC 9293 §3.6's TIME-WAIT is 2 MSL, but a peer's
  // last ACK or FIN retransmission comes within an RTO (RFC 6298: 1 s initial, backed off).
  static constexpr std::int64_t kRetireAfterNs = 10'000'000'000;

 private:
  struct Flow;
  void retire_closed(std::int64_t now_ns);  // those closed kRetireAfterNs before now
  static FlowReport report_of(const FlowKey& key, const Flow& flow);
  ScanOptions options_;
  std::map<FlowKey, std::unique_ptr<Flow>> flows_;
  std::vector<FlowReport> retired_;
  std::deque<std::pair<std::int64_t, FlowKey>> closing_;  // (closed at, key), in closing order
  std::uint64_t added_ = 0;
  Flow* last_ = nullptr;  // cache: consecutive packets usually belong to one flow
  FlowKey last_key_{};
};

}  // namespace ackstall::pcap
