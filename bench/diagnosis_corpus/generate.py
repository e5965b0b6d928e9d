#!/usr/bin/env python3
"""The ground-truth corpus of `ackstall scan`'s diagnosis (issue 37): captures whose limiting cause
is known by construction, drawn at random over their parameters from a seed, so that the same seed
makes the same corpus (the simulator is deterministic; the lab's kernels are not, but its draws
are the same).

Each capture's truth is the cause scan must name for the data direction (the problem when there is
one, else the dominant cause; core/limit_cause.h's names), or `too_little` where the capture holds
too little to judge (3-9 segments; one direction only, no ACK). Sources:

  sim   `ackstall sim --defaults --set ... --pcap F --pcap-at wire|sender|receiver`:
        delayed_ack   a per-send quota (Winsock's AFD SO_SNDBUF) x a delayed-ACK receiver (BSD,
                      FreeBSD, Linux pingpong, Windows timers), writes of an odd number of segments
        network       bulk with buffers far above the path's bandwidth-delay product (line rate)
        send_buffer   bulk over a 10-40 ms path from a byte-freed send buffer of 4-12 KiB
        receiver_window  bulk over a 10-40 ms path to a 4-12 KiB receive buffer
        loss          bulk into a drop-tail queue of 3-6 packets at 10-20 Mbit/s
  lab   `ackstall lab` (root; real Linux kernels), captured with dumpcap at the sender's veth, the
        receiver's, or in the middle (the delay line's host, ackstall-m, on its end towards the
        sender or the receiver; the path then has `--rtt`); each kind at each vantage point in turn:
        sender_app    writes of 500-4000 bytes fed from a pipe every 20-80 ms
        sender_app    a polling client (a 400-byte request, a 100-byte reply, then a pause of 30-100 ms;
                      TCP_NODELAY): the poller's direction
        delayed_ack   request/response whose requests go in two pieces (Nagle x delayed ACK)
        receiver_window  a receiver whose reader stops for 1-2 s (zero window)
        peer_reply    request/response whose server takes 20-80 ms to answer each request (the
                      client's direction waits on its peer's reply)
        loss          random: bulk over a 10-20 ms path whose shaper queue UDP bursts at random
                      moments share; burst: bulk over a 20-30 ms path into a 15-25 KB queue;
                      tail (`--lab-extra`, after COUNT): request/response over a 10-20 ms path whose
                      delay line drops each request's last segment with probability 0.3-0.5
        At the sender, the kinds that write more than an MSS at once run with segmentation offload
        (`offload`: the veth's gso_max_segs back to 65535), so dumpcap sees super-segments.
Then an artefact (artefacts.py) on part of them: dup, snap96, midstart, cut, oneway, drops; and
`tiny`: the transfer cut at the source to 3-9 segments.

Usage: generate.py --ackstall BIN --out DIR [--seed N] [--count N] [--lab N] [--lab-extra N] [--first K]
                   [--sim-only]
Writes DIR/NAME.pcap and DIR/manifest.json ({"seed":..., "captures": {NAME: {...}}}).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
ARTEFACTS = ["dup", "snap96", "midstart", "cut", "drops", "oneway", "tiny"]


def sim_case(rng, kind):
    """(truth, --set list) for a simulator case of KIND."""
    s = {"app.transmitter.nonblocking": "true"}
    rate = rng.choice(["10mbit", "20mbit", "50mbit", "100mbit"])
    if kind == "quota_delack":
        s.update({"sender.profile": "winxp",
                  "receiver.profile": rng.choice(["openbsd-3.9", "freebsd-6", "linux-pingpong", "windows"]),
                  "app.transmitter.write_len": rng.choice([8192, 10000, 15928, 12000]),
                  "app.transmitter.writes": rng.randint(20, 60),
                  "link.prop_delay": rng.choice(["25ns", "50us", "200us", "1ms"]),
                  "link.rate": rate})
        return "delayed_ack", s
    if kind == "line":
        s.update({"sender.profile": "winxp", "sender.send_buffer.kind": "bsd",
                  "sender.send_buffer.size": "256k", "receiver.profile": "linux",
                  "receiver.rcvbuf": "64k",
                  "app.transmitter.write_len": rng.choice(["16k", "32k", "64k"]),
                  "app.transmitter.writes": rng.randint(20, 60),
                  "link.prop_delay": rng.choice(["25ns", "20us", "100us"]),
                  "link.rate": rate})
        return "network", s
    if kind in ("send_buffer", "receiver_window"):
        # Bulk over a 10-40 ms path, the one buffer small (4-12 KiB), the other far above it.
        small = rng.choice(["4k", "6k", "8k", "12k"])
        s.update({"sender.profile": "winxp", "sender.send_buffer.kind": "bsd",
                  "sender.send_buffer.size": small if kind == "send_buffer" else "256k",
                  "receiver.profile": "linux", "receiver.rcvbuf": small if kind == "receiver_window" else "64k",
                  "app.transmitter.write_len": "64k", "app.transmitter.writes": rng.randint(4, 10),
                  "link.prop_delay": rng.choice(["5ms", "10ms", "20ms"]), "link.rate": "100mbit"})
        return kind, s
    if kind == "loss":
        s.update({"sender.profile": "winxp", "sender.send_buffer.kind": "bsd",
                  "sender.send_buffer.size": "256k", "receiver.profile": "linux",
                  "receiver.rcvbuf": "64k", "link.queue_limit_packets": rng.randint(3, 6),
                  "app.transmitter.write_len": "64k", "app.transmitter.writes": rng.randint(10, 30),
                  "link.prop_delay": rng.choice(["1ms", "2ms", "5ms"]),
                  "link.rate": rng.choice(["10mbit", "20mbit"])})
        return "loss", s
    raise ValueError(kind)


SIM_KINDS = ["quota_delack", "line", "send_buffer", "receiver_window", "loss"]
# The draw of the first corpus (its kinds consumed from the seed's stream, so that the simulator's
# entries stay what they were); each lab entry's kind and vantage are then taken in turn from
# LAB_KINDS x LAB_VANTAGES (every kind at every vantage point), its parameters from its own seed.
LAB_KINDS_V1 = ["app_paced", "app_polling", "nagle_reqresp", "zero_window"]
LAB_KINDS = ["app_paced", "app_polling", "nagle_reqresp", "zero_window", "reqresp_latency", "random_loss",
             "burst_loss"]
LAB_VANTAGES = ["sender", "receiver", "middle"]
# Lab kinds added after the fourth round: their entries come after the COUNT entries above
# (`--lab-extra N`), drawn from a stream of their own (EXTRA_STREAM), so that every earlier entry,
# simulator and lab, stays what it was; each kind at each vantage point in turn again.
LAB_KINDS_EXTRA = ["tail_loss"]
EXTRA_STREAM = "lab-extra-{seed}"
# Kinds whose sender writes more than an MSS at once: captured at the sender with segmentation
# offload on, dumpcap sees the stack's super-segments.
OFFLOAD_KINDS = ("app_paced", "zero_window", "random_loss", "burst_loss")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def make_sim(ackstall, out_pcap, sets, at):
    cmd = [ackstall, "sim", "--defaults", "--no-causes", "--pcap", out_pcap, "--pcap-at", at]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    run(cmd)


def lab_case(rng, kind, middle=False):
    """(truth, lab up args, receiver shell, sender shell) with @A / @B for the two namespaces'
    command prefixes and @S for the source tree. MIDDLE: the path gets the delay line's host."""
    rr = "python3 @S/bench/lab_reqresp.py"
    if kind == "reqresp_latency":
        # The server's application takes 20-80 ms to answer each request (TCP_NODELAY both ways):
        # the client's direction waits on its peer's reply.
        n, req, think = rng.randint(15, 30), rng.choice([400, 600, 1000]), rng.choice([20, 40, 60, 80])
        return ("peer_reply", "--rtt 4ms" if middle else "", f"@B {rr} server 5001 --think {think}",
                f"@A {rr} client 10.77.0.2 5001 --requests {n} --request {req} --nodelay")
    if kind == "random_loss":
        # Bulk over a 10-20 ms path whose shaper queue (30000 bytes) is shared with UDP bursts of
        # 10-30 frames at random moments (no capture filter lets them in): the transfer's segments
        # are dropped where a burst meets them, at random (the lab has no netem, no tc actions).
        up = f"--rtt {rng.choice([10, 20])}ms --queue-bytes 30000"
        udp = ("python3 -c \"import socket,random,time\nr=random.Random(%d)\n"
               "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\nwhile True:\n"
               " time.sleep(r.uniform(0.05,0.3))\n for _ in range(r.randint(10,30)): s.sendto(b'u'*1400,('10.77.0.2',9))\"")
        return ("loss", up, "@B ttcp -r -s --accept-timeout-ms 20000 >/dev/null 2>&1",
                f"@A ttcp -t -s -l 65536 -n {rng.randint(30, 60)} 10.77.0.2", "@A " + udp % rng.randrange(1 << 30))
    if kind == "burst_loss":
        # Bulk over a 20-30 ms path into a shaper queue of 15000-25000 bytes: slow start overfills
        # it, several segments of a flight lost together (the labelled `loss` capture's recipe).
        return ("loss", f"--rtt {rng.choice([20, 30])}ms --queue-bytes {rng.choice([15000, 20000, 25000])}",
                "@B ttcp -r -s --accept-timeout-ms 20000 >/dev/null 2>&1",
                f"@A ttcp -t -s -l 65536 -n {rng.randint(30, 60)} 10.77.0.2")
    if kind == "tail_loss":
        # Request/response over a 10-20 ms path whose delay line drops a request's last segment
        # (PSH: each write's tail) with probability 0.3-0.5 (`lab up --drop-tails P --drop-seed S`,
        # lab/tail_drop.h): requests of 3-6 segments (TCP_NODELAY), a 100-byte reply at once. A
        # lost tail has no segment after it to draw duplicate ACKs: the client recovers by a
        # tail-loss probe or a timeout (RFC 8985 §7), and the next request waits for it.
        rtt, p, drop_seed = rng.choice([10, 20]), rng.choice([0.3, 0.4, 0.5]), rng.randrange(1 << 30)
        n, req = rng.randint(20, 40), 1448 * rng.randint(3, 6) - rng.randint(0, 1000)
        return ("loss", f"--rtt {rtt}ms --drop-tails {p} --drop-seed {drop_seed}", f"@B {rr} server 5001",
                f"@A {rr} client 10.77.0.2 5001 --requests {n} --request {req} --nodelay")
    if kind == "app_paced":
        n, size, gap = rng.randint(15, 30), rng.randint(500, 4000), rng.choice([0.02, 0.04, 0.06, 0.08])
        tx = f"for i in $(seq {n}); do head -c {size} /dev/zero; sleep {gap}; done | @A ttcp -t -l {size} 10.77.0.2"
        return "sender_app", "--rtt 4ms" if middle else "", "@B ttcp -r -s --accept-timeout-ms 20000 >/dev/null 2>&1", tx
    if kind == "app_polling":
        # A poller: one request, its reply, then the client's own pause before the next poll.
        n, gap = rng.randint(15, 30), rng.choice([0.03, 0.05, 0.1])
        tx = (f"python3 -c \"import socket,time,struct\ns=socket.create_connection(('10.77.0.2',5001))\n"
              f"s.setsockopt(socket.IPPROTO_TCP,socket.TCP_NODELAY,1)\n"
              f"for i in range({n}):\n s.sendall(struct.pack('!I',400)+b'q'*396)\n b=b''\n"
              f" while len(b)<100: b+=s.recv(100-len(b))\n time.sleep({gap})\ns.close()\"")
        return "sender_app", "--rtt 4ms" if middle else "", f"@B {rr} server 5001 --reply 100", "@A " + tx
    if kind == "nagle_reqresp":
        n, req = rng.randint(15, 30), rng.choice([400, 600, 1000])
        return ("delayed_ack", "--rtt 4ms" if middle else "", f"@B {rr} server 5001",
                f"@A {rr} client 10.77.0.2 5001 --requests {n} --request {req} --pieces 2")
    if kind == "zero_window":
        stop = rng.choice([1, 2])
        return ("receiver_window", "--rtt 4ms" if middle else "", f"@B ttcp -r -b 4096 | (sleep {stop}; cat > /dev/null)",
                f"@A ttcp -t -s -l 8192 -n {rng.randint(60, 120)} 10.77.0.2")
    raise ValueError(kind)


def make_lab(ackstall, out_pcap, case, at, iface=None, offload=False):
    _, up, rx, tx = case[:4]
    cross = case[4] if len(case) > 4 else None  # traffic of its own through the shaper (shell)
    a = f"ip netns exec ackstall-a {ackstall}"
    b = f"ip netns exec ackstall-b {ackstall}"

    def expand(cmd):
        cmd = cmd.replace("@S", SRC)
        # python commands run in the namespace without the ackstall binary
        cmd = cmd.replace("@A python3", "ip netns exec ackstall-a python3").replace("@B python3", "ip netns exec ackstall-b python3")
        return cmd.replace("@A", a).replace("@B", b)

    run([ackstall, "lab", "up"] + up.split())
    try:
        if offload:
            # Segmentation offload back at the sender's veth (a veth offers TSO/GSO; the lab caps it
            # at one segment, gso_max_segs 1), so that dumpcap there sees the stack's super-segments.
            run(["ip", "-n", "ackstall-a", "link", "set", "dev", "ackstall-va", "gso_max_segs", "65535"])
        ns, dev = {"sender": ("ackstall-a", "ackstall-va"), "receiver": ("ackstall-b", "ackstall-vb"),
                   "middle": ("ackstall-m", iface)}[at]
        if os.path.exists(out_pcap):
            os.remove(out_pcap)
        cap = subprocess.Popen(["ip", "netns", "exec", ns, "dumpcap", "-q", "-P", "-i",
                                dev, "-f", "tcp port 5001", "-w", out_pcap],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(out_pcap) and os.path.getsize(out_pcap) > 0:
                break
            time.sleep(0.05)
        time.sleep(0.5)
        rxp = subprocess.Popen(["bash", "-c", expand(rx)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Until the receiver listens on 5001 (at most 10 s): on a loaded machine a python server
        # took longer than a fixed pause to start, and the client's SYN met a RST (no transfer).
        for _ in range(200):
            ss = subprocess.run(["ip", "netns", "exec", "ackstall-b", "ss", "-Hltn", "sport", "=", ":5001"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            if ss.stdout.strip():
                break
            time.sleep(0.05)
        time.sleep(0.1)
        crossp = subprocess.Popen(["bash", "-c", expand(cross)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) if cross else None
        subprocess.run(["bash", "-c", expand(tx)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        if crossp:
            crossp.kill()
            crossp.wait()
        try:
            rxp.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rxp.kill()
        time.sleep(0.3)
        cap.send_signal(2)
        cap.wait(timeout=10)
    finally:
        subprocess.run([ackstall, "lab", "down"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def artefact_draws(rng, e, src):
    """The entry's artefact and its expected answer, drawn from RNG (the stream's order kept)."""
    art = "none" if rng.random() < 0.45 else rng.choice(ARTEFACTS)
    if art == "tiny" and src == "lab":
        art = "oneway"
    e["artefact"] = art
    e["artefact_fraction"] = {"midstart": 0.3, "cut": 0.4, "drops": 0.01}.get(art, 0.0)
    e["artefact_seed"] = rng.randrange(1 << 30)
    return art


def plan_extra(seed, count, extra):
    """The EXTRA lab entries of LAB_KINDS_EXTRA, numbered from COUNT on, from their own stream."""
    rng = random.Random(EXTRA_STREAM.format(seed=seed))
    entries = []
    for j in range(extra):
        kind = LAB_KINDS_EXTRA[j % len(LAB_KINDS_EXTRA)]
        at = LAB_VANTAGES[(j // len(LAB_KINDS_EXTRA)) % len(LAB_VANTAGES)]
        crng = random.Random(rng.randrange(1 << 30))
        case = lab_case(crng, kind, middle=at == "middle")
        e = {"source": "lab", "kind": kind, "truth": case[0], "lab": list(case[1:]), "at": at}
        if at == "middle":
            e["iface"] = crng.choice(["ackstall-ma", "ackstall-mb"])
        e["offload"] = at == "sender" and kind in OFFLOAD_KINDS
        art = artefact_draws(rng, e, "lab")
        e["expect"] = "too_little" if art in ("tiny", "oneway") else e["truth"]
        entries.append((f"{count + j:04d}-lab-{kind}-{at}-{art}", e))
    return entries


def plan(seed, count, lab, extra=0):
    """The corpus's entries, drawn from SEED: name -> description (no capture made yet); the
    EXTRA entries of the kinds added later after them (plan_extra)."""
    rng = random.Random(seed)
    entries = []
    for i in range(count):
        src = "lab" if i < lab else "sim"
        kind = rng.choice(LAB_KINDS_V1 if src == "lab" else SIM_KINDS)
        case_seed = rng.randrange(1 << 30)
        crng = random.Random(case_seed)
        if src == "sim":
            truth, sets = sim_case(crng, kind)
            at = rng.choice(["wire", "sender", "receiver"])
            e = {"source": "sim", "kind": kind, "truth": truth, "set": sets, "at": at}
        else:
            rng.choice(["sender", "receiver"])  # the first corpus's draw, kept for the stream's sake
            kind = LAB_KINDS[i % len(LAB_KINDS)]
            at = LAB_VANTAGES[(i // len(LAB_KINDS)) % len(LAB_VANTAGES)]
            case = lab_case(crng, kind, middle=at == "middle")
            e = {"source": "lab", "kind": kind, "truth": case[0], "lab": list(case[1:]), "at": at}
            if at == "middle":
                # the delay line's host: its end towards the sender or the receiver
                e["iface"] = crng.choice(["ackstall-ma", "ackstall-mb"])
            # at the sender, the kinds that write more than an MSS: offloaded
            e["offload"] = at == "sender" and kind in OFFLOAD_KINDS
        art = artefact_draws(rng, e, src)
        if art == "tiny":
            # 3-9 segments (under evidence.h's 10): one write of that many full segments' worth.
            e["set"]["app.transmitter.writes"] = 1
            e["set"]["app.transmitter.write_len"] = 1448 * rng.randint(3, 9) - rng.randint(0, 1000)
        if src == "lab" and kind == "zero_window" and art == "midstart":
            # The reader stops at the start: the zero window lies in the first 30 % of the records,
            # which a capture started mid-stream leaves out. What the capture holds is the 4 KiB
            # receive buffer after it: a window far above the LAN's bandwidth-delay product (line
            # rate, the network's), or over the 4 ms path to the delay line's host, the window's.
            e["truth"] = "receiver_window" if at == "middle" else "network"
            e["truth_note"] = "the zero window precedes the capture's start"
        e["expect"] = "too_little" if art in ("tiny", "oneway") else e["truth"]
        entries.append((f"{i:04d}-{src}-{kind}-{at}-{art}", e))
    return entries + plan_extra(seed, count, extra)


def make(ackstall, out, name, e):
    path = os.path.join(out, name + ".pcap")
    raw = path + ".raw"
    if e["source"] == "sim":
        make_sim(ackstall, raw, e["set"], e["at"])
    else:
        make_lab(ackstall, raw, [e["truth"]] + e["lab"], e["at"], e.get("iface"), e.get("offload", False))
    art = e["artefact"] if e["artefact"] != "tiny" else "none"
    run([sys.executable, os.path.join(HERE, "artefacts.py"), raw, path, art, str(e["artefact_fraction"]),
         str(e["artefact_seed"])])
    os.remove(raw)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ackstall", default=os.path.join(SRC, "build/release/tools/ackstall/ackstall"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--count", type=int, default=320)
    ap.add_argument("--lab", type=int, default=40, help="how many of them from the lab (root; 0: none)")
    ap.add_argument("--lab-extra", type=int, default=0,
                    help="lab entries of the kinds added after the fourth round (tail loss), after COUNT")
    ap.add_argument("--first", type=int, default=0, help="make only entries FIRST.. (a slice)")
    ap.add_argument("--sim-only", action="store_true", help="skip the lab's entries (not root)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    entries = plan(args.seed, args.count, args.lab, args.lab_extra)[args.first:]
    lab_ok = os.geteuid() == 0 and shutil.which("dumpcap") and not args.sim_only
    manifest = {"seed": args.seed, "count": args.count, "lab": args.lab, "lab_extra": args.lab_extra,
                "captures": {}}
    for name, e in entries:
        if e["source"] == "lab" and not lab_ok:
            continue
        try:
            make(args.ackstall, args.out, name, e)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            print(f"generate.py: {name}: {err}", file=sys.stderr)
            continue
        manifest["captures"][name] = e
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print(f"{len(manifest['captures'])} captures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
