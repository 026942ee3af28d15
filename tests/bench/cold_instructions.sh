#!/usr/bin/env bash
# Instructions per cold answer of one route (issue 9's cold path), counted by valgrind's callgrind over the whole
# host process: the response cache off, WARM distinct queries to warm up, counters zeroed, then N more distinct
# queries once each on one keep-alive connection, counters dumped; the count / N. Deterministic enough to compare
# two builds on a busy machine (two runs of one build differ by about 1% from the server's background threads),
# where wrk's req/s (ab_plugins.sh) move by 15-25% between rounds. Not part of CI.
# Usage: tests/bench/cold_instructions.sh [PLUGIN_DIR, default target/release]
# Environment: ROUTE (congress-trades; any route of `bench.py cold-queries memory`, or senate-trades), N (2000),
# WARM (300), BIN (the host binary, target/release/datahost), PATHS (a file of request paths, one per line, used as
# they are instead of making them; KEEP_PATHS=FILE keeps the shuffled ones made here for the other build's run),
# KEEP_PROFILE (a file to keep the counted part's callgrind profile in, for callgrind_annotate).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
plugins=$(cd "${1:-$root/target/release}" && pwd)
route=${ROUTE:-congress-trades}
bin=${BIN:-$root/target/release/datahost}
n=${N:-2000}
warm=${WARM:-300}
command -v valgrind > /dev/null || apt-get install -y valgrind > /dev/null
# shellcheck source=tests/bench/common.sh
. "$here/common.sh"
bench_work
port=$(free_port)
bench_config "$work/datahost.toml" "$port" "$work" "" "[cache]
max_bytes = 0"
sed -i "s|^dir = .*|dir = \"$plugins\"|" "$work/datahost.toml"
export RUST_LOG=warn DATAHOST_CONFIG="$work/datahost.toml"
"$bin" keys issue --tier owner 2> /dev/null > "$work/key"
valgrind --tool=callgrind --callgrind-out-file="$work/host.cg" "$bin" serve > "$work/out" 2> "$work/err" &
pids+=($!)
pid=$!
for _ in $(seq 1 600); do grep -q listening "$work/out" 2> /dev/null && break; sleep 0.5; done
grep -q listening "$work/out" || { cat "$work/err" >&2; exit 1; }
base="http://127.0.0.1:$port"
if [ -n "${PATHS:-}" ]; then
  cp "$PATHS" "$work/paths"
else
  case "$route" in
    senate-trades) python3 "$here/bench.py" chamber-queries senate-trades "$base" "$(cat "$work/key")" 10000 ;;
    *) python3 "$here/bench.py" cold-queries memory "$base" "$(cat "$work/key")" 10000 ;;
  esac | grep -P "^$route\t" | cut -f2 | shuf --random-source=<(yes) > "$work/paths"
  [ -z "${KEEP_PATHS:-}" ] || cp "$work/paths" "$KEEP_PATHS"
fi
[ "$(wc -l < "$work/paths")" -ge $((warm + n)) ] || { echo "fewer than WARM + N queries of $route" >&2; exit 2; }
python3 "$here/bench.py" send-each "$base" "$(cat "$work/key")" "$work/paths" 0 "$warm"
callgrind_control -z "$pid" > /dev/null 2>&1
python3 "$here/bench.py" send-each "$base" "$(cat "$work/key")" "$work/paths" "$warm" "$n"
callgrind_control --dump=cold "$pid" > /dev/null 2>&1
file=""
for _ in $(seq 1 100); do # the dump is written after callgrind_control returns
  file=$(grep -l '^desc: Trigger: .*cold$' "$work"/host.cg.* 2> /dev/null | head -1 || true)
  [ -n "$file" ] && grep -q '^totals:' "$file" && break
  sleep 0.2
done
[ -z "${KEEP_PROFILE:-}" ] || cp "$file" "$KEEP_PROFILE"
total=$(awk '/^(summary|totals):/ {print $2; exit}' "$file")
echo "$route, plugins $plugins: $((total / n)) instructions per cold answer (N=$n)"
