#!/usr/bin/env python3
"""Capture artefacts for the diagnosis corpus (issue 37): rewrites a classic pcap (Ethernet or raw
IPv4/IPv6, as `ackstall sim --pcap` and `dumpcap -F pcap` write) the way real captures go wrong.
Standard library only.

  dup        every frame twice, the copy 1-9 us later (same IP ID: a mirrored port, two capture
             interfaces)
  snap96     every record cut to 96 bytes (snaplen 96; the original length kept)
  midstart   the first FRACTION of the records left out (a capture started mid-stream)
  cut        the last FRACTION left out (a capture stopped early)
  oneway     only the frames of the direction that carried the most payload (one direction captured)
  drops      each data frame left out with probability FRACTION (kernel drops)

Usage: artefacts.py IN.pcap OUT.pcap KIND [FRACTION] [SEED]
"""
import random
import struct
import sys


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise SystemExit(f"artefacts.py: {path}: not a classic pcap file")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    header = data[:24]
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    records = []
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", data[off:off + 16])
        body = data[off + 16:off + 16 + incl]
        if len(body) < incl:
            break
        records.append([sec, frac, orig, body])
        off += 16 + incl
    return endian, nano, header, linktype, records


def write_pcap(path, endian, header, records, snaplen=None):
    out = bytearray(header)
    if snaplen is not None:
        out[16:20] = struct.pack(endian + "I", snaplen)
    for sec, frac, orig, body in records:
        out += struct.pack(endian + "IIII", sec, frac, len(body), orig) + body
    with open(path, "wb") as f:
        f.write(out)


def tcp_of(linktype, body):
    """(src, dst, payload_len) of a TCP frame, else None."""
    off = 0
    if linktype == 1:  # Ethernet
        if len(body) < 14:
            return None
        etype = struct.unpack(">H", body[12:14])[0]
        off = 14
        if etype == 0x8100:
            etype = struct.unpack(">H", body[16:18])[0]
            off = 18
    elif linktype in (101, 228, 229):  # raw IP
        etype = 0x0800 if body[0] >> 4 == 4 else 0x86DD
    else:
        return None
    if etype == 0x0800 and len(body) >= off + 20:
        ihl = (body[off] & 15) * 4
        total = struct.unpack(">H", body[off + 2:off + 4])[0]
        if body[off + 9] != 6:
            return None
        src, dst = body[off + 12:off + 16], body[off + 16:off + 20]
        tcp = off + ihl
        ip_payload = total - ihl
    elif etype == 0x86DD and len(body) >= off + 40:
        if body[off + 6] != 6:
            return None
        src, dst = body[off + 8:off + 24], body[off + 24:off + 40]
        tcp = off + 40
        ip_payload = struct.unpack(">H", body[off + 4:off + 6])[0]
    else:
        return None
    if len(body) < tcp + 14:
        return None
    sport, dport = struct.unpack(">HH", body[tcp:tcp + 4])
    doff = (body[tcp + 12] >> 4) * 4
    return (src, sport), (dst, dport), max(ip_payload - doff, 0)


def add_us(sec, frac, us, nano):
    unit = 1000 if nano else 1
    frac += us * unit
    top = 10**9 if nano else 10**6
    return sec + frac // top, frac % top


def apply(kind, records, linktype, nano, fraction, rng):
    n = len(records)
    if kind == "dup":
        out = []
        for r in records:
            out.append(r)
            sec, frac = add_us(r[0], r[1], rng.randint(1, 9), nano)
            out.append([sec, frac, r[2], r[3]])
        return out
    if kind == "snap96":
        return [[s, f, o, b[:96]] for s, f, o, b in records]
    if kind == "midstart":
        return records[int(n * fraction):]
    if kind == "cut":
        return records[:max(1, int(n * (1 - fraction)))]
    if kind in ("oneway", "drops"):
        bytes_by_src = {}
        for r in records:
            t = tcp_of(linktype, r[3])
            if t:
                bytes_by_src[t[0]] = bytes_by_src.get(t[0], 0) + t[2]
        sender = max(bytes_by_src, key=bytes_by_src.get) if bytes_by_src else None
        out = []
        for r in records:
            t = tcp_of(linktype, r[3])
            from_sender = t is not None and t[0] == sender
            if kind == "oneway" and not from_sender:
                continue
            if kind == "drops" and from_sender and t[2] > 0 and rng.random() < fraction:
                continue
            out.append(r)
        return out
    if kind == "none":
        return records
    raise SystemExit(f"artefacts.py: unknown artefact {kind}")


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, dst, kind = argv[:3]
    fraction = float(argv[3]) if len(argv) > 3 else 0.3
    rng = random.Random(int(argv[4]) if len(argv) > 4 else 1)
    endian, nano, header, linktype, records = read_pcap(src)
    out = apply(kind, records, linktype, nano, fraction, rng)
    write_pcap(dst, endian, header, out, 96 if kind == "snap96" else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
