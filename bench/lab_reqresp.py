#!/usr/bin/env python3
"""Request/response traffic for the labelled scan corpus (bench/scan_cause_corpus.sh).

  server PORT [--reply BYTES] [--think MS]
      accepts one connection; for each request (REQUEST bytes, learnt from the first 4 bytes:
      a big-endian length of the whole request) sends a reply of BYTES after MS of think time.
  client HOST PORT [--requests N] [--request BYTES] [--pieces K] [--nodelay]
      sends N requests of BYTES each, written in K pieces back to back (K = 2 is the classic
      header-then-body write pair that meets Nagle's rule, RFC 896, and the receiver's delayed
      ACK, RFC 1122 4.2.3.2), and reads each reply before the next request.
"""
import argparse
import socket
import struct
import sys
import time


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("peer closed")
        buf += chunk
    return bytes(buf)


def server(args):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(1)
    ls.settimeout(args.accept_timeout)
    conn, _ = ls.accept()
    reply = b"r" * args.reply
    try:
        while True:
            head = recv_exact(conn, 4)
            (length,) = struct.unpack("!I", head)
            recv_exact(conn, length - 4)
            if args.think:
                time.sleep(args.think / 1000.0)
            conn.sendall(reply)
    except EOFError:
        pass
    conn.close()


def client(args):
    s = socket.create_connection((args.host, args.port), timeout=10)
    if args.nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    body = struct.pack("!I", args.request) + b"q" * (args.request - 4)
    cut = [len(body) * i // args.pieces for i in range(args.pieces + 1)]
    for _ in range(args.requests):
        for a, b in zip(cut, cut[1:]):
            s.sendall(body[a:b])
        recv_exact(s, args.reply)
    s.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    sv = sub.add_parser("server")
    sv.add_argument("port", type=int)
    sv.add_argument("--reply", type=int, default=100)
    sv.add_argument("--think", type=float, default=0.0)
    sv.add_argument("--accept-timeout", type=float, default=20.0)
    cl = sub.add_parser("client")
    cl.add_argument("host")
    cl.add_argument("port", type=int)
    cl.add_argument("--requests", type=int, default=50)
    cl.add_argument("--request", type=int, default=200)
    cl.add_argument("--reply", type=int, default=100)
    cl.add_argument("--pieces", type=int, default=1)
    cl.add_argument("--nodelay", action="store_true")
    args = p.parse_args()
    if args.mode == "client" and not 4 <= args.request:
        sys.exit("lab_reqresp.py: --request must be at least 4 bytes (its length header)")
    (server if args.mode == "server" else client)(args)


if __name__ == "__main__":
    main()
