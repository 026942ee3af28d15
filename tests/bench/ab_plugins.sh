#!/usr/bin/env bash
# Two builds of the plugins side by side on the cold path (issue 9): one host binary, each host on its own plugin
# folder with the response cache off, COLD_N distinct queries of one route rotated by wrk in interleaved rounds.
# Checks first that both answer the first 200 queries alike (JSON compared), then prints each round, the medians
# and after / before, of req/s and of the host's CPU time per answer (/proc/PID/stat). Not part of CI.
# Usage: tests/bench/ab_plugins.sh BEFORE_PLUGIN_DIR AFTER_PLUGIN_DIR [seconds per run, 5] [rounds, 5]
#   ROUTE (edgar-search; any route of `bench.py cold-queries KIND`), KIND (memory: the demo seeds; table: the
#   table-backed routes, on records ingested beforehand into the engine both sides are given, for example both
#   BEFORE_ENV and AFTER_ENV set to DATAHOST_ENGINE__URL=postgres://...), PATHS (a file of request paths to rotate
#   instead of the cold queries), COLD_N (10000), BIN (the host binary, target/release/datahost), BEFORE_BIN and
#   AFTER_BIN (each side's host binary, BIN unless set: two host builds on one plugin folder compare the host's
#   cold path), BEFORE_ENV and AFTER_ENV (each side's extra environment, VAR=value words, for example
#   AFTER_ENV=DATAHOST_PLUGINS__RUNNING_CALLS=2: one build under two settings), COMPARE_WITHOUT (top-level fields
#   of the answers left out of the check, space-separated: `next` when the builds write cursors differently).
#   Keep a copy of target/release/*.so (or of the host binary) before rebuilding to have a "before".
set -euo pipefail
before=$1; after=$2; secs=${3:-5}; rounds=${4:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
bin=${BIN:-$root/target/release/datahost}
command -v wrk > /dev/null || { echo "install wrk: apt-get install -y wrk" >&2; exit 1; }
# shellcheck source=tests/bench/common.sh
. "$here/common.sh"
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; rm -rf "$work"' EXIT
start() { # name plugin-dir host-binary [VAR=value ...]
  local port bin=$3 env
  read -ra env <<< "${4:-}"
  port=$(free_port)
  mkdir -p "$work/$1"
  bench_config "$work/$1.toml" "$port" "$work/$1" "" "[cache]
max_bytes = 0"
  sed -i "s|^dir = .*|dir = \"$2\"|" "$work/$1.toml"
  env "${env[@]}" DATAHOST_CONFIG="$work/$1.toml" "$bin" keys issue --tier owner 2> /dev/null > "$work/$1.key"
  env "${env[@]}" DATAHOST_CONFIG="$work/$1.toml" RUST_LOG=warn "$bin" serve > "$work/$1.out" 2> "$work/$1.err" &
  pids+=($!)
  echo "$!" > "$work/$1.pid"
  listening_api "$work/$1.out" "$!" "$work/$1.err" 60 > /dev/null
  echo "$port" > "$work/$1.port"
}
start before "$before" "${BEFORE_BIN:-$bin}" "${BEFORE_ENV:-}"
start after "$after" "${AFTER_BIN:-$bin}" "${AFTER_ENV:-}"
url() { echo "http://127.0.0.1:$(cat "$work/$1.port")"; }
if [ -n "${PATHS:-}" ]; then
  cp "$PATHS" "$work/paths"
else
  python3 "$here/bench.py" cold-queries "${KIND:-memory}" "$(url before)" "$(cat "$work/before.key")" "${COLD_N:-10000}" \
    | grep -P "^${ROUTE:-edgar-search}\t" | cut -f2 > "$work/paths"
fi
[ -s "$work/paths" ] || { echo "no cold queries for route ${ROUTE:-edgar-search}" >&2; exit 2; }
echo "$(wc -l < "$work/paths") distinct queries of ${ROUTE:-edgar-search}; load $(cut -d' ' -f1-3 /proc/loadavg)"
normalised() {
  curl -fsS -H "X-API-Key: $(cat "$work/$1.key")" "$(url "$1")$2" | python3 -c 'import json, sys
answer = json.load(sys.stdin)
for field in sys.argv[1:]:
    answer.pop(field, None)
print(json.dumps(answer, sort_keys=True))' ${COMPARE_WITHOUT:-}
}
head -200 "$work/paths" | while read -r p; do
  cmp -s <(normalised before "$p") <(normalised after "$p") || { echo "the builds answer $p differently" >&2; exit 1; }
done
echo "the first 200 answers are the same from both"
# The host's CPU time (user + system, all its threads) in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    pid=$(cat "$work/$side.pid")
    start=$(cpu_ticks "$pid")
    summary=$(wrk -t2 -c32 -d"${secs}s" -s "$here/soak.lua" "$(url "$side")" -- "$work/$side.key" "$work/paths" | grep '^{')
    echo "$side $(( ($(cpu_ticks "$pid") - start) * 1000000 / $(getconf CLK_TCK) )) $summary"
  done
done | tee "$work/rounds"
python3 - "$work/rounds" <<'PY'
import json, statistics, sys
rates, cpu = {"before": [], "after": []}, {"before": [], "after": []}
for line in open(sys.argv[1]):
    side, cpu_us, summary = line.split(" ", 2)
    s = json.loads(summary)
    if s["non2xx"] or s["connect"] or s["read"] or s["timeout"]:
        sys.exit(f"{side}: errors in a round: {summary}")
    rates[side].append(s["requests"] / s["duration_us"] * 1e6)
    cpu[side].append(int(cpu_us) / s["requests"])
for side, r in rates.items():
    print(f"{side}: {' '.join(f'{x:,.0f}' for x in r)} req/s, median {statistics.median(r):,.0f}")
print(f"after / before: {statistics.median(rates['after']) / statistics.median(rates['before']):.3f}")
# The host's CPU per answer moves less with what else the machine runs than req/s does.
for side, c in cpu.items():
    print(f"{side}: {' '.join(f'{x:.1f}' for x in c)} us of host CPU per answer, median {statistics.median(c):.1f}")
print(f"CPU per answer, after / before: {statistics.median(cpu['after']) / statistics.median(cpu['before']):.3f}")
PY
