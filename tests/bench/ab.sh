#!/usr/bin/env bash
# Two builds of the host side by side on the hot path (issue 9): a cached answer through auth and the rate limit
# with rotating pro keys, and each binary's own /__baseline (the same stack and bytes without auth, limit or
# plugin), in interleaved wrk rounds; prints the medians, each build's full path / baseline, and after / before.
# Both serve this tree's release plugins. Not part of CI.
# Usage: tests/bench/ab.sh BEFORE_BIN AFTER_BIN [seconds per run, 4] [rounds, 5]
#   ROUTE (default /v1/congress-trades?ticker=LMCS), KEYS (pro keys rotated, 1000), EXTRA (TOML appended to both),
#   LOG (RUST_LOG of both servers, warn: no access log; info to measure with it).
set -euo pipefail
before=$1; after=$2; secs=${3:-4}; rounds=${4:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v wrk >/dev/null || { echo "install wrk: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
route=${ROUTE:-/v1/congress-trades?ticker=LMCS}
# shellcheck source=tests/bench/common.sh
. "$root/tests/bench/common.sh"
pa=$(free_port); pb=$(free_port); mkdir -p "$work/a" "$work/b"
bench_config "$work/a.toml" "$pa" "$work/a" "bench_baseline_file = \"$work/body.json\"" "${EXTRA:-}"
bench_config "$work/b.toml" "$pb" "$work/b" "bench_baseline_file = \"$work/body.json\"" "${EXTRA:-}"
for _ in $(seq 1 ${KEYS:-1000}); do DATAHOST_CONFIG=$work/a.toml $before keys issue --tier pro 2>/dev/null; done > $work/keys.txt
echo '{}' > $work/body.json
DATAHOST_CONFIG=$work/a.toml RUST_LOG=warn $before serve > $work/a0.out 2>&1 & p=$!
for _ in $(seq 1 100); do grep -q listening $work/a0.out && break; sleep 0.1; done
curl -fsS "http://127.0.0.1:$pa$route" -H "X-API-Key: $(head -1 $work/keys.txt)" > $work/body.json; kill $p; wait $p 2>/dev/null || true
cp "$work/a/keys.json" "$work/b/keys.json"
DATAHOST_CONFIG=$work/a.toml RUST_LOG=${LOG:-warn} $before serve > $work/a.out 2>&1 & pida=$!
DATAHOST_CONFIG=$work/b.toml RUST_LOG=${LOG:-warn} $after serve > $work/b.out 2>&1 & pidb=$!
trap 'kill $pida $pidb 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do grep -q listening $work/a.out && grep -q listening $work/b.out && break; sleep 0.1; done
echo "body $(wc -c < $work/body.json) B; rss before $(ps -o rss= -p $pida) KiB after $(ps -o rss= -p $pidb) KiB"
rps() { local out; if [ -n "${2:-}" ]; then out=$(wrk -t2 -c32 -d${secs}s -s $root/tests/bench/rotate-keys.lua "$1" -- $work/keys.txt); else out=$(wrk -t2 -c32 -d${secs}s "$1"); fi
  echo "$out" | grep -q Non-2xx && { echo "$out" >&2; exit 1; }; echo "$out" | awk '/Requests\/sec/ {print $2}'; }
declare -a ba fa bb fb
for r in $(seq 1 $rounds); do
  ba+=($(rps http://127.0.0.1:$pa/__baseline)); fa+=($(rps "http://127.0.0.1:$pa$route" k))
  bb+=($(rps http://127.0.0.1:$pb/__baseline)); fb+=($(rps "http://127.0.0.1:$pb$route" k))
  echo "round $r: before base ${ba[-1]} full ${fa[-1]} | after base ${bb[-1]} full ${fb[-1]}"
done
echo "rss after run: before $(ps -o rss= -p $pida) KiB after $(ps -o rss= -p $pidb) KiB"
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
python3 - $(med "${ba[@]}") $(med "${fa[@]}") $(med "${bb[@]}") $(med "${fb[@]}") <<'PY'
import sys
ba, fa, bb, fb = map(float, sys.argv[1:])
print(f"medians: before baseline {ba:.0f} full {fa:.0f} ({fa/ba:.3f}) | after baseline {bb:.0f} full {fb:.0f} ({fb/bb:.3f})")
print(f"after/before: full path {fb/fa:.3f}, baseline route {bb/ba:.3f}")
PY
