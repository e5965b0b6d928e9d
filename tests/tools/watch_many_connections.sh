#!/usr/bin/env bash
# ackstall watch with thousands of connections (issue 39): 2,000 loopback connections (4,000
# sockets, both ends on this host), a few of them sending, some closing while watch samples; watch
# samples them all (the inet_diag dump spans many netlink messages) without an error, counts
# every socket, and names the senders. No root needed.
# Usage: watch_many_connections.sh ACKSTALL
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1
require python3
private_dir watch-many
n=2000
python3 - "$n" "$dir" <<'PY' &
import os, resource, socket, sys, threading, time
n, d = int(sys.argv[1]), sys.argv[2]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = 2 * n + 64
if hard != resource.RLIM_INFINITY and hard < want:
    open(f"{d}/skip", "w").write(f"the open-file limit {hard} is below {want}")
    sys.exit(0)
resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(4096)
port = srv.getsockname()[1]
clients, servers = [], []
for _ in range(n):
    c = socket.create_connection(("127.0.0.1", port))
    clients.append(c)
    servers.append(srv.accept()[0])
# Ten senders write 64 KiB every 20 ms; every 50 ms one idle connection closes (mid-sample).
stop = time.time() + 20
def send(c):
    while time.time() < stop:
        try:
            c.sendall(b"x" * 65536)
        except OSError:
            return
        time.sleep(0.02)
def drain(s):
    while s.recv(1 << 20):
        pass
for i in range(10):
    threading.Thread(target=send, args=(clients[i],), daemon=True).start()
    threading.Thread(target=drain, args=(servers[i],), daemon=True).start()
open(f"{d}/port.tmp", "w").write(str(port))
os.rename(f"{d}/port.tmp", f"{d}/port")
k = n - 1
while time.time() < stop and not os.path.exists(f"{d}/done"):
    time.sleep(0.05)
    if k > 1900:
        clients[k].close(); servers[k].close(); k -= 1
PY
py=$!
trap 'touch "$dir/done"; kill $py 2>/dev/null || true; wait $py 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 400); do [ -e "$dir/port" ] || [ -e "$dir/skip" ] && break; kill -0 $py 2>/dev/null || break; sleep 0.05; done
[ -e "$dir/skip" ] && { echo "SKIP: $(cat "$dir/skip")"; exit 77; }
[ -e "$dir/port" ] || fail "the connections did not come up"
port=$(cat "$dir/port")
code=0
"$ackstall" watch --port "$port" --interval 100ms --duration 1s > "$dir/out" 2> "$dir/err" || code=$?
[ "$code" = 0 ] || fail "watch exited $code: $(cat "$dir/err")"
[ ! -s "$dir/err" ] || fail "watch wrote to stderr: $(head -3 "$dir/err")"
# The header of the last table: "ackstall watch: T s, N connections watched, M moving data".
watched=$(grep -o '[0-9]* connections watched' "$dir/out" | tail -1 | cut -d' ' -f1)
# The 4,000 sockets less the pairs closed so far (one every 50 ms), kept while they moved data.
[ -n "$watched" ] && [ "$watched" -ge $((2 * n - 200)) ] && [ "$watched" -le $((2 * n)) ] ||
  fail "watched ${watched:-none} sockets, expected about $((2 * n)): $(grep 'connections watched' "$dir/out" | tail -1)"
# The summary: the connections that moved data (the 10 senders and their receivers), not the idle ones.
moved=$(grep -o '^summary: [0-9]* connection' "$dir/out" | cut -d' ' -f2)
[ -n "$moved" ] && [ "$moved" -ge 10 ] && [ "$moved" -le 20 ] ||
  fail "the summary lists ${moved:-no} connections, expected the 10 senders and up to 10 receivers"
echo "ok: $watched sockets watched, $(grep -o '^summary: [0-9]* connections' "$dir/out")"
