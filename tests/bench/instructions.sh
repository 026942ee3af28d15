#!/usr/bin/env bash
# Instructions per request on the hot path (issue 9), counted by valgrind's callgrind: the host with an owner key
# and with rotated pro keys (rate limit counted) against the bare axum baseline answering the same bytes, for
# issue 9's four queries. Instruction counts do not depend on what else the machine is doing (the same binary and
# inputs give the same count), so this compares two builds, or the host with the baseline, on a busy 2-core
# machine where wrk's req/s ratios (run.sh) move by 10% from run to run. It counts user-space instructions of the
# server only: not the kernel's socket work, not wait time, not contention between threads; run.sh's req/s ratios
# stay the goal's measure. Not part of CI.
#
# Each server runs under callgrind; for each query and key kind: WARM requests, counters zeroed, N requests on one
# keep-alive connection (tests/bench/bench.py send), counters dumped; the count of the dump / N.
# valgrind hides the CPU's SHA extensions, so the host's SHA-256 of the presented key runs in software here
# (about 3,400 instructions a request, shown in the sha256 column; with SHA-NI it is a few hundred).
#
# Usage: tests/bench/instructions.sh
# Environment: N (5000), WARM (500), TOP (print the top TOP functions by own instructions of each host run; 0),
# NO_BUILD=1, BENCH_BIN (another datahost binary; the plugins and the baseline stay this tree's), BENCH_DIR (keep
# the work files and callgrind dumps there).
set -euo pipefail
n=${N:-5000}
warm=${WARM:-500}
top=${TOP:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
command -v valgrind > /dev/null || apt-get install -y valgrind > /dev/null
[ -n "${NO_BUILD:-}" ] || (cd "$root" && cargo build --release --workspace)
bin="${BENCH_BIN:-$root/target/release/datahost}"
baseline_bin="$root/target/release/datahost-bench-baseline"
# shellcheck source=tests/bench/common.sh
. "$here/common.sh"
bench_work

p_dh=$(free_port); p_axum=$(free_port)
bench_config "$work/datahost.toml" "$p_dh" "$work"
export RUST_LOG=warn
DATAHOST_CONFIG="$work/datahost.toml" "$bin" keys issue --tier owner > "$work/owner.txt" 2> /dev/null
# At most 1,200 requests a minute per pro key: enough keys that none gets near it.
for _ in $(seq 1 $(((n + warm) / 200 + 1))); do
  DATAHOST_CONFIG="$work/datahost.toml" "$bin" keys issue --tier pro 2> /dev/null
done > "$work/pro.txt"

grind() { # name command... : starts a server under callgrind, counting from the start
  valgrind --tool=callgrind --callgrind-out-file="$work/$1.cg" "${@:2}" > "$work/$1.out" 2> "$work/$1.err" &
  pids+=($!)
}
export DATAHOST_CONFIG="$work/datahost.toml"
grind datahost "$bin" serve
pid_dh=${pids[-1]}
for _ in $(seq 1 600); do grep -q listening "$work/datahost.out" 2> /dev/null && break; sleep 0.5; done
grep -q listening "$work/datahost.out" || { cat "$work/datahost.err" >&2; exit 1; }

printf '%s\n' vin$'\t'"/v1/vin?vin=1HGCM82633A004352" \
  congress-trades$'\t'"/v1/congress-trades?ticker=NVDA" \
  edgar-search$'\t'"/v1/edgar-search?q=revenue&limit=20" \
  prices$'\t'"/v1/prices?ticker=SPY" > "$work/hot.list"
python3 "$here/bench.py" capture "http://127.0.0.1:$p_dh" "$(cat "$work/owner.txt")" "$work/hot.list" "$work/bodies" \
  > "$work/hot.index"
[ "$(wc -l < "$work/hot.index")" -eq 4 ] || { echo "a hot query does not answer 200" >&2; exit 1; }
grind axum "$baseline_bin" "127.0.0.1:$p_axum" "$work/hot.index"
pid_axum=${pids[-1]}
for _ in $(seq 1 120); do grep -q listening "$work/axum.out" 2> /dev/null && break; sleep 0.5; done

# count PID PORT KEYS TARGET LABEL: instructions per request (and the software SHA-256's share) of N requests
count() {
  python3 "$here/bench.py" send "http://127.0.0.1:$2" "$3" "$4" "$warm"
  callgrind_control -z "$1" > /dev/null 2>&1
  python3 "$here/bench.py" send "http://127.0.0.1:$2" "$3" "$4" "$n"
  callgrind_control --dump="$5" "$1" > /dev/null 2>&1
  local file="" _
  for _ in $(seq 1 100); do # the dump is written after callgrind_control returns
    file=$(grep -l "^desc: Trigger: .*$5\$" "$work"/*.cg.* 2> /dev/null | head -1 || true)
    [ -n "$file" ] && grep -q '^totals:' "$file" && break
    sleep 0.2
  done
  local total sha
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$file")
  sha=$(callgrind_annotate --inclusive=no --threshold=100 "$file" 2> /dev/null \
    | awk '/sha256::soft::compress/ {gsub(",", "", $1); s += $1} END {print s + 0}')
  echo "$((total / n)) $((sha / n))"
  if [ "$top" -gt 0 ] && [ "$1" = "$pid_dh" ]; then
    callgrind_annotate --inclusive=no --threshold=100 "$file" 2> /dev/null | grep -E '^ *[0-9,]+ \(' | sed -n "2,$((top + 1))p" \
      | awk -v n="$n" '{v = $1; gsub(",", "", v); $1 = ""; $2 = ""; printf "    %7d %s\n", v / n, substr($0, 1, 150)}' >&2
  fi
}

echo
echo "### instructions per request ($(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$root" rev-parse --short HEAD), N=$n)"
echo
echo "| query | body | bare axum | datahost owner key | pro keys | owner / axum | pro / axum | sha256 (software) |"
echo "|---|---|---|---|---|---|---|---|"
while IFS=$'\t' read -r target file route; do
  size=$(wc -c < "$file")
  read -r axum _ < <(count "$pid_axum" "$p_axum" "$work/owner.txt" "$target" "axum-$route")
  read -r owner sha < <(count "$pid_dh" "$p_dh" "$work/owner.txt" "$target" "owner-$route")
  read -r pro _ < <(count "$pid_dh" "$p_dh" "$work/pro.txt" "$target" "pro-$route")
  python3 -c "import sys; a, o, p = map(int, sys.argv[1:4]); print(f'| {sys.argv[4]} | {sys.argv[5]} B | {a:,} | {o:,} | {p:,} | {o/a:.2f} | {p/a:.2f} | {int(sys.argv[6]):,} |')" \
    "$axum" "$owner" "$pro" "$route" "$size" "$sha"
done < "$work/hot.index"
