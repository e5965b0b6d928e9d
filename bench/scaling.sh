#!/usr/bin/env bash
# How cost grows with work (issue 41): wall time, CPU time (user + system) and peak memory
# (bash's times, /usr/bin/time's %M) per step, one process per step (steps under 0.5 s: medians of 3), and
# the exponent b of time ~ work^b and memory ~ work^b fitted by least squares on the log-log
# points. On a shared machine the wall includes waiting for a core; the CPU time does not, so
# the figure draws the CPU time. Series:
#   sim          `ackstall sim examples/ns3/ns3-sndbuf-65536.toml` (8192-byte writes, SndBuf 65536,
#                100 Mbit/s: 11.47 MiB/s simulated), simulated bytes 10^6 .. 10^10 (writes = bytes /
#                8192), by default (the causes line: the run read by the capture scanner) and
#                with --no-causes;
#   scan_packets `ackstall scan` (text and --json) of one flow, 10^4 .. 10^7 packets: the seed's
#                unpatched transfer (examples/seed/02-unpatched.toml, a 200 ms delayed-ACK stall
#                every write, ~10 packets a write), written by `ackstall sim --pcap`;
#   scan_flows   `ackstall scan` of 1 .. 10^5 flows, each a copy of one 2-write transfer of the
#                same setup (bench/many_flows_pcap.py: own client address and port, headers
#                only), all live at once (concurrent) or one after the other (sequential);
#   sweep        `ackstall sim --sweep -j1` of 10 .. 10^4 cells, each the same 100-write run of the
#                seed's unpatched transfer (the swept key, the stall threshold of the report,
#                changes no event: every cell costs the same, so the series measures the sweep).
# The goal (issue 41): time linear (b ~ 1), memory flat (b ~ 0) in packets and simulated bytes,
# memory linear in live flows only. Small steps are dominated by a process's fixed cost (start-up,
# loading), so the exponent is printed over all steps and over the top three (the asymptote).
# Usage: bench/scaling.sh [--quick] [--plot PNG] [--data FILE] [path/to/ackstall]
#   --quick      stop one decade lower in every series (sim 10^9, packets 10^6, flows 10^4,
#                cells 10^3): about a minute instead of several;
#   --plot PNG   draw the curves with gnuplot (default docs/img/scaling.png; --plot - for none);
#   --data FILE  keep the measured points (series, work, wall s, CPU s, peak KiB), tab-separated;
#   --from FILE  measure nothing: print the exponents and draw the plot of a --data file.
# Needs /usr/bin/time (Debian: time), python3 (the many-flow captures), gnuplot for the plot.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=$src/build/release/tools/ackstall/ackstall
quick=0 plot=$src/docs/img/scaling.png data='' from=''
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --plot) [ $# -ge 2 ] || { echo "scaling: --plot needs a file (or -)" >&2; exit 2; }; plot=$2; shift ;;
    --data) [ $# -ge 2 ] || { echo "scaling: --data needs a file" >&2; exit 2; }; data=$2; shift ;;
    --from) [ $# -ge 2 ] && [ -r "$2" ] || { echo "scaling: --from needs a readable --data file" >&2; exit 2; }; from=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "scaling: unknown option $1" >&2; exit 2 ;;
    *) ackstall=$1 ;;
  esac
  shift
done
[ -n "$from" ] || [ -x "$ackstall" ] || { echo "scaling: no ackstall binary at $ackstall (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scaling: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
points=$tmp/points
: > "$points"
top() { echo $(( $1 - quick )); }  # the top decade of a series
started=$(date +%s)
echo "scaling: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)$([ $quick = 1 ] && echo ', --quick')"

# step SERIES WORK COMMAND...: time the command, keep and print the point; a step under half a
# second is run three times (medians), where a shared machine's noise is largest
step() {
  local series=$1 work=$2 s kib cpu
  shift 2
  measure "$@" > "$tmp/runs"
  if awk '{ exit !($1 < 0.5) }' "$tmp/runs"; then measure "$@" >> "$tmp/runs"; measure "$@" >> "$tmp/runs"; fi
  s=$(awk '{ print $1 }' "$tmp/runs" | median) kib=$(awk '{ print $2 }' "$tmp/runs" | median)
  cpu=$(awk '{ print $3 }' "$tmp/runs" | median)
  printf '%s\t%s\t%s\t%s\t%s\n' "$series" "$work" "$s" "$cpu" "$kib" >> "$points"
  printf '  %-22s %14s %9.3f s wall %8.3f s CPU %10s KiB   (%ds)\n' "$series" "$work" "$s" "$cpu" "$kib" \
    $(( $(date +%s) - started ))
}

if [ -n "$from" ]; then
  tail -n +2 "$from" > "$points"
  echo "points of $from"
else
  echo "== sim: simulated bytes (examples/ns3/ns3-sndbuf-65536.toml, 8192-byte writes)"
  ns3=$src/examples/ns3/ns3-sndbuf-65536.toml
  for e in $(seq 6 "$(top 10)"); do
    writes=$(( 10 ** e / 8192 ))
    for mode in default no_causes; do
      flags=(); [ $mode = no_causes ] && flags=(--no-causes)
      step "sim_$mode" $(( writes * 8192 )) "$ackstall" sim "$ns3" "${flags[@]}" \
        --set app.transmitter.writes=$writes --set time_limit=100000s
    done
  done

  echo "== scan: packets of one flow (the seed's unpatched transfer, a stall every write)"
  seed=$src/examples/seed/02-unpatched.toml
  for e in $(seq 4 "$(top 7)"); do
    # ~10 packets a write (910,004 packets for 91,000 writes); each write waits 200 ms.
    "$ackstall" sim "$seed" --no-causes --set app.transmitter.writes=$(( 10 ** e / 10 )) \
      --set time_limit=1000000s --pcap "$tmp/one.pcap" > /dev/null
    packets=$("$ackstall" scan "$tmp/one.pcap" | sed -n '1s/.* \([0-9]*\) records, .*/\1/p')
    step scan_packets_text "$packets" "$ackstall" scan "$tmp/one.pcap"
    step scan_packets_json "$packets" "$ackstall" scan "$tmp/one.pcap" --json
  done
  rm -f "$tmp/one.pcap"

  echo "== scan: flows (copies of one 2-write transfer; bench/many_flows_pcap.py)"
  "$ackstall" sim "$seed" --no-causes --set app.transmitter.writes=2 --pcap "$tmp/template.pcap" > /dev/null
  for e in $(seq 0 "$(top 5)"); do
    for layout in concurrent sequential; do
      python3 "$src/bench/many_flows_pcap.py" "$tmp/template.pcap" "$tmp/flows.pcap" $(( 10 ** e )) \
        --layout $layout > /dev/null
      step "scan_flows_$layout" $(( 10 ** e )) "$ackstall" scan "$tmp/flows.pcap"
    done
  done
  rm -f "$tmp/flows.pcap"

  echo "== sweep: cells (100-write runs of the seed's unpatched transfer, -j1)"
  for e in $(seq 1 "$(top 4)"); do
    step sweep "$(( 10 ** e ))" "$ackstall" sim "$seed" --set app.transmitter.writes=100 -j 1 \
      --sweep "stall_threshold=1ms..$(( 10 ** e ))ms:1ms" --csv "$tmp/sweep.csv"
  done

fi

# Exponents: least squares of log(y) on log(x), over all steps, the top three and the top two
# (the last decade, where a process's fixed cost weighs least).
echo
echo "== fitted exponents b of y ~ work^b (least squares on log-log: all steps, the top three, the last decade)"
printf '%-22s %8s %8s %8s %8s %8s %8s %8s %8s %14s\n' series wall_all wall_top3 cpu_all cpu_top3 cpu_last \
  mem_all mem_top3 mem_last "mem per unit"
awk -F'\t' '
  { n[$1]++; x[$1, n[$1]] = $2; y["w", $1, n[$1]] = $3; y["c", $1, n[$1]] = $4; y["m", $1, n[$1]] = $5
    if (!($1 in seen)) { seen[$1]; order[++k] = $1 } }
  function slope(s, v, from,   i, sx, sy, sxx, sxy, c, lx, ly) {
    for (i = from; i <= n[s]; i++) {
      lx = log(x[s, i]); ly = log(y[v, s, i] > 0.001 ? y[v, s, i] : 0.001)
      sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly; c++
    }
    return c < 2 ? "-" : sprintf("%.2f", (c * sxy - sx * sy) / (c * sxx - sx * sx))
  }
  END {
    for (j = 1; j <= k; j++) {
      s = order[j]; top3 = n[s] > 3 ? n[s] - 2 : 1; last = n[s] > 2 ? n[s] - 1 : 1
      # Memory growth per unit of work between the first and the last step, in bytes.
      per = (y["m", s, n[s]] - y["m", s, 1]) * 1024 / (x[s, n[s]] - x[s, 1])
      printf "%-22s %8s %8s %8s %8s %8s %8s %8s %8s %12.3g B\n", s, slope(s, "w", 1), slope(s, "w", top3),
        slope(s, "c", 1), slope(s, "c", top3), slope(s, "c", last), slope(s, "m", 1), slope(s, "m", top3),
        slope(s, "m", last), per
    }
  }' "$points"
echo "(total $(( $(date +%s) - started )) s, load now $(cut -d' ' -f1-3 /proc/loadavg))"
[ -n "$data" ] && { printf 'series\twork\twall_s\tcpu_s\tpeak_kib\n'; cat "$points"; } > "$data"

if [ "$plot" != - ]; then
  command -v gnuplot > /dev/null || { echo "scaling: no plot (gnuplot not installed)"; exit 0; }
  for s in $(cut -f1 "$points" | uniq); do awk -F'\t' -v s="$s" '$1 == s' "$points" > "$tmp/$s.dat"; done
  panel() {  # TITLE XLABEL SERIES...: CPU time (solid, left axis) and memory (dashed, right axis)
    local title=$1 xlabel=$2 plots=() i=1 x t
    shift 2
    for s in "$@"; do
      plots+=("'$tmp/$s.dat' using 2:(\$4 > 0 ? \$4 : 0.001) axes x1y1 with linespoints lc $i lw 2 pt 7 title '$s CPU s' noenhanced")
      plots+=("'$tmp/$s.dat' using 2:(\$5/1024) axes x1y2 with linespoints lc $i lw 1 dt 2 pt 6 title '$s MiB' noenhanced")
      i=$((i + 1))
    done
    # A slope-1 line through the first series' top step: linear time runs parallel to it.
    read -r x t < <(tail -n 1 "$tmp/$1.dat" | cut -f2,4)
    plots+=("($t * x / $x) axes x1y1 with lines lc 'gray50' dt 3 title 'linear (slope 1)'")
    echo "set title '$title'; set xlabel '$xlabel'"
    echo "plot $(IFS=,; echo "${plots[*]}")"
  }
  {
    echo "set terminal pngcairo size 1200,900 font 'sans,9'"
    echo "set output '$plot'"
    echo "set multiplot layout 2,2 title 'ackstall: CPU time, user + system (solid, left, s) and peak memory (dashed, right, MiB) vs work, log-log'"
    echo "set logscale xy; set logscale y2; set ytics nomirror; set y2tics; set format x '10^{%L}'"
    echo "set ylabel 'CPU s'; set y2label 'peak MiB'; set format y '%g'; set format y2 '%g'; set yrange [0.001:*]; set key top left font 'sans,8'; set grid"
    panel "sim: simulated bytes" "simulated bytes" sim_default sim_no_causes
    panel "scan: packets of one flow" "packets" scan_packets_text scan_packets_json
    panel "scan: flows" "flows" scan_flows_concurrent scan_flows_sequential
    panel "sim --sweep -j1: cells" "cells" sweep
    echo "unset multiplot"
  } > "$tmp/plot.gp"
  gnuplot "$tmp/plot.gp"
  echo "plot: $plot"
fi
