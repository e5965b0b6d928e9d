#!/usr/bin/env python3
"""Reader wake-up latency of a Linux receiver, from a capture taken on the receiver's interface.

Input: `tshark -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack
[-e tcp.stream]` lines (relative sequence numbers) on stdin; argv[1] = the sender's address;
argv[2] = the reader's base wake-up latency in us (the constant term of the simulator's
app.receiver.read_wakeup).
With the sixth field each TCP connection is analysed on its own and the counts are summed (a
capture of several runs).

Linux (6.1) ACKs the second un-ACKed full segment at once only if the window it would offer is
not smaller than the one advertised (__tcp_ack_snd_check, tcp_input.c). With the first segment
still unread it is smaller; the ACK then goes out when the reader reads (tcp_cleanup_rbuf: more
than one rcv_mss un-ACKed) and covers what has arrived by then. An ACK that covers three or more
segments (none of them past 20 ms: not the delayed-ACK timer) is therefore a read that came after
the third segment's arrival: the reader, woken by the first, was later than t3 - t1.
With the reader's latency L = base + Exp(mean) (the simulator's model), the fraction f of
ACK-pairs so covered gives P(L > t3 - t1) = exp(-(t3 - t1 - base) / mean), so
mean = (median(t3 - t1) - base) / ln(1 / f): `read_jitter_us`, the mean of the exp() term of the
simulator's app.receiver.read_wakeup ("base + exp(mean)"). Also printed: the delay of every ACK
after the arrival of the second segment it covers (kernel processing included), the segments per
ACK, and the read-ACKs' delay after the segment that woke the reader (median and p10:
`late_read_after_1st_us_p10_p50_p90`; p0, p1, ..., p100: `late_read_after_1st_us_percentiles`,
the quantiles of the simulator's rare term "N ppm * quantiles(...)" in app.receiver.read_wakeup;
a late read that comes after the fourth segment covers four and keeps the ACK pairing, so the
spread of late reads matters, not only how many there are), and the same per connection
(`per_connection`, in capture order: one lab run each). With argv[3] = the write length,
`late_reads_by_write_offset`: the late reads by the offset in its write of the first segment they
cover (relative sequence numbers start at 1), each [count, p10, median, p90 of the delay in us]:
at -l 8192 a late read from offset 2896 covers the write's 3rd-5th segments and leaves its short
tail alone. Also with the write length: `ack_patterns`, the writes whose ACKs were not all pairs,
by pattern (segments per ACK in order, `T` for the delayed-ACK timer: `2-3-T1` = a pair, a read
covering three, the tail alone on the timer; an ACK that covers segments of two writes counts in
each), the twelve commonest; and `shifted_writes`: the writes in which a read covering an odd
number (three or more) shifted the pairing before their last ACK, by how they end: on the timer
(`timer`: the tail alone) or not (`restored`: a later odd read, e.g. one that took the tail in);
`timer_after_close_arrival`: of those on the timer, the writes in which the segment that made
the first odd read odd had arrived within 40 us of the one before it (bunched arrivals, where a
read at its usual latency finds both; the others: a late reader).

`read_us_percentiles` (p0 .. p100): the delay from a pair's second segment to its ACK, for ACKs
that cover exactly two segments — where pairs are ACKed at the read (the lab's regime,
docs/STACKS.md §4) the reader's wake-up latency; the top percent (reads so late that no third
segment came, at a write's end) is cut to p99, as those are the late reads below. argv[4] =
`at-read`: count as late only the reads that this latency does not explain, i.e. whose ACK came
more than its p99 (+ 1 us) after the second covered segment (an on-time read that happens to find a third
segment, e.g. a short tail 30-44 us behind, is not late); all late-read outputs then follow this
definition. Prints one JSON object. Nothing here looks at goodput.
"""
import json
import math
import statistics
import sys

TIMER_S = 20e-3       # 20 ms and more: the delayed-ACK timer, not a read
CLOSE_S = 40e-6       # a segment this close behind the one before it came bunched (the shaper or the host late)


def p10_p50_p90_us(xs):
    """The 10th percentile, median and 90th percentile of delays in seconds, in us (0.1 us)."""
    q = statistics.quantiles(xs, n=10) if len(xs) > 1 else [xs[0]] * 9
    return [round(q[0] * 1e6, 1), round(statistics.median(xs) * 1e6, 1), round(q[8] * 1e6, 1)]


def percentiles_us(xs):
    """p0, p1, ..., p100 of delays in seconds, in us (0.1 us): the smallest, the 99
    inclusive-method percentiles, the largest. (Deciles would spread a tenth of the late reads
    evenly up to the largest one, a tail the captures do not have.)"""
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return [round(v * 1e6, 1) for v in [min(xs), *q, max(xs)]]


def ack_coverage(data, acks):
    """Each ACK that advances, with the segments it newly covers that had arrived by its time:
    (ACK time, [segments]). `data`: (arrival time, end seq, seq, ...) in arrival order; `acks`:
    (time, ack number) in capture order. (bench/lab_link_jitter.py counts late reads with it too.)"""
    acked, i = 0, 0
    for ta, ack in acks:
        if ack <= acked:
            continue
        covered = []
        while i < len(data) and data[i][1] <= ack:
            if data[i][0] <= ta:
                covered.append(data[i])
            i += 1
        acked = ack
        yield ta, covered


def is_late_read(ta, covered):
    """A read's ACK, not the delayed-ACK timer's, covering three or more arrived segments."""
    return len(covered) >= 3 and ta - covered[-1][0] < TIMER_S


def main() -> int:
    sender = sys.argv[1]
    base_us = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    write_len = int(sys.argv[3]) if len(sys.argv) > 3 else 0  # > 0: late reads by offset in the write
    if len(sys.argv) > 4 and sys.argv[4] != "at-read":
        sys.exit(f"lab_reader_latency: argv[4] must be at-read (got {sys.argv[4]!r})")
    at_read = len(sys.argv) > 4
    streams = {}  # stream -> (data: [(t, end_seq, seq)] in arrival order, acks: [(t, ack)])
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) < 5 or not f[0]:
            continue
        data, acks = streams.setdefault(f[5] if len(f) > 5 else "", ([], []))
        t, src = float(f[0]), f[1]
        if src == sender:
            ln = int(f[3] or 0)
            if ln > 0:
                data.append((t, int(f[2]) + ln, int(f[2])))
        elif f[4]:
            acks.append((t, int(f[4])))
    # Each connection's ACKs with the segments they cover, once: the read latency below needs all
    # of them before the late reads can be told from on-time ones.
    covers = [(data, acks, list(ack_coverage(data, acks))) for data, acks in streams.values()]
    # The reader's latency: a pair's ACK after its second segment (two covered, not the timer).
    reads = [ta - segs[1][0] for _, _, cov in covers for ta, segs in cov
             if len(segs) == 2 and ta - segs[-1][0] < TIMER_S]
    read_pct = percentiles_us(reads) if len(reads) >= 2 else None
    if read_pct:
        read_pct[-1] = read_pct[-2]  # the top percent: reads late at a write's end (see above)
    # at-read: late = the ACK came more than the reads' p99 (+ 1 us of timestamp jitter) after the
    # second covered segment.
    bound_s = read_pct[-1] / 1e6 + 1e-6 if at_read and read_pct else None  # None: three or more covered
    patterns = {}  # write_len > 0: per-write ACK pattern -> writes
    # Writes whose pairing an odd read shifted, by their end; of those on the timer, how many had the
    # segment that made the first such read odd arrive within CLOSE_S of the one before it.
    shifted = {"timer": 0, "restored": 0, "timer_after_close_arrival": 0}
    pairs, late, timer = 0, [], 0
    d2, t31 = [], []
    per_ack = {}
    n_acks = n_data = 0
    by_offset = {}  # write_len > 0: offset of a late read's first segment in its write -> delays
    runs = []  # per connection (one lab run each), in capture order: its pairs and late reads
    for data, acks, cov in covers:
        pairs0, late0 = pairs, len(late)
        n_acks += len(acks)
        n_data += len(data)
        write_acks = {}  # write index -> its ACKs' coverage, in order
        first_odd_close = {}  # write index -> whether its first odd read's last segment came close
        for ta, segs in cov:
            per_ack[len(segs)] = per_ack.get(len(segs), 0) + 1
            if not segs:
                continue
            covered = [s[0] for s in segs]  # arrival times
            if write_len:
                # The ACK's segments counted per write (pipelined writes share an ACK).
                per_write = {}
                for s in segs:
                    w = (s[2] - 1) // write_len
                    per_write[w] = per_write.get(w, 0) + 1
                for w, n in per_write.items():
                    write_acks.setdefault(w, []).append(("T" if ta - covered[-1] >= TIMER_S else "") + str(n))
                    if n >= 3 and n % 2 and w not in first_odd_close and ta - covered[-1] < TIMER_S:
                        arrived = [s[0] for s in segs if (s[2] - 1) // write_len == w]
                        first_odd_close[w] = arrived[-1] - arrived[-2] < CLOSE_S
            if ta - covered[-1] >= TIMER_S:
                timer += 1
                continue
            if len(covered) < 2:
                continue
            pairs += 1
            d2.append(ta - covered[1])
            if is_late_read(ta, segs) and (bound_s is None or ta - covered[1] > bound_s):
                late.append(ta - covered[0])
                t31.append(covered[2] - covered[0])
                if write_len:
                    by_offset.setdefault((segs[0][2] - 1) % write_len, []).append(ta - covered[0])
        for w, p in write_acks.items():
            if any(x != "2" for x in p):
                key = "-".join(p)
                patterns[key] = patterns.get(key, 0) + 1
                # A read covering an odd number >= 3 shifts the pairing; the write then ends on the
                # timer (its tail alone) or not (a later odd read, e.g. one that took the tail in).
                if any(not x.startswith("T") and int(x) >= 3 and int(x) % 2 for x in p[:-1]):
                    shifted["timer" if p[-1].startswith("T") else "restored"] += 1
                    if p[-1].startswith("T") and first_odd_close.get(w):
                        shifted["timer_after_close_arrival"] += 1
        mine = late[late0:]
        run = {"ack_pairs": pairs - pairs0, "late_reads": len(mine)}
        if mine:
            q = p10_p50_p90_us(mine)
            run["late_read_after_1st_us_median"] = q[1]
            run["late_read_after_1st_us_p10_p50_p90"] = q
        runs.append(run)
    out = {"connections": len(streams), "acks": n_acks, "data_segments": n_data, "segments_per_ack": per_ack,
           "ack_pairs": pairs, "late_reads": len(late), "timer_acks": timer,
           "base_us": base_us,
           "late_definition": "three or more covered" if bound_s is None else "three or more covered, past the reads' p99"}
    if read_pct:
        out["read_us_percentiles"] = read_pct
    if d2:
        out["ack_after_2nd_us_p10_p50_p90"] = p10_p50_p90_us(d2)
    if late:
        q = p10_p50_p90_us(late)
        out["late_read_after_1st_us_median"] = q[1]
        out["late_read_after_1st_us_p10_p50_p90"] = q
        out["late_read_after_1st_us_percentiles"] = percentiles_us(late)
        f = len(late) / pairs
        gap = statistics.median(t31) * 1e6
        out["late_fraction"] = round(f, 6)
        out["t3_minus_t1_us_median"] = round(gap, 1)
        out["read_jitter_us"] = round(max(gap - base_us, 0.0) / math.log(1.0 / f), 1) if f < 1 else 0
    else:
        out["read_jitter_us"] = 0
    if write_len:
        out["late_reads_by_write_offset"] = {str(k): [len(v), *p10_p50_p90_us(v)] for k, v in sorted(by_offset.items())}
        out["ack_patterns"] = dict(sorted(patterns.items(), key=lambda kv: (-kv[1], kv[0]))[:12])
        out["shifted_writes"] = shifted
    out["per_connection"] = runs
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
