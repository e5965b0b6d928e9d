#!/usr/bin/env bash
# ackstall watch --cgroup (issue 39): only the sockets of that cgroup v2 directory, filtered by the
# kernel (inet_diag bytecode, Linux 5.9+). One process makes a loopback connection, moves into a
# cgroup of this test's own and makes a second: watch --cgroup sees the second pair only, watch
# without it both. Root (it makes a cgroup) and a cgroup v2 mount; skipped otherwise.
# Usage: watch_cgroup.sh ACKSTALL
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1
[ "$(id -u)" = 0 ] || { echo "SKIP: making a cgroup needs root"; exit 77; }
require python3
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
[ -n "$cg2" ] || { echo "SKIP: no cgroup v2 hierarchy mounted"; exit 77; }
private_dir watch-cgroup
name=ackstall-watch-test-$$
cg=$cg2/$name
mkdir "$cg"
py=
cleanup() {
  touch "$dir/done"
  if [ -n "$py" ]; then kill "$py" 2>/dev/null || true; wait "$py" 2>/dev/null || true; fi
  # A cgroup is removed once empty: its process is gone.
  for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
  rm -rf "$dir"
}
trap cleanup EXIT
python3 - "$dir" "$cg/cgroup.procs" <<'PY' &
import os, socket, sys, time
d, procs = sys.argv[1:]
def pair():
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
    c = socket.create_connection(srv.getsockname()); s = srv.accept()[0]
    return srv, c, s
outside = pair()                      # made in the cgroup the test runs in
open(procs, "w").write(str(os.getpid()))
inside = pair()                       # made in the test's cgroup: its sockets are tagged with it
open(f"{d}/ports.tmp", "w").write(f"{outside[0].getsockname()[1]} {inside[0].getsockname()[1]}\n")
os.rename(f"{d}/ports.tmp", f"{d}/ports")
while not os.path.exists(f"{d}/done"):
    for p in (outside, inside):
        p[1].send(b"x" * 1000); p[2].recv(65536)
    time.sleep(0.01)
PY
py=$!
for _ in $(seq 200); do [ -e "$dir/ports" ] && break; kill -0 "$py" 2>/dev/null || break; sleep 0.05; done
[ -e "$dir/ports" ] || fail "the connections did not come up"
read -r out_port in_port < "$dir/ports"
# watched ARGS...: the sockets watch counted, from its last table's header.
watched() {
  "$ackstall" watch "$@" --interval 50ms --duration 300ms > "$dir/out" 2> "$dir/err" || fail "watch $*: $(cat "$dir/err")"
  grep -o '[0-9]* connections\? watched' "$dir/out" | tail -1 | cut -d' ' -f1
}
ports=(--port "$out_port" --port "$in_port")
all=$(watched "${ports[@]}")
[ "$all" = 4 ] || fail "without --cgroup: $all sockets watched, expected 4"
mine=$(watched "${ports[@]}" --cgroup "$cg")
[ "$mine" = 2 ] || fail "--cgroup $cg: $mine sockets watched, expected the 2 made in it"
grep -q ":$in_port " "$dir/out" || fail "--cgroup: the connection made in the cgroup is not shown"
! grep -q ":$out_port " "$dir/out" || fail "--cgroup: a connection made outside the cgroup is shown"
rel=$(watched "${ports[@]}" --cgroup "$name")
[ "$rel" = 2 ] || fail "--cgroup $name (relative to $cg2): $rel sockets watched, expected 2"
echo "ok: --cgroup shows the 2 sockets made in $cg of the 4"
