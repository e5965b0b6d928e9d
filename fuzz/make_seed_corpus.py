#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/{frame_decoder,file_reader}/ (deterministic).

Frames are Ethernet/IPv4/TCP with real-stack option layouts (checksums are not needed by the
decoder and left 0), wrapped in every supported link type; files cover both magics, both byte
orders, every link type, snaplen truncation, and a few broken headers.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
LINKS = {"ethernet": 0, "raw": 1, "sll": 2, "sll2": 3, "null": 4}  # frame_decoder selector
PCAP_LINK = {"ethernet": 1, "raw": 101, "sll": 113, "sll2": 276, "null": 0}
MAC_A, MAC_B = bytes([2, 0, 0, 0, 0, 1]), bytes([2, 0, 0, 0, 0, 2])


def tcp(seq, ack, flags, opts=b"", payload=0, sport=40000, dport=5001, win=512):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (20 + len(opts)) // 4 << 4, flags, win, 0, 0)
    return hdr + opts + bytes((0x20 + (seq + i) % 95) for i in range(payload))


def ipv4(seg, proto=6, frag=0x4000, total=None, ihl_opts=b""):
    ihl = 5 + len(ihl_opts) // 4
    total = 20 + len(ihl_opts) + len(seg) if total is None else total
    return struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total, 1, frag, 64, proto, 0,
                       bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + ihl_opts + seg


def link(kind, ip):
    if kind == "ethernet":
        return MAC_B + MAC_A + b"\x08\x00" + ip
    if kind == "raw":
        return ip
    if kind == "sll":
        return struct.pack("!HHH", 0, 1, 6) + MAC_A + b"\0\0" + b"\x08\x00" + ip
    if kind == "sll2":
        return struct.pack("!HHIHBB", 0x0800, 0, 1, 1, 0, 6) + MAC_A + b"\0\0" + ip
    return struct.pack("<I", 2) + ip


SYN_OPTS = bytes([2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7])
TS_OPTS = bytes([1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6])
XP_SYN = bytes([2, 4, 5, 0xb4, 1, 3, 3, 2, 1, 1, 4, 2])
SACK = bytes([1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2])

SEGMENTS = {
    "syn": tcp(1000, 0, 0x02, SYN_OPTS),
    "synack_xp": tcp(5000, 1001, 0x12, XP_SYN),
    "data_ts": tcp(1001, 5001, 0x18, TS_OPTS, 100),
    "ack_sack": tcp(5001, 1101, 0x10, SACK),
    "bad_opt": tcp(1, 2, 0x10, bytes([2, 9, 0, 0])),
    "fin": tcp(1101, 5001, 0x11),
}


def frames():
    out = {}
    for kind in LINKS:
        for name, seg in SEGMENTS.items():
            out[f"{kind}_{name}"] = (kind, link(kind, ipv4(seg)), 0)
    out["eth_vlan"] = ("ethernet", MAC_B + MAC_A + b"\x81\x00\x00\x05\x08\x00" + ipv4(SEGMENTS["syn"]), 0)
    out["eth_udp"] = ("ethernet", link("ethernet", ipv4(b"\0" * 8, proto=17)), 0)
    out["eth_ipv6"] = ("ethernet", MAC_B + MAC_A + b"\x86\xdd" + b"\x60" + b"\0" * 39, 0)
    out["eth_frag"] = ("ethernet", link("ethernet", ipv4(SEGMENTS["fin"], frag=0x0010)), 0)
    out["eth_ipopts"] = ("ethernet", link("ethernet", ipv4(SEGMENTS["fin"], ihl_opts=b"\x01\x01\x01\x00")), 0)
    out["eth_tso"] = ("ethernet", link("ethernet", ipv4(tcp(1, 2, 0x10, b"", 64), total=0)), 3000)
    out["eth_snap"] = ("ethernet", link("ethernet", ipv4(SEGMENTS["data_ts"]))[:60], 100)
    return out


def pcap_file(records, kind="ethernet", big=False, nano=True, snaplen=65535):
    e = ">" if big else "<"
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    b = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, PCAP_LINK[kind])
    for i, frame in enumerate(records):
        cap = frame[:snaplen]
        b += struct.pack(e + "IIII", 1700000000 + i, 123 * i, len(cap), len(frame)) + cap
    return b


def main():
    fd = os.path.join(HERE, "corpus", "frame_decoder")
    fr = os.path.join(HERE, "corpus", "file_reader")
    os.makedirs(fd, exist_ok=True)
    os.makedirs(fr, exist_ok=True)
    for name, (kind, frame, extra) in frames().items():
        with open(os.path.join(fd, name), "wb") as f:
            f.write(bytes([LINKS[kind]]) + struct.pack("!H", extra) + frame)
    for kind in LINKS:
        recs = [link(kind, ipv4(s)) for s in SEGMENTS.values()]
        for big in (False, True):
            for nano in (False, True):
                name = f"{kind}_{'be' if big else 'le'}_{'ns' if nano else 'us'}.pcap"
                with open(os.path.join(fr, name), "wb") as f:
                    f.write(pcap_file(recs, kind, big, nano))
    # A stop-and-wait transfer with a delayed ACK, cut to 64 bytes per frame.
    conv = [ipv4(tcp(1000, 0, 0x02, SYN_OPTS)), ipv4(tcp(5000, 1001, 0x12, SYN_OPTS, sport=5001, dport=40000))]
    seq = 1001
    for i in range(3):
        conv.append(ipv4(tcp(seq, 5001, 0x18 if i == 2 else 0x10, TS_OPTS, 1448)))
        seq += 1448
        if i == 1 or i == 2:
            conv.append(ipv4(tcp(5001, seq, 0x10, TS_OPTS, sport=5001, dport=40000)))
    with open(os.path.join(fr, "stall_snap64.pcap"), "wb") as f:
        f.write(pcap_file([link("ethernet", c) for c in conv], snaplen=64))
    good = pcap_file([link("ethernet", ipv4(SEGMENTS["syn"]))])
    broken = {
        "truncated_record": good[:-5],
        "truncated_header": good[:30],
        "pcapng": bytes([0x0A, 0x0D, 0x0D, 0x0A]) + b"\0" * 28,
        "huge_incl_len": good[:24] + struct.pack("<IIII", 0, 0, 0x7FFFFFFF, 60),
        "bad_link": good[:20] + struct.pack("<I", 105) + good[24:],
        "empty": b"",
    }
    for name, data in broken.items():
        with open(os.path.join(fr, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
