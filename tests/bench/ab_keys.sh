#!/usr/bin/env bash
# Two host builds side by side on the hot path as callers present keys (issue 9): one owner key, 4,000 owner keys
# in rotation (many keys, no limit counted) and 4,000 pro keys in rotation (the limit counted too). Each side
# serves the demo seeds from its own data dir (the response cache on, so every answer is a hot one); in each round
# the sides run in turn, one server at a time, and the host's CPU per request is read from /proc around each wrk
# run. Prints every run, then the medians and after / before per rotation. Not part of CI.
# Usage: tests/bench/ab_keys.sh BEFORE_BIN AFTER_BIN [rounds, 3] [seconds per run, 4]
#   QUERY (the path asked, /v1/vin?vin=1HGCM82633A004352), BENCH_DIR (keep the work files). The plugins are this
#   tree's release build. Keep a copy of target/release/datahost before rebuilding to have a "before".
set -euo pipefail
before=$1; after=$2; rounds=${3:-3}; secs=${4:-4}
query=${QUERY:-/v1/vin?vin=1HGCM82633A004352}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
command -v wrk > /dev/null || { echo "install wrk: apt-get install -y wrk" >&2; exit 1; }
# shellcheck source=tests/bench/common.sh
. "$here/common.sh"
bench_work
echo "$query" > "$work/paths"
# The key file written directly (hashes only, as `datahost keys issue` stores them): 8,001 keys issued one by one
# would take minutes. Both sides get a copy.
python3 - "$work" <<'PY'
import hashlib, json, secrets, sys
work = sys.argv[1]
records, lists = [], {"owner": [], "owner4k": [], "pro": []}
for rotation, tier, n in (("owner", "owner", 1), ("owner4k", "owner", 4000), ("pro", "pro", 4000)):
    for _ in range(n):
        key = "svc_live_" + secrets.token_hex(16)
        lists[rotation].append(key)
        records.append({"id": "key_" + secrets.token_hex(6), "hash": hashlib.sha256(key.encode()).hexdigest(),
                        "tier": tier, "label": "ab_keys", "createdAt": "2026-01-01T00:00:00Z", "revokedAt": None})
with open(f"{work}/keys.json", "w") as f:
    json.dump({"version": 1, "keys": records}, f)
for rotation, keys in lists.items():
    with open(f"{work}/{rotation}.txt", "w") as f:
        f.write("\n".join(keys) + "\n")
PY
port=$(free_port)
for side in before after; do
  mkdir -p "$work/$side"
  cp "$work/keys.json" "$work/$side/keys.json"
  bench_config "$work/$side.toml" "$port" "$work/$side"
done
declare -A bins=([before]="$before" [after]="$after")
: > "$work/runs"
echo "rotation $query; load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    DATAHOST_CONFIG="$work/$side.toml" RUST_LOG=warn "${bins[$side]}" serve > "$work/$side.out" 2> "$work/$side.err" &
    pid=$!
    pids+=("$pid")
    listening_api "$work/$side.out" "$pid" "$work/$side.err" 60 > /dev/null
    for rotation in owner owner4k pro; do
      cpu_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      summary=$(wrk -t2 -c32 -d"${secs}s" -s "$here/soak.lua" "http://127.0.0.1:$port" -- "$work/$rotation.txt" \
        "$work/paths" | grep '^{')
      cpu_after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      echo "$r $side $rotation $((cpu_after - cpu_before)) $summary" | tee -a "$work/runs"
    done
    kill -INT "$pid"
    wait "$pid" 2> /dev/null || true
  done
done
python3 - "$work/runs" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
ticks = int(sys.argv[2])
runs = {}
for line in open(sys.argv[1]):
    _, side, rotation, cpu, summary = line.split(" ", 4)
    s = json.loads(summary)
    if any(s[k] for k in ("connect", "read", "write", "timeout", "non2xx")):
        sys.exit(f"{side} {rotation}: errors in a run (a 429 means more pro keys are needed): {summary}")
    rate = s["requests"] / s["duration_us"] * 1e6
    runs.setdefault((rotation, side), []).append((rate, int(cpu) / ticks / s["requests"] * 1e6))
print("| rotation | before req/s | after req/s | after / before | host CPU per request, before / after |")
print("|---|---|---|---|---|")
for rotation in ("owner", "owner4k", "pro"):
    b, a = runs[(rotation, "before")], runs[(rotation, "after")]
    rb, ra = statistics.median(x for x, _ in b), statistics.median(x for x, _ in a)
    cb, ca = statistics.median(c for _, c in b), statistics.median(c for _, c in a)
    print(f"| {rotation} | {rb:,.0f} | {ra:,.0f} | x{ra / rb:.3f} | {cb:.2f} / {ca:.2f} us |")
PY
