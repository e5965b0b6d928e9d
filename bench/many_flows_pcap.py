#!/usr/bin/env python3
"""Writes a capture of N copies of one TCP connection, each on its own client address and port.

Usage: bench/many_flows_pcap.py TEMPLATE.pcap OUT.pcap N [--layout concurrent|sequential]
                                [--snaplen BYTES]

TEMPLATE is a classic pcap (Ethernet or raw IPv4) holding one IPv4 TCP connection, e.g. one
written by `ackstall sim --pcap`. Copy i keeps the template's packets and timing, shifted by an
offset; its client (the side that sent the first packet) gets the address 172.16.H.L and port
1024 + i % 64000 (H.L = 1 + i // 64000), so N up to 2^16 * 64000 copies are distinct flows. The
IPv4 and TCP checksums are kept valid by the incremental update of RFC 1624 (eqn. 3).

  concurrent  copies start spread over the first half of the template's duration, so all N are
              live at once (from the last start to the first end): a scanner holds N flows;
  sequential  copy i starts 1 ms after copy i-1 ended: one flow is live at a time.

--snaplen cuts each record's captured bytes (the IP header's length still says how much payload
the packet carried, as a capture taken with tcpdump -s does); the default 128 keeps every
Ethernet + IPv4 + TCP header with options and makes 10^5 flows a few hundred MB at most.
Standard library only (bench/scaling.sh runs it).
"""
import argparse
import struct
import sys

LINK_OFFSETS = {1: 14, 101: 0, 228: 0}  # LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4


def fail(msg):
    print(f"many_flows_pcap: {msg}", file=sys.stderr)
    sys.exit(2)


def read_template(path):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if len(blob) < 24:
        fail(f"{path}: not a classic pcap file (shorter than its 24-byte header)")
    magic = blob[:4]
    formats = {b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000),
               b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1)}
    if magic not in formats:
        fail(f"{path}: not a classic pcap file (magic {magic.hex()})")
    endian, frac_ns = formats[magic]
    linktype = struct.unpack(endian + "I", blob[20:24])[0] & 0x0FFFFFFF
    if linktype not in LINK_OFFSETS:
        fail(f"{path}: link type {linktype} not supported (Ethernet or raw IPv4 only)")
    packets = []
    off = 24
    while off + 16 <= len(blob):
        sec, frac, caplen, origlen = struct.unpack(endian + "IIII", blob[off:off + 16])
        data = blob[off + 16:off + 16 + caplen]
        if len(data) < caplen:
            fail(f"{path}: truncated record at byte {off}")
        packets.append((sec * 1_000_000_000 + frac * frac_ns, origlen, data))
        off += 16 + caplen
    if not packets:
        fail(f"{path}: no packets")
    return blob[:24], endian, frac_ns, LINK_OFFSETS[linktype], packets


def ones_sum(words):
    s = sum(words)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def words(b):
    return [(b[j] << 8) | b[j + 1] for j in range(0, len(b), 2)]


def adjust(checksum, add):
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), with `add` = the folded sum of ~m + m'."""
    return ~ones_sum([~checksum & 0xFFFF, add]) & 0xFFFF


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--layout", choices=["concurrent", "sequential"], default="concurrent")
    ap.add_argument("--snaplen", type=int, default=128)
    a = ap.parse_args()
    if a.n < 1 or a.n > 64000 * 65535:
        fail(f"N {a.n} out of range 1..{64000 * 65535}")
    if a.snaplen < 64:
        fail(f"--snaplen {a.snaplen} is below 64 (the headers would be cut)")
    header, endian, frac_ns, l2, packets = read_template(a.template)

    # The template's packets: direction (from the client?), the offsets of what is rewritten.
    first = packets[0][2]
    if len(first) < l2 + 20 or first[l2] >> 4 != 4 or first[l2 + 9] != 6:
        fail(f"{a.template}: the first packet is not IPv4 TCP")
    ihl = (first[l2] & 15) * 4
    client_ip = bytes(first[l2 + 12:l2 + 16])
    client_port = bytes(first[l2 + ihl:l2 + ihl + 2])
    t0 = packets[0][0]
    tmpl = []
    for ts, origlen, data in packets:
        ihl = (data[l2] & 15) * 4
        if data[l2] >> 4 != 4 or data[l2 + 9] != 6 or len(data) < l2 + ihl + 18:
            fail(f"{a.template}: a packet is not IPv4 TCP with its header captured")
        from_client = bytes(data[l2 + 12:l2 + 16]) == client_ip
        ip_at = l2 + (12 if from_client else 16)
        port_at = l2 + ihl + (0 if from_client else 2)
        if bytes(data[ip_at:ip_at + 4]) != client_ip or bytes(data[port_at:port_at + 2]) != client_port:
            fail(f"{a.template}: more than one connection (a packet neither from nor to {client_ip.hex()})")
        keep = bytes(data[:a.snaplen])
        tmpl.append((ts - t0, origlen, keep, ip_at, port_at, l2 + 10, l2 + ihl + 16))
    duration = tmpl[-1][0]
    if a.layout == "concurrent":
        offsets = [i * (duration // 2) // a.n for i in range(a.n)]
    else:
        offsets = [i * (duration + 1_000_000) for i in range(a.n)]

    old = words(client_ip) + words(client_port)

    def flow(i):
        hi, lo = divmod(1 + i // 64000, 256)
        ip = bytes([172, 16, hi, lo])
        port = struct.pack(">H", 1024 + i % 64000)
        new = words(ip) + words(port)
        ip_add = ones_sum([~w & 0xFFFF for w in old[:2]] + new[:2])
        tcp_add = ones_sum([~w & 0xFFFF for w in old] + new)
        return ip, port, ip_add, tcp_add

    frac_div = 1_000_000_000 // (1_000_000 if frac_ns == 1000 else 1_000_000_000)
    out = open(a.out, "wb", buffering=1 << 20)
    out.write(header[:16] + struct.pack(endian + "I", a.snaplen) + header[20:])

    def write(i, f, k):
        ts, origlen, data, ip_at, port_at, ipsum_at, tcpsum_at = tmpl[k]
        ip, port, ip_add, tcp_add = f
        rec = bytearray(data)
        rec[ip_at:ip_at + 4] = ip
        rec[port_at:port_at + 2] = port
        rec[ipsum_at:ipsum_at + 2] = struct.pack(">H", adjust((data[ipsum_at] << 8) | data[ipsum_at + 1], ip_add))
        if tcpsum_at + 2 <= len(data):
            rec[tcpsum_at:tcpsum_at + 2] = struct.pack(
                ">H", adjust((data[tcpsum_at] << 8) | data[tcpsum_at + 1], tcp_add))
        t = t0 + offsets[i] + ts
        out.write(struct.pack(endian + "IIII", t // 1_000_000_000, (t % 1_000_000_000) // frac_div,
                              len(rec), origlen))
        out.write(rec)

    if a.layout == "sequential":
        for i in range(a.n):
            f = flow(i)
            for k in range(len(tmpl)):
                write(i, f, k)
    else:
        # Capture order: by time, then copy, then template order (one int key per packet).
        kbits = max(1, (len(tmpl) - 1).bit_length())
        ibits = max(1, (a.n - 1).bit_length())
        keys = sorted(((offsets[i] + tmpl[k][0]) << (ibits + kbits)) | (i << kbits) | k
                      for i in range(a.n) for k in range(len(tmpl)))
        flows = [flow(i) for i in range(a.n)]
        kmask, imask = (1 << kbits) - 1, (1 << ibits) - 1
        for key in keys:
            i = (key >> kbits) & imask
            write(i, flows[i], key & kmask)
    out.close()
    print(f"{a.n} flows x {len(tmpl)} packets ({a.layout}) -> {a.out}")


if __name__ == "__main__":
    main()
